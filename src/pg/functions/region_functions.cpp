// SQL functions of one join split over several servers (docs/SHARDING.md):
//   simjoin_region_plan(source, eps, regions, column_name, metric, split) -> jsonb
//   simjoin_point_regions(point, plan) -> SETOF (region, halo)
// The regions come from the engine (engine/partition/region_partition.h); this file reads the
// table's sample and writes and reads the plan's jsonb (region_plan_json.h).
extern "C" {
#include "postgres.h"
#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simjoin_region_plan);
PG_FUNCTION_INFO_V1(simjoin_point_regions);
}

#include <algorithm>
#include <cmath>

#include "pg/functions/function_arguments.h"
#include "pg/functions/region_plan_json.h"
#include "pg/functions/table_vectors.h"
#include "pg/functions/vector_input.h"
#include "pg/pg_guard.h"

namespace {

using namespace simjoin;
using namespace simjoin::pg;

constexpr double kSampleRows = 65536;  // read from the table for the quantiles (all if fewer)
constexpr int kMaxRegions = 4096;

// The sampled vectors, in the function's memory context.
struct SampleReader {
  MemoryContext context;
  const TableColumns* columns;
  double* coords = nullptr;
  size_t n = 0;
  size_t capacity = 0;
  int dim = 0;
};

void read_sample_row(TupleTableSlot* slot, void* arg) {
  auto* reader = static_cast<SampleReader*>(arg);
  bool isnull;
  const Datum value = slot_getattr(slot, 1, &isnull);
  if (isnull) return;
  if (reader->dim == 0) reader->dim = vector_length(value, reader->columns->table_name, nullptr);
  if (reader->n == reader->capacity) {
    const size_t capacity = reader->capacity ? reader->capacity * 2 : 4096;
    const size_t bytes = sizeof(double) * capacity * reader->dim;
    reader->coords = static_cast<double*>(
        reader->coords ? repalloc_huge(reader->coords, bytes)
                       : MemoryContextAllocHuge(reader->context, bytes));
    reader->capacity = capacity;
  }
  read_vector(value, reader->dim, reader->coords + reader->n * reader->dim,
              reader->columns->table_name, nullptr);
  ++reader->n;
}

RegionSplit split_argument(FunctionCallInfo fcinfo, int argument) {
  if (PG_ARGISNULL(argument)) return RegionSplit::Work;
  const char* name = text_to_cstring(PG_GETARG_TEXT_PP(argument));
  if (pg_strcasecmp(name, "work") == 0 || pg_strcasecmp(name, "pw") == 0) return RegionSplit::Work;
  if (pg_strcasecmp(name, "points") == 0 || pg_strcasecmp(name, "pq") == 0)
    return RegionSplit::Points;
  ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                  errmsg("simjoin: unknown split \"%s\"", name),
                  errhint("Use work (quantiles of the join's work, for skewed data) or points "
                          "(quantiles of the points).")));
  pg_unreachable();
}

// The plan's cache in fn_extra: the plan it was read from and the engine's partition (C++,
// deleted when the function's memory context goes).
struct PlanCache {
  Jsonb* plan_copy;
  RegionPartition* partition;
};

void delete_partition(void* arg) {
  auto* cache = static_cast<PlanCache*>(arg);
  delete cache->partition;
  cache->partition = nullptr;
}

PlanCache* cached_plan(FunctionCallInfo fcinfo, Jsonb* plan) {
  auto* cache = static_cast<PlanCache*>(fcinfo->flinfo->fn_extra);
  if (cache && cache->plan_copy && VARSIZE(cache->plan_copy) == VARSIZE(plan) &&
      memcmp(cache->plan_copy, plan, VARSIZE(plan)) == 0)
    return cache;
  MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
  if (!cache) {
    cache = static_cast<PlanCache*>(palloc0(sizeof(PlanCache)));
    auto* callback = static_cast<MemoryContextCallback*>(palloc0(sizeof(MemoryContextCallback)));
    callback->func = delete_partition;
    callback->arg = cache;
    MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, callback);
    fcinfo->flinfo->fn_extra = cache;
  }
  delete_partition(cache);
  cache->plan_copy = nullptr;  // until the new plan is read whole
  RegionPlanData data;
  read_region_plan(plan, &data);
  Jsonb* copy = static_cast<Jsonb*>(palloc(VARSIZE(plan)));
  memcpy(copy, plan, VARSIZE(plan));
  MemoryContextSwitchTo(old);
  cache->partition = cpp_guard([&] { return new RegionPartition(region_partition(data)); });
  cache->plan_copy = copy;
  return cache;
}

}  // namespace

// simjoin_region_plan(source regclass, eps float8, regions int4, column_name name,
//                     metric text, split text) -> jsonb
extern "C" Datum simjoin_region_plan(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0)) ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                                       errmsg("simjoin: source table is NULL")));
  if (PG_ARGISNULL(1) || !(PG_GETARG_FLOAT8(1) >= 0.0))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: eps must be a number of at least 0"),
                    errhint("The regions' halo holds the points within eps of a region: give "
                            "the largest eps the sharded table will be joined with.")));
  if (PG_ARGISNULL(2) || PG_GETARG_INT32(2) < 1 || PG_GETARG_INT32(2) > kMaxRegions)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: regions must be between 1 and %d", kMaxRegions)));
  RegionPlanData plan{};
  plan.eps = PG_GETARG_FLOAT8(1);
  plan.regions = PG_GETARG_INT32(2);
  plan.metric = metric_argument(fcinfo, 4);
  plan.split = split_argument(fcinfo, 5);

  TableColumns columns;
  resolve_value_column(PG_GETARG_OID(0), name_argument(fcinfo, 3), {"column_name", nullptr},
                       &columns);
  if (columns.kind != ValueKind::Vector)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("simjoin: column \"%s\" of table \"%s\" is %s; regions are planned "
                           "on real[], float8[] or vector columns", columns.vector_column,
                           columns.table_name, format_type_be(columns.value_type))));
  StringInfoData query;
  initStringInfo(&query);
  appendStringInfo(&query, "SELECT %s FROM %s", value_expression(columns),
                   columns.qualified_name);
  const double percent = columns.expected_rows > kSampleRows
                             ? std::max(0.01, 100.0 * kSampleRows / columns.expected_rows)
                             : 100.0;
  if (percent < 100.0)
    appendStringInfo(&query, " TABLESAMPLE BERNOULLI (%.6f) REPEATABLE (0)", percent);
  SampleReader reader;
  reader.context = CurrentMemoryContext;
  reader.columns = &columns;
  for_each_query_row(query.data, read_sample_row, &reader);
  if (reader.n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("simjoin: table \"%s\" has no vectors in column \"%s\" to plan "
                           "regions from", columns.table_name, columns.vector_column),
                    errhint("Fill the table first, or pass plan => another table's plan.")));
  plan.sampled_rows = static_cast<double>(reader.n);
  plan.rows = percent < 100.0 ? std::round(columns.expected_rows) : plan.sampled_rows;

  // Room for the engine's answer: at most two split dimensions.
  plan.dims = static_cast<int*>(palloc(sizeof(int) * 2));
  plan.lower = static_cast<double*>(palloc(sizeof(double) * 2 * plan.regions));
  plan.upper = static_cast<double*>(palloc(sizeof(double) * 2 * plan.regions));
  cpp_guard([&] {
    RegionPlanOptions options;
    options.regions = static_cast<size_t>(plan.regions);
    options.split = plan.split;
    options.metric = plan.metric;
    options.eps = plan.eps;
    const PointSet points{reader.coords, reader.n, static_cast<size_t>(reader.dim)};
    const RegionPartition partition = plan_regions(points, options);
    plan.axes = static_cast<int>(partition.dims().size());
    for (int a = 0; a < plan.axes; ++a) plan.dims[a] = static_cast<int>(partition.dims()[a]);
    for (int r = 0; r < plan.regions; ++r) {
      for (int a = 0; a < plan.axes; ++a) {
        plan.lower[r * plan.axes + a] = partition.boxes()[r].lower[a];
        plan.upper[r * plan.axes + a] = partition.boxes()[r].upper[a];
      }
    }
  });
  PG_RETURN_DATUM(region_plan_jsonb(plan));
}

// simjoin_point_regions(point real[] | float8[], plan jsonb) -> SETOF (region int4, halo bool):
// the home region (halo false), then the halo's. A NULL point: region 0, matching nothing.
// Materialized, so that fn_extra keeps the plan's cache across the rows of a query.
extern "C" Datum simjoin_point_regions(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("simjoin: the region plan is NULL")));
  PlanCache* cache = cached_plan(fcinfo, PG_GETARG_JSONB_P(1));
  const RegionPartition& partition = *cache->partition;
  int* region = static_cast<int*>(palloc(sizeof(int) * partition.regions()));
  int count = 1;
  region[0] = 0;
  if (!PG_ARGISNULL(0)) {
    const Datum point = PointerGetDatum(PG_GETARG_ARRAYTYPE_P(0));
    const int dim = vector_length(point, nullptr, nullptr);
    int needed = 0;
    for (size_t axis : partition.dims()) needed = std::max(needed, static_cast<int>(axis) + 1);
    if (dim < needed)
      ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                      errmsg("simjoin: a point of %d dimensions, but the region plan splits "
                             "dimension %d", dim, needed)));
    double* coords = static_cast<double*>(palloc(sizeof(double) * (dim + 1)));
    read_vector(point, dim, coords, nullptr, nullptr);
    cpp_guard([&] {
      std::vector<size_t> reach;
      partition.reach(coords, static_cast<size_t>(dim), &reach);
      count = static_cast<int>(reach.size());
      for (int k = 0; k < count; ++k) region[k] = static_cast<int>(reach[k]);
    });
  }
  InitMaterializedSRF(fcinfo, 0);
  auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  for (int k = 0; k < count; ++k) {
    Datum values[2] = {Int32GetDatum(region[k]), BoolGetDatum(k > 0)};
    bool nulls[2] = {false, false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  return static_cast<Datum>(0);
}
