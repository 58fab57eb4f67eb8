// similarity_join_stats(left_table, right_table, eps, ...): per left row, its partners within eps
// (how many, the nearest, its distance) computed while the join runs, without producing pairs.
// The rows of
//   SELECT a.key, count(b.key), (the b.key of the smallest (distance, b.key)), min(distance)
//   FROM l a LEFT JOIN r b ON distance(a.v, b.v) <= eps GROUP BY a.key
// (rows with a NULL vector, or an eps of NULL, have no partner: 0, NULL, NULL).
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simjoin_similarity_join_stats);
PG_FUNCTION_INFO_V1(simjoin_similarity_join_stats_keyed);
}

#include <cmath>
#include <optional>

#include "pg/dispatch/dispatch.h"
#include "pg/functions/function_arguments.h"
#include "pg/functions/geography_pairs.h"
#include "pg/pg_guard.h"
#include "pg/progress/join_progress.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

enum Argument { LEFT_TABLE, RIGHT_TABLE, EPS, METRIC, LEFT_COLUMN, RIGHT_COLUMN, LEFT_KEY,
                RIGHT_KEY, ALGORITHM };

// One left point's aggregates, as the function returns them (palloc'd, filled inside C++).
struct PointStats {
  int64 neighbours;
  int64 nearest_key;  // valid when neighbours > 0
  double nearest_distance;
};

struct StatsRows {
  ReturnSetInfo* rsinfo;
  const PointStats* stats;  // nullptr: no point has a partner
  const TableVectors* left;   // whose keys the rows name
  const TableVectors* right;  // whose keys the nearest partners name
};

void put_row(int64 key, size_t index, void* arg) {
  const StatsRows* rows = static_cast<const StatsRows*>(arg);
  const PointStats* stats =
      rows->stats && index != kNullVector ? &rows->stats[index] : nullptr;
  Datum values[4] = {key_datum(*rows->left, key), Int64GetDatum(stats ? stats->neighbours : 0),
                     0, 0};
  bool nulls[4] = {false, false, true, true};
  if (stats && stats->neighbours > 0) {
    values[2] = key_datum(*rows->right, stats->nearest_key);
    values[3] = Float8GetDatum(stats->nearest_distance);
    nulls[2] = nulls[3] = false;
  }
  tuplestore_putvalues(rows->rsinfo->setResult, rows->rsinfo->setDesc, values, nulls);
}

// The function; `key_type` (the polymorphic form's): keys of that type, returned as they are.
Datum similarity_join_stats(FunctionCallInfo fcinfo, Oid key_type) {
  require_tables(fcinfo, LEFT_TABLE, RIGHT_TABLE);
  InitMaterializedSRF(fcinfo, 0);
  double eps = 0.0;
  const bool eps_null = !eps_argument(fcinfo, EPS, &eps);  // d <= NULL is never true: no partners
  const Metric metric = metric_argument(fcinfo, METRIC);
  const Algorithm algorithm = algorithm_argument(fcinfo, ALGORITHM);

  JoinTables tables;
  resolve_join_tables(fcinfo, LEFT_TABLE, RIGHT_TABLE, LEFT_COLUMN, RIGHT_COLUMN, LEFT_KEY,
                      RIGHT_KEY, &tables, key_type);
  const bool geography = tables.left.kind == ValueKind::Geography;
  check_geography_metric(geography, metric);
  const bool reporting = progress_begin(ProgressCommand::SimilarityJoinStats, tables.left.relid);
  TableVectors left, right;
  read_join_vectors(tables, true, &left, &right);
  // Key order: a point's index is its key's position, so the engine's tie rule for the nearest
  // partner (the smaller index) is SQL's (the smaller key). A self-join orders both sides at once.
  order_by_key(&left);
  if (tables.self_join)
    right = left;
  else
    order_by_key(&right);

  // Geography: eps in metres; the engine's candidates within the chord that keeps every such
  // pair, each decided and measured by PostGIS (geography_pairs.h).
  std::optional<GeographyPairs> decider;
  if (geography && !eps_null && left.n > 0 && right.n > 0) {
    decider.emplace(getBaseType(tables.left.value_type), left, right, eps);
    eps = decider->engine_eps();
  }
  PointStats* stats = nullptr;
  if (!eps_null && !std::isnan(eps) && left.n > 0 && right.n > 0) {
    stats = static_cast<PointStats*>(palloc_extended(sizeof(PointStats) * left.n, MCXT_ALLOC_HUGE));
    // Only a bool leaves C++: raise_if_interrupted may longjmp, and nothing with a destructor may
    // be alive in this frame then.
    const bool stopped = cpp_guard([&] {
      const PointSet left_points = point_set(left), right_points = point_set(right);
      JoinSpec spec = join_spec(eps, metric, algorithm);
      spec.self_pairs = SelfPairs::All;  // SQL's t a JOIN t b: a row is its own neighbour
      progress_joining(reporting, left_points, tables.self_join ? nullptr : &right_points, spec);
      const PointSet* partners = tables.self_join ? nullptr : &right_points;
      const NeighbourStats result =
          decider ? run_neighbour_stats(left_points, partners, spec, StatsSide::Left, nullptr,
                                        [] { return !interrupt_pending(); },
                                        geography_runner(*decider), StatsFields::All,
                                        progress_into(reporting))
                  : compute_neighbour_stats(left_points, partners, spec, StatsSide::Left, nullptr,
                                            StatsFields::All, reporting);
      if (result.join.stopped) return true;
      for (size_t i = 0; i < left.n; ++i) {
        stats[i].neighbours = static_cast<int64>(result.count[i]);
        stats[i].nearest_key = result.count[i] > 0 ? right.keys[result.nearest[i]] : 0;
        stats[i].nearest_distance = result.min_distance[i];
      }
      return false;
    });
    raise_if_interrupted(stopped);
  }

  // Rows in key order, those with a NULL vector included (no partner).
  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  StatsRows rows{rsinfo, stats, &left, &right};
  for_each_row_in_key_order(left, put_row, &rows);
  progress_end(reporting);
  PG_RETURN_NULL();
}

}  // namespace

}  // namespace simjoin::pg

using namespace simjoin::pg;

extern "C" Datum simjoin_similarity_join_stats(PG_FUNCTION_ARGS) {
  return similarity_join_stats(fcinfo, InvalidOid);
}

// similarity_join_stats(left_table, right_table, eps, key_type anyelement, ...): keys of any type.
extern "C" Datum simjoin_similarity_join_stats_keyed(PG_FUNCTION_ARGS) {
  return call_without_key_type(fcinfo, EPS + 1, similarity_join_stats);
}
