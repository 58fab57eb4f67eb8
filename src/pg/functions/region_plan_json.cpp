#include "pg/functions/region_plan_json.h"

extern "C" {
#include "common/shortest_dec.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
}

#include <cmath>
#include <limits>

#include "pg/functions/function_arguments.h"

namespace simjoin::pg {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A finite number, or null for an infinite bound.
void append_bound(StringInfo out, double value) {
  char digits[DOUBLE_SHORTEST_DECIMAL_LEN];
  if (std::isfinite(value)) {
    double_to_shortest_decimal_buf(value, digits);
    appendStringInfoString(out, digits);
  }
  else
    appendStringInfoString(out, "null");
}

void append_bounds(StringInfo out, const double* values, int count) {
  appendStringInfoChar(out, '[');
  for (int a = 0; a < count; ++a) {
    if (a > 0) appendStringInfoString(out, ", ");
    append_bound(out, values[a]);
  }
  appendStringInfoChar(out, ']');
}

[[noreturn]] void bad_plan(const char* problem) {
  ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                  errmsg("simjoin: not a region plan: %s", problem),
                  errhint("Pass the value simjoin_region_plan() or simjoin_shard_table() "
                          "returned.")));
  pg_unreachable();
}

JsonbValue field(JsonbContainer* object, const char* key) {
  JsonbValue value;
  if (!getKeyJsonValueFromContainer(object, key, strlen(key), &value)) {
    char problem[96];
    snprintf(problem, sizeof problem, "no \"%s\"", key);
    bad_plan(problem);
  }
  return value;
}

JsonbContainer* container(const JsonbValue& value, bool array, const char* what) {
  if (value.type != jbvBinary ||
      (array ? !JsonContainerIsArray(value.val.binary.data)
             : !JsonContainerIsObject(value.val.binary.data)))
    bad_plan(what);
  return value.val.binary.data;
}

// A number, or `null_value` for null.
double number(const JsonbValue& value, double null_value, const char* what) {
  if (value.type == jbvNull) return null_value;
  if (value.type != jbvNumeric) bad_plan(what);
  return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(value.val.numeric)));
}

const char* string(const JsonbValue& value, const char* what) {
  if (value.type != jbvString) bad_plan(what);
  return pnstrdup(value.val.string.val, value.val.string.len);
}

// `count` bounds of an array (null: `unbounded`).
void read_bounds(JsonbContainer* array, int count, double unbounded, double* out) {
  if (static_cast<int>(JsonContainerSize(array)) != count)
    bad_plan("a region's bounds do not match its dimensions");
  for (int a = 0; a < count; ++a) {
    JsonbValue* value = getIthJsonbValueFromContainer(array, a);
    out[a] = number(*value, unbounded, "a bound is not a number or null");
  }
}

}  // namespace

Datum region_plan_jsonb(const RegionPlanData& plan) {
  StringInfoData out;
  initStringInfo(&out);
  appendStringInfo(&out, "{\"format\": 1, \"metric\": \"%s\", \"eps\": ", metric_name(plan.metric));
  append_bound(&out, plan.eps);
  appendStringInfo(&out, ", \"split\": \"%s\", \"dimensions\": [",
                   plan.split == RegionSplit::Work ? "work" : "points");
  for (int a = 0; a < plan.axes; ++a) appendStringInfo(&out, "%s%d", a ? ", " : "", plan.dims[a] + 1);
  appendStringInfoString(&out, "], \"regions\": [");
  for (int r = 0; r < plan.regions; ++r) {
    appendStringInfoString(&out, r ? ", {\"lower\": " : "{\"lower\": ");
    append_bounds(&out, plan.lower + r * plan.axes, plan.axes);
    appendStringInfoString(&out, ", \"upper\": ");
    append_bounds(&out, plan.upper + r * plan.axes, plan.axes);
    appendStringInfoChar(&out, '}');
  }
  appendStringInfo(&out, "], \"rows\": %.0f, \"sampled_rows\": %.0f}", plan.rows, plan.sampled_rows);
  return DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data));
}

void read_region_plan(Jsonb* plan, RegionPlanData* out) {
  if (!JB_ROOT_IS_OBJECT(plan)) bad_plan("not a JSON object");
  JsonbContainer* root = &plan->root;
  if (number(field(root, "format"), 0, "\"format\" is not 1") != 1) bad_plan("\"format\" is not 1");
  out->metric = metric_named(string(field(root, "metric"), "\"metric\" is not a string"));
  out->eps = number(field(root, "eps"), kInfinity, "\"eps\" is not a number");
  if (!(out->eps >= 0.0)) bad_plan("\"eps\" is negative");
  const char* split = string(field(root, "split"), "\"split\" is not a string");
  if (strcmp(split, "work") != 0 && strcmp(split, "points") != 0)
    bad_plan("\"split\" is neither \"work\" nor \"points\"");
  out->split = strcmp(split, "work") == 0 ? RegionSplit::Work : RegionSplit::Points;

  JsonbContainer* dims = container(field(root, "dimensions"), true, "\"dimensions\" is not an array");
  out->axes = static_cast<int>(JsonContainerSize(dims));
  if (out->axes < 1) bad_plan("no split dimensions");
  out->dims = static_cast<int*>(palloc(sizeof(int) * out->axes));
  for (int a = 0; a < out->axes; ++a) {
    const double d = number(*getIthJsonbValueFromContainer(dims, a), 0, "a dimension is not a number");
    if (!(d >= 1 && d <= 100000 && d == std::floor(d))) bad_plan("a dimension is not 1 or more");
    out->dims[a] = static_cast<int>(d) - 1;
  }

  JsonbContainer* regions = container(field(root, "regions"), true, "\"regions\" is not an array");
  out->regions = static_cast<int>(JsonContainerSize(regions));
  if (out->regions < 1) bad_plan("no regions");
  out->lower = static_cast<double*>(palloc(sizeof(double) * out->regions * out->axes));
  out->upper = static_cast<double*>(palloc(sizeof(double) * out->regions * out->axes));
  for (int r = 0; r < out->regions; ++r) {
    JsonbValue* region = getIthJsonbValueFromContainer(regions, r);
    JsonbContainer* box = container(*region, false, "a region is not an object");
    read_bounds(container(field(box, "lower"), true, "\"lower\" is not an array"), out->axes,
                -kInfinity, out->lower + r * out->axes);
    read_bounds(container(field(box, "upper"), true, "\"upper\" is not an array"), out->axes,
                kInfinity, out->upper + r * out->axes);
  }
  JsonbValue rows;
  out->rows = getKeyJsonValueFromContainer(root, "rows", 4, &rows) ? number(rows, 0, "\"rows\"") : 0;
  out->sampled_rows = 0;
}

RegionPartition region_partition(const RegionPlanData& plan) {
  std::vector<std::size_t> dims(plan.dims, plan.dims + plan.axes);
  std::vector<RegionBox> boxes(plan.regions);
  for (int r = 0; r < plan.regions; ++r) {
    boxes[r].lower.assign(plan.lower + r * plan.axes, plan.lower + (r + 1) * plan.axes);
    boxes[r].upper.assign(plan.upper + r * plan.axes, plan.upper + (r + 1) * plan.axes);
  }
  return RegionPartition(plan.metric, plan.eps, std::move(dims), std::move(boxes));
}

}  // namespace simjoin::pg
