// Test-only entry points to the aggregates' route (pg/dispatch/dispatch.h), so that test/service can
// run neighbour statistics and DBSCAN as GPU service jobs and in this backend alike. The extension's
// SQL does not declare them; a test does:
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simjoin_test_neighbour_stats);
PG_FUNCTION_INFO_V1(simjoin_test_dbscan);
}

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "pg/dispatch/dispatch.h"
#include "pg/functions/table_vectors.h"
#include "pg/pg_guard.h"
#include "pg/settings.h"

using namespace simjoin;
using namespace simjoin::pg;

namespace {

//   CREATE FUNCTION simjoin_test_neighbour_stats(left_table regclass, right_table regclass,
//       eps float8, right_side bool, unique_pairs bool, ranked bool)
//     RETURNS TABLE (key int8, partners int8, min_distance float8, max_distance float8,
//                    nearest int8) AS 'simjoin', 'simjoin_test_neighbour_stats' LANGUAGE C STRICT;
//   CREATE FUNCTION simjoin_test_dbscan(tbl regclass, eps float8, min_points int8)
//     RETURNS TABLE (key int8, cluster int8, kind text) AS 'simjoin', 'simjoin_test_dbscan'
//     LANGUAGE C STRICT;
// Tables as similarity_join() reads them (one float8[] column, an integer primary key); the same
// table on both sides is a self-join. `ranked`: partners ranked by key (the nearest partner's ties
// go to the smaller key), else by row order.

TableVectors read_table(Oid relid, int dim) {
  TableColumns columns;
  resolve_table_columns(relid, nullptr, nullptr, {"left_column", "left_key"}, &columns);
  TableVectors vectors;
  read_table_vectors(columns, dim, &vectors);
  return vectors;
}

// Each point's position in key order.
std::vector<std::uint64_t> key_ranks(const TableVectors& vectors) {
  std::vector<std::uint64_t> order(vectors.n), ranks(vectors.n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::uint64_t a, std::uint64_t b) { return vectors.keys[a] < vectors.keys[b]; });
  for (std::size_t p = 0; p < order.size(); ++p) ranks[order[p]] = p;
  return ranks;
}

Datum distance_or_null(double d, bool* null) {
  *null = std::isnan(d);
  return Float8GetDatum(d);
}

}  // namespace

extern "C" Datum simjoin_test_neighbour_stats(PG_FUNCTION_ARGS) {
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  const Oid left_table = PG_GETARG_OID(0), right_table = PG_GETARG_OID(1);
  const double eps = PG_GETARG_FLOAT8(2);
  const bool right_side = PG_GETARG_BOOL(3), unique_pairs = PG_GETARG_BOOL(4);
  const bool ranked = PG_GETARG_BOOL(5);
  const bool self_join = left_table == right_table;
  TableVectors left = read_table(left_table, 0);
  TableVectors right = self_join ? left : read_table(right_table, left.dim);
  if (left.n == 0 || right.n == 0) PG_RETURN_NULL();
  const bool stopped = cpp_guard([&] {
    const PointSet left_points{left.coords, left.n, static_cast<std::size_t>(left.dim)};
    const PointSet right_points{right.coords, right.n, static_cast<std::size_t>(right.dim)};
    JoinSpec spec = spec_from_settings(eps, Metric::Euclidean);
    spec.self_pairs = unique_pairs ? SelfPairs::Unique : SelfPairs::All;
    const StatsSide side = right_side && !self_join ? StatsSide::Right : StatsSide::Left;
    const TableVectors& folded = side == StatsSide::Left ? left : right;
    const TableVectors& partners = side == StatsSide::Left ? right : left;
    const std::vector<std::uint64_t> ranks = ranked ? key_ranks(partners) : std::vector<std::uint64_t>();
    const NeighbourStats stats = compute_neighbour_stats(
        left_points, self_join ? nullptr : &right_points, spec, side, ranked ? ranks.data() : nullptr);
    if (stats.join.stopped) return true;
    pg_call([&] {
      for (std::size_t i = 0; i < folded.n; ++i) {
        Datum values[5];
        bool nulls[5] = {false};
        values[0] = Int64GetDatum(folded.keys[i]);
        values[1] = Int64GetDatum(static_cast<int64>(stats.count[i]));
        values[2] = distance_or_null(stats.min_distance[i], &nulls[2]);
        values[3] = distance_or_null(stats.max_distance[i], &nulls[3]);
        nulls[4] = stats.nearest[i] == kNoPartner;
        values[4] = nulls[4] ? 0 : Int64GetDatum(partners.keys[stats.nearest[i]]);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
      }
    });
    return false;
  });
  raise_if_interrupted(stopped);
  PG_RETURN_NULL();
}

extern "C" Datum simjoin_test_dbscan(PG_FUNCTION_ARGS) {
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  const double eps = PG_GETARG_FLOAT8(1);
  const std::uint64_t min_points = static_cast<std::uint64_t>(std::max<int64>(0, PG_GETARG_INT64(2)));
  TableVectors table = read_table(PG_GETARG_OID(0), 0);
  if (table.n == 0) PG_RETURN_NULL();
  const bool stopped = cpp_guard([&] {
    const PointSet points{table.coords, table.n, static_cast<std::size_t>(table.dim)};
    const DbscanResult result =
        compute_dbscan(points, spec_from_settings(eps, Metric::Euclidean), min_points);
    if (result.counting.stopped || result.linking.stopped) return true;
    static const char* const kinds[] = {"noise", "border", "core"};
    pg_call([&] {
      for (std::size_t i = 0; i < table.n; ++i) {
        Datum values[3] = {Int64GetDatum(table.keys[i]), Int64GetDatum(result.cluster[i]),
                           CStringGetTextDatum(kinds[static_cast<int>(result.kind[i])])};
        bool nulls[3] = {false, false, false};
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
      }
    });
    return false;
  });
  raise_if_interrupted(stopped);
  PG_RETURN_NULL();
}
