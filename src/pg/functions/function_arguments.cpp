#include "pg/functions/function_arguments.h"

extern "C" {
#include "utils/builtins.h"
}

#include <cmath>

#include "pg/settings.h"

namespace simjoin::pg {

Metric metric_named(const char* name) {
  if (pg_strcasecmp(name, "euclidean") == 0 || pg_strcasecmp(name, "l2") == 0)
    return Metric::Euclidean;
  if (pg_strcasecmp(name, "manhattan") == 0 || pg_strcasecmp(name, "taxicab") == 0 ||
      pg_strcasecmp(name, "l1") == 0)
    return Metric::Manhattan;
  if (pg_strcasecmp(name, "chebyshev") == 0 || pg_strcasecmp(name, "linf") == 0)
    return Metric::Chebyshev;
  if (pg_strcasecmp(name, "cosine") == 0) return Metric::Cosine;
  ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                  errmsg("simjoin: unknown metric \"%s\"", name),
                  errhint("Use euclidean (l2), manhattan (taxicab, l1), chebyshev (linf) or cosine.")));
  pg_unreachable();
}

void check_geography_metric(bool geography, Metric metric) {
  if (geography && metric != Metric::Euclidean)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: a geography join measures metres on the spheroid: it takes "
                           "no metric"),
                    errhint("Leave metric out.")));
}

const char* metric_name(Metric metric) {
  switch (metric) {
    case Metric::Euclidean: return "euclidean";
    case Metric::Manhattan: return "manhattan";
    case Metric::Chebyshev: return "chebyshev";
    case Metric::Cosine: return "cosine";
  }
  return "euclidean";
}

const char* name_argument(FunctionCallInfo fcinfo, int argument) {
  return PG_ARGISNULL(argument) ? nullptr : NameStr(*PG_GETARG_NAME(argument));
}

Metric metric_argument(FunctionCallInfo fcinfo, int argument) {
  return metric_named(PG_ARGISNULL(argument) ? "euclidean"
                                             : text_to_cstring(PG_GETARG_TEXT_PP(argument)));
}

Algorithm algorithm_argument(FunctionCallInfo fcinfo, int argument) {
  if (PG_NARGS() <= argument || PG_ARGISNULL(argument))
    return static_cast<Algorithm>(algorithm_setting);
  return parse_algorithm(text_to_cstring(PG_GETARG_TEXT_PP(argument)));
}

bool eps_argument(FunctionCallInfo fcinfo, int argument, double* eps) {
  if (PG_ARGISNULL(argument)) return false;
  *eps = PG_GETARG_FLOAT8(argument);
  if (std::isnan(*eps))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: eps must not be NaN")));
  return true;
}

JoinSpec join_spec(double eps, Metric metric, Algorithm algorithm) {
  JoinSpec spec = spec_from_settings(eps, metric);
  spec.algorithm = algorithm;
  return spec;
}

void require_tables(FunctionCallInfo fcinfo, int left_table, int right_table) {
  if (PG_ARGISNULL(left_table) || PG_ARGISNULL(right_table))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("simjoin: left_table and right_table must not be NULL")));
}

void resolve_join_tables(FunctionCallInfo fcinfo, int left_table, int right_table, int left_column,
                         int right_column, int left_key, int right_key, JoinTables* out,
                         Oid key_type) {
  require_tables(fcinfo, left_table, right_table);
  const Oid left_oid = PG_GETARG_OID(left_table), right_oid = PG_GETARG_OID(right_table);
  const char* left_column_name = name_argument(fcinfo, left_column);
  const char* right_column_name = name_argument(fcinfo, right_column);
  const char* left_key_name = name_argument(fcinfo, left_key);
  const char* right_key_name = name_argument(fcinfo, right_key);
  if (left_oid == right_oid) {
    if (!left_column_name) left_column_name = right_column_name;
    if (!right_column_name) right_column_name = left_column_name;
    if (!left_key_name) left_key_name = right_key_name;
    if (!right_key_name) right_key_name = left_key_name;
  }
  resolve_table_columns(left_oid, left_column_name, left_key_name, {"left_column", "left_key"},
                        &out->left, ValueKind::Vector, key_type);
  resolve_table_columns(right_oid, right_column_name, right_key_name, {"right_column", "right_key"},
                        &out->right, ValueKind::Vector, key_type);
  out->self_join = out->left.relid == out->right.relid &&
                   out->left.vector_attnum == out->right.vector_attnum &&
                   out->left.key_attnum == out->right.key_attnum;
}

Datum call_without_key_type(FunctionCallInfo fcinfo, int position,
                            Datum (*body)(FunctionCallInfo, Oid)) {
  const Oid key_type = get_fn_expr_argtype(fcinfo->flinfo, position);
  if (!OidIsValid(key_type))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: could not determine key_type's type")));
  const int nargs = fcinfo->nargs - 1;
  FunctionCallInfo call = static_cast<FunctionCallInfo>(palloc0(SizeForFunctionCallInfo(nargs)));
  InitFunctionCallInfoData(*call, fcinfo->flinfo, nargs, fcinfo->fncollation, fcinfo->context,
                           fcinfo->resultinfo);
  for (int i = 0, j = 0; i < fcinfo->nargs; ++i)
    if (i != position) call->args[j++] = fcinfo->args[i];
  const Datum result = body(call, key_type);
  fcinfo->isnull = call->isnull;
  return result;
}

void read_join_vectors(const JoinTables& tables, bool left_null_keys, TableVectors* left,
                       TableVectors* right) {
  const bool left_geography = tables.left.kind == ValueKind::Geography;
  if (!tables.self_join && left_geography != (tables.right.kind == ValueKind::Geography))
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("simjoin: a geography column joins only a geography column: \"%s\" "
                           "of table \"%s\" and \"%s\" of table \"%s\"",
                           tables.left.vector_column, tables.left.table_name,
                           tables.right.vector_column, tables.right.table_name)));
  read_table_vectors(tables.left, 0, left, left_null_keys, true);
  if (tables.self_join) {
    *right = *left;
    return;
  }
  read_table_vectors(tables.right, left->dim, right, false, true);
  const bool both_geometries = left->geometry && right->geometry && left->n > 0 && right->n > 0;
  if (both_geometries && left->srid != right->srid)
    ereport(ERROR,
            (errcode(ERRCODE_DATA_EXCEPTION),
             errmsg("simjoin: the %s of table \"%s\" have SRID %d, of table \"%s\" %d",
                    left_geography ? "geographies" : "geometries", tables.left.table_name,
                    left->srid, tables.right.table_name, right->srid)));
  if (left->n > 0 && right->n > 0 && right->dim != left->dim)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("simjoin: vectors of table \"%s\" have %d dimensions, of table \"%s\" %d",
                           tables.left.table_name, left->dim, tables.right.table_name, right->dim)));
}

}  // namespace simjoin::pg
