// simjoin_dbscan(table_name, eps, min_points, ...) on a table's vectors and
// simjoin_cluster_dbscan(table_name, geom_column, eps, min_points, ...) on its PostGIS points:
// DBSCAN as PostGIS's ST_ClusterDBSCAN defines it (engine/aggregates/dbscan.h), one row per table row:
// (id, cluster, kind). Points are clustered in key order, so every rule that picks "the smallest
// index" picks the smallest key: a border point joins the cluster of its core neighbour with the
// smallest key, and clusters are numbered 0, 1, ... by their smallest key. Rows with a NULL
// vector or geometry are noise (ST_ClusterDBSCAN gives them NULL).
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/lsyscache.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simjoin_dbscan);
PG_FUNCTION_INFO_V1(simjoin_dbscan_keyed);
PG_FUNCTION_INFO_V1(simjoin_cluster_dbscan);
PG_FUNCTION_INFO_V1(simjoin_cluster_dbscan_ordered);
}

#include <cmath>
#include <optional>

#include "pg/dispatch/dispatch.h"
#include "pg/functions/function_arguments.h"
#include "pg/functions/geography_pairs.h"
#include "pg/functions/postgis_points.h"
#include "pg/pg_guard.h"
#include "pg/progress/join_progress.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

// ERROR as ST_ClusterDBSCAN raises for a NULL or negative eps or min_points ("must be a positive
// number"); NaN is refused too. min_points 0 is allowed and means 1, as in PostGIS.
void check_dbscan_arguments(FunctionCallInfo fcinfo, int eps, int min_points) {
  if (PG_ARGISNULL(eps) || PG_GETARG_FLOAT8(eps) < 0 || std::isnan(PG_GETARG_FLOAT8(eps)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: eps must be a number >= 0")));
  if (PG_ARGISNULL(min_points) || PG_GETARG_INT32(min_points) < 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: min_points must be an integer >= 0")));
}

struct ClusterRows {
  ReturnSetInfo* rsinfo;
  const TableVectors* points;  // whose keys the rows name
  const int64* cluster;  // per point; -1: noise
  const uint8* kind;     // per point: PointKind
  Datum kind_names[3];   // text of each PointKind, made once
};

void put_row(int64 key, size_t index, void* arg) {
  const ClusterRows* rows = static_cast<const ClusterRows*>(arg);
  const PointKind kind =
      index == kNullVector ? PointKind::Noise : static_cast<PointKind>(rows->kind[index]);
  Datum values[3] = {key_datum(*rows->points, key), 0, 0};
  bool nulls[3] = {false, true, false};
  if (kind != PointKind::Noise) {
    values[1] = Int32GetDatum(static_cast<int32>(rows->cluster[index]));
    nulls[1] = false;
  }
  values[2] = rows->kind_names[static_cast<int>(kind)];
  tuplestore_putvalues(rows->rsinfo->setResult, rows->rsinfo->setDesc, values, nulls);
}

// Clusters the points in key order and returns the rows; ends the progress report `reporting`.
// `geography` (the column's type, else InvalidOid): eps in metres on the spheroid, each engine
// candidate decided by PostGIS (geography_pairs.h).
Datum cluster_and_return(FunctionCallInfo fcinfo, TableVectors* points, double eps,
                         int32 min_points, Metric metric, Algorithm algorithm, bool reporting,
                         Oid geography = InvalidOid) {
  order_by_key(points);
  const size_t n = points->n;
  std::optional<GeographyPairs> decider;
  if (OidIsValid(geography) && n > 0) {
    decider.emplace(geography, *points, *points, eps);
    eps = decider->engine_eps();
  }
  int64* cluster = static_cast<int64*>(palloc_extended(sizeof(int64) * (n + 1), MCXT_ALLOC_HUGE));
  uint8* kind = static_cast<uint8*>(palloc_extended(n + 1, MCXT_ALLOC_HUGE));
  if (n > 0) {
    // Only a bool leaves C++: raise_if_interrupted may longjmp, and nothing with a destructor may
    // be alive in this frame then.
    const bool stopped = cpp_guard([&] {
      const JoinSpec spec = join_spec(eps, metric, algorithm);
      const std::uint64_t min = static_cast<std::uint64_t>(min_points);
      progress_joining(reporting, point_set(*points), nullptr, spec, min > 1 ? 2 : 1);
      const DbscanResult result =
          decider ? run_dbscan(point_set(*points), spec, min, [] { return !interrupt_pending(); },
                               geography_runner(*decider), progress_into(reporting))
                  : compute_dbscan(point_set(*points), spec, min, reporting);
      if (result.counting.stopped || result.linking.stopped) return true;
      for (size_t i = 0; i < n; ++i) {
        cluster[i] = result.cluster[i];
        kind[i] = static_cast<uint8>(result.kind[i]);
      }
      return false;
    });
    raise_if_interrupted(stopped);
  }
  ClusterRows rows{reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo), points, cluster, kind,
                   {}};
  rows.kind_names[static_cast<int>(PointKind::Noise)] = CStringGetTextDatum("noise");
  rows.kind_names[static_cast<int>(PointKind::Border)] = CStringGetTextDatum("border");
  rows.kind_names[static_cast<int>(PointKind::Core)] = CStringGetTextDatum("core");
  for_each_row_in_key_order(*points, put_row, &rows);
  progress_end(reporting);
  PG_RETURN_NULL();
}

enum DbscanArgument { TABLE_NAME, EPS, MIN_POINTS, COLUMN_NAME, KEY, METRIC, ALGORITHM };

// simjoin_dbscan; `key_type` (the polymorphic form's): keys of that type, returned as they are.
Datum dbscan(FunctionCallInfo fcinfo, Oid key_type) {
  if (PG_ARGISNULL(TABLE_NAME))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("simjoin: table_name must not be NULL")));
  check_dbscan_arguments(fcinfo, EPS, MIN_POINTS);
  InitMaterializedSRF(fcinfo, 0);
  const Metric metric = metric_argument(fcinfo, METRIC);
  const Algorithm algorithm = algorithm_argument(fcinfo, ALGORITHM);
  TableColumns columns;
  resolve_table_columns(PG_GETARG_OID(TABLE_NAME), name_argument(fcinfo, COLUMN_NAME),
                        name_argument(fcinfo, KEY), {"column_name", "key"}, &columns,
                        ValueKind::Vector, key_type);
  const bool geography = columns.kind == ValueKind::Geography;
  check_geography_metric(geography, metric);
  const bool reporting = progress_begin(ProgressCommand::Dbscan, columns.relid);
  TableVectors points;
  read_table_vectors(columns, 0, &points, true, true);
  return cluster_and_return(fcinfo, &points, PG_GETARG_FLOAT8(EPS), PG_GETARG_INT32(MIN_POINTS),
                            metric, algorithm, reporting,
                            geography ? getBaseType(columns.value_type) : InvalidOid);
}

}  // namespace

}  // namespace simjoin::pg

using namespace simjoin;
using namespace simjoin::pg;

extern "C" Datum simjoin_dbscan(PG_FUNCTION_ARGS) { return dbscan(fcinfo, InvalidOid); }

// simjoin_dbscan(table_name, eps, min_points, key_type anyelement, ...): keys of any type.
extern "C" Datum simjoin_dbscan_keyed(PG_FUNCTION_ARGS) {
  return call_without_key_type(fcinfo, MIN_POINTS + 1, dbscan);
}

namespace {

// simjoin_cluster_dbscan's arguments' positions: (table_name, geom_column, eps, min_points, key)
// in 1.5's order, (table_name, eps, min_points, geom_column, key) in simjoin_dbscan's.
struct ClusterArguments {
  int table_name, geom_column, eps, min_points, key;
};

Datum cluster_dbscan(FunctionCallInfo fcinfo, const ClusterArguments& at, bool column_required) {
  if (PG_ARGISNULL(at.table_name) || (column_required && PG_ARGISNULL(at.geom_column)))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("simjoin: table_name and geom_column must not be NULL")));
  check_dbscan_arguments(fcinfo, at.eps, at.min_points);
  InitMaterializedSRF(fcinfo, 0);
  TableColumns columns;
  // geom_column NULL (simjoin_dbscan's order): the table's only geometry column
  resolve_table_columns(PG_GETARG_OID(at.table_name), name_argument(fcinfo, at.geom_column),
                        name_argument(fcinfo, at.key), {"geom_column", "key"}, &columns,
                        ValueKind::Geometry);
  const bool reporting = progress_begin(ProgressCommand::Dbscan, columns.relid);
  TableVectors points;
  read_point_geometries(columns, &points);
  // Planar distance sqrt(dx * dx + dy * dy), as PostGIS computes it between two points.
  return cluster_and_return(fcinfo, &points, PG_GETARG_FLOAT8(at.eps),
                            PG_GETARG_INT32(at.min_points), Metric::Euclidean,
                            static_cast<Algorithm>(algorithm_setting), reporting);
}

}  // namespace

extern "C" Datum simjoin_cluster_dbscan(PG_FUNCTION_ARGS) {
  return cluster_dbscan(fcinfo, ClusterArguments{0, 1, 2, 3, 4}, true);
}

// simjoin_cluster_dbscan(table_name, eps, min_points, geom_column, key): simjoin_dbscan's order.
extern "C" Datum simjoin_cluster_dbscan_ordered(PG_FUNCTION_ARGS) {
  return cluster_dbscan(fcinfo, ClusterArguments{0, 3, 1, 2, 4}, false);
}
