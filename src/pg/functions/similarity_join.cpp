// similarity_join(left_table, right_table, eps, ...): the set-returning function.
// Flow: resolve columns -> read (key, vector) rows through SPI -> engine -> tuplestore (which
// spills past work_mem). C++ runs only inside cpp_guard; PostgreSQL calls made from the sink go
// through pg_call, so no longjmp crosses a C++ frame.
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simjoin_similarity_join);
PG_FUNCTION_INFO_V1(simjoin_similarity_join_keyed);
}

#include <cmath>
#include <optional>
#include <string>

#include "pg/dispatch/dispatch.h"
#include "pg/functions/function_arguments.h"
#include "pg/functions/geography_pairs.h"
#include "pg/functions/pair_row.h"
#include "pg/functions/table_vectors.h"
#include "pg/pg_guard.h"
#include "pg/progress/join_progress.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

enum Argument { LEFT_TABLE, RIGHT_TABLE, EPS, METRIC, LEFT_COLUMN, RIGHT_COLUMN, LEFT_KEY,
                RIGHT_KEY, UNIQUE_PAIRS, ALGORITHM };

// Writes each pair as a (left_id, right_id, distance) row of the function's tuplestore; where
// `geography` decides the engine's candidates, those it accepts with their distance.
class TuplestoreSink : public InterruptibleSink {
 public:
  TuplestoreSink(ReturnSetInfo* rsinfo, const TableVectors& left, const TableVectors& right,
                 bool keyed, bool order_keys, bool reports_progress,
                 const GeographyPairs* geography)
      : InterruptibleSink(reports_progress), row_(rsinfo, left, right, keyed),
        left_keys_(left.keys), right_keys_(right.keys), order_keys_(order_keys),
        geography_(geography) {}

  bool consume(const PairBatch& batch) override {
    pg_call([&] {
      for (size_t k = 0; k < batch.size; ++k) {
        int64 left = left_keys_[batch.left[k]];
        int64 right = right_keys_[batch.right[k]];
        if (order_keys_) {  // unique_pairs: the rows of ... AND l.key < r.key
          if (left == right) continue;  // two rows sharing a key (the key is not unique)
          if (right < left) std::swap(left, right);
        }
        double distance = batch.distance[k];
        if (geography_ &&
            !geography_->decide(batch.left[k], batch.right[k], batch.distance[k], &distance))
          continue;
        row_.put(left, right, distance);
      }
    });
    report_pairs(batch.size);
    return keep_going();
  }

 private:
  PairRow row_;
  const int64* left_keys_;
  const int64* right_keys_;
  bool order_keys_;
  const GeographyPairs* geography_;
};

// The function; `key_type` (the polymorphic form's): keys of that type, returned as they are.
Datum similarity_join(FunctionCallInfo fcinfo, Oid key_type) {
  require_tables(fcinfo, LEFT_TABLE, RIGHT_TABLE);
  InitMaterializedSRF(fcinfo, 0);
  double eps;
  if (!eps_argument(fcinfo, EPS, &eps)) PG_RETURN_NULL();  // d <= NULL is never true: no rows
  const Metric metric = metric_argument(fcinfo, METRIC);
  const bool unique_pairs = !PG_ARGISNULL(UNIQUE_PAIRS) && PG_GETARG_BOOL(UNIQUE_PAIRS);
  // NULL (and the 1.3 signature, without the argument): the simjoin.algorithm setting.
  const Algorithm algorithm = algorithm_argument(fcinfo, ALGORITHM);

  JoinTables tables;
  resolve_join_tables(fcinfo, LEFT_TABLE, RIGHT_TABLE, LEFT_COLUMN, RIGHT_COLUMN, LEFT_KEY,
                      RIGHT_KEY, &tables, key_type);
  const bool self_join = tables.self_join;
  if (unique_pairs && !self_join)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: unique_pairs needs a self-join"),
                    errdetail("The left and right tables, vector columns and keys must be the same.")));

  const bool geography = tables.left.kind == ValueKind::Geography;
  check_geography_metric(geography, metric);
  const bool reporting = progress_begin(ProgressCommand::SimilarityJoin, tables.left.relid);
  TableVectors left, right;
  read_join_vectors(tables, false, &left, &right);
  if (left.n == 0 || right.n == 0) {
    progress_end(reporting);
    PG_RETURN_NULL();
  }
  // A geography's eps is metres: the engine joins the unit normals within the chord that keeps
  // every such pair, and PostGIS decides each (geography_pairs.h).
  std::optional<GeographyPairs> decider;
  if (geography) {
    decider.emplace(getBaseType(tables.left.value_type), left, right, eps);
    eps = decider->engine_eps();
    if (std::isnan(eps)) {
      progress_end(reporting);
      PG_RETURN_NULL();
    }
  }

  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  // Only a bool leaves C++: raise_if_interrupted may longjmp, and nothing with a destructor (the
  // JoinStats) may be alive in this frame then.
  const bool stopped = cpp_guard([&] {
    const PointSet left_points = point_set(left), right_points = point_set(right);
    JoinSpec spec = join_spec(eps, metric, algorithm);
    spec.self_pairs = unique_pairs ? SelfPairs::Unique : SelfPairs::All;
    TuplestoreSink sink(rsinfo, left, right, OidIsValid(key_type), unique_pairs, reporting,
                        decider ? &*decider : nullptr);
    progress_joining(reporting, left_points, self_join ? nullptr : &right_points, spec);
    return run_engine(left_points, self_join ? nullptr : &right_points, spec, sink).stopped;
  });
  progress_end(reporting);
  raise_if_interrupted(stopped);
  PG_RETURN_NULL();
}

}  // namespace

}  // namespace simjoin::pg

using namespace simjoin::pg;

extern "C" Datum simjoin_similarity_join(PG_FUNCTION_ARGS) {
  return similarity_join(fcinfo, InvalidOid);
}

// similarity_join(left_table, right_table, eps, key_type anyelement, ...): keys of any type.
extern "C" Datum simjoin_similarity_join_keyed(PG_FUNCTION_ARGS) {
  return call_without_key_type(fcinfo, EPS + 1, similarity_join);
}
