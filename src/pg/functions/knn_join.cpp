// similarity_knn_join(left_table, right_table, k, eps, ...): per left row, its k nearest right
// rows within eps, as the rows of
//   SELECT a.key, n.key, n.d, n.rank FROM left_table a CROSS JOIN LATERAL (
//     SELECT b.key, d(a.v, b.v) AS d, row_number() OVER (ORDER BY d(a.v, b.v), b.key) AS rank
//     FROM right_table b WHERE d(a.v, b.v) <= eps ORDER BY d(a.v, b.v), b.key LIMIT k) n
// Flow as similarity_join: arguments -> (key, vector) rows through SPI -> the kNN engine where
// simjoin.device routes it (the GPU service's tensor-core kNN join, or this backend's leased CPU
// threads) -> tuplestore (which spills past work_mem).
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simjoin_similarity_knn_join);
PG_FUNCTION_INFO_V1(simjoin_similarity_knn_join_keyed);
}

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "engine/knn/measured_knn.h"
#include "pg/dispatch/dispatch.h"
#include "pg/functions/geography_pairs.h"
#include "pg/functions/pair_row.h"
#include "pg/functions/function_arguments.h"
#include "pg/functions/table_vectors.h"
#include "pg/pg_guard.h"
#include "pg/progress/join_progress.h"

namespace simjoin::pg {

namespace {

enum Argument { LEFT_TABLE, RIGHT_TABLE, K, EPS, METRIC, LEFT_COLUMN, RIGHT_COLUMN, LEFT_KEY,
                RIGHT_KEY, ALGORITHM, INCLUDE_SELF };

// Writes each neighbour as a (left_id, right_id, distance, rank) row. The engine hands a left
// row's neighbours nearest first, so its rank is how many of its neighbours came before.
class KnnTuplestoreSink : public InterruptibleSink {
 public:
  KnnTuplestoreSink(ReturnSetInfo* rsinfo, const TableVectors& left, const TableVectors& right,
                    bool keyed, bool reports_progress)
      : InterruptibleSink(reports_progress), row_(rsinfo, left, right, keyed),
        left_keys_(left.keys), right_keys_(right.keys), ranks_(left.n, 0) {}

  bool consume(const PairBatch& batch) override {
    pg_call([&] {
      for (size_t n = 0; n < batch.size; ++n) {
        const int64 left = left_keys_[batch.left[n]], right = right_keys_[batch.right[n]];
        const int32 rank = static_cast<int32>(++ranks_[batch.left[n]]);
        row_.put(left, right, batch.distance[n], rank);
      }
    });
    report_pairs(batch.size);
    return keep_going();
  }

 private:
  PairRow row_;
  const int64* left_keys_;
  const int64* right_keys_;
  std::vector<uint32_t> ranks_;
};

// k: NULL is an ERROR (SQL's LIMIT NULL would mean every row: similarity_join gives those), as is
// a negative k (as LIMIT's); 0 gives no rows (as LIMIT 0). `wide`: k is a bigint (the
// polymorphic form's), at most 2^31 - 1 (a rank is an integer).
size_t k_argument(FunctionCallInfo fcinfo, bool wide) {
  if (PG_ARGISNULL(K))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("simjoin: k must not be NULL"),
                    errhint("For every partner within eps, use similarity_join().")));
  const int64 k = wide ? PG_GETARG_INT64(K) : PG_GETARG_INT32(K);
  if (k < 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: k must not be negative (it is " INT64_FORMAT ")", k)));
  if (k > PG_INT32_MAX)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: k must be at most %d (it is " INT64_FORMAT ")", PG_INT32_MAX,
                           k)));
  return static_cast<size_t>(k);
}

// The algorithm argument (or simjoin.algorithm): bruteforce forces the blocked scan, grid the
// sorted projection (in any dimension; cosine always scans); auto and szl let the engine choose.
KnnAlgorithm knn_algorithm(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::BruteForce:
      return KnnAlgorithm::BruteForce;
    case Algorithm::Grid:
      return KnnAlgorithm::SortedProjection;
    default:
      return KnnAlgorithm::Auto;
  }
}

// The function; `key_type` (the polymorphic form's): keys of that type, returned as they are.
Datum similarity_knn_join(FunctionCallInfo fcinfo, Oid key_type) {
  require_tables(fcinfo, LEFT_TABLE, RIGHT_TABLE);
  InitMaterializedSRF(fcinfo, 0);
  const size_t k = k_argument(fcinfo, OidIsValid(key_type));
  double eps = std::numeric_limits<double>::infinity();
  eps_argument(fcinfo, EPS, &eps);  // NULL: no limit
  const Metric metric = metric_argument(fcinfo, METRIC);
  const Algorithm algorithm = algorithm_argument(fcinfo, ALGORITHM);
  const bool include_self = PG_ARGISNULL(INCLUDE_SELF) || PG_GETARG_BOOL(INCLUDE_SELF);

  JoinTables tables;
  resolve_join_tables(fcinfo, LEFT_TABLE, RIGHT_TABLE, LEFT_COLUMN, RIGHT_COLUMN, LEFT_KEY,
                      RIGHT_KEY, &tables, key_type);
  if (!include_self && !tables.self_join)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: include_self => false needs a self-join"),
                    errdetail("The left and right tables, vector columns and keys must be the same.")));

  const bool geography = tables.left.kind == ValueKind::Geography;
  check_geography_metric(geography, metric);
  const bool reporting = progress_begin(ProgressCommand::SimilarityKnnJoin, tables.left.relid);
  TableVectors left, right;
  read_join_vectors(tables, false, &left, &right);
  if (k == 0 || left.n == 0 || right.n == 0) {
    progress_end(reporting);
    PG_RETURN_NULL();
  }
  // Key order on the right: a point's index is its key's position, so the engine's tie rule at
  // the k-th distance (the smaller index) is SQL's ORDER BY d, key (the smaller key). A self-join
  // orders its one side, so that a point's index on the left is its index on the right too (the
  // engine's self-join skips the row itself by index).
  order_by_key(&right);
  if (tables.self_join) left = right;
  // A geography's distances are PostGIS's metres on the spheroid: the engine's nearest unit
  // normals are measured by PostGIS, widening until the k nearest are certain (measured_knn.h).
  std::optional<GeographyPairs> geodesic;
  if (geography) geodesic.emplace(getBaseType(tables.left.value_type), left, right, eps);

  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  // Only a bool leaves C++: raise_if_interrupted may longjmp, and nothing with a destructor may be
  // alive in this frame then.
  const bool stopped = cpp_guard([&] {
    const PointSet left_points = point_set(left), right_points = point_set(right);
    const JoinSpec settings = join_spec(eps, metric, algorithm);
    KnnSpec spec;
    spec.k = k;
    spec.eps = eps;
    spec.metric = metric;
    spec.include_self = include_self;
    spec.algorithm = knn_algorithm(algorithm);
    spec.threads = settings.threads;
    spec.batch_pairs = settings.batch_pairs;
    KnnTuplestoreSink sink(rsinfo, left, right, OidIsValid(key_type), reporting);
    progress_joining(reporting, left_points, tables.self_join ? nullptr : &right_points, settings);
    const PointSet* right_side = tables.self_join ? nullptr : &right_points;
    if (!geodesic) return run_knn(left_points, right_side, spec, settings, sink).stopped;
    KnnMeasure metres;
    metres.measure = [&](size_t i, const uint32_t* js, size_t n, double* out) {
      pg_call([&] {
        for (size_t c = 0; c < n; ++c) out[c] = geodesic->distance(i, js[c]);
      });
    };
    metres.reach = [&](double d) { return geodesic->reach(d); };
    const KnnRunner engine = [&](const PointSet& l, const PointSet* r, const KnnSpec& s,
                                 PairSink& candidates) {
      return run_knn(l, r, s, settings, candidates);
    };
    return run_measured_knn(left_points, right_side, spec, metres, engine, sink).stopped;
  });
  progress_end(reporting);
  raise_if_interrupted(stopped);
  PG_RETURN_NULL();
}

}  // namespace

}  // namespace simjoin::pg

using namespace simjoin::pg;

extern "C" Datum simjoin_similarity_knn_join(PG_FUNCTION_ARGS) {
  return similarity_knn_join(fcinfo, InvalidOid);
}

// similarity_knn_join(left_table, right_table, k, key_type anyelement, ...): keys of any type.
extern "C" Datum simjoin_similarity_knn_join_keyed(PG_FUNCTION_ARGS) {
  return call_without_key_type(fcinfo, K + 1, similarity_knn_join);
}
