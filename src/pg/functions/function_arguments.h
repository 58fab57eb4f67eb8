// The arguments the SQL functions over tables share (similarity_join, similarity_join_stats,
// simjoin_dbscan): metric and algorithm names, eps, and which columns of which tables to read.
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

#include "engine/types.h"
#include "pg/functions/table_vectors.h"

namespace simjoin::pg {

// The name argument's text, or nullptr when it is NULL.
const char* name_argument(FunctionCallInfo fcinfo, int argument);

// The metric named by a text argument (euclidean, l2, manhattan, taxicab, l1, chebyshev, linf,
// cosine; any case); NULL: euclidean. ERROR with the valid names otherwise.
Metric metric_argument(FunctionCallInfo fcinfo, int argument);
// ERROR when a geography (measured in metres on the spheroid) is given a metric other than the
// default.
void check_geography_metric(bool geography, Metric metric);
// The same by name; and a metric's name (its first one above).
Metric metric_named(const char* name);
const char* metric_name(Metric metric);

// The algorithm named by a text argument; NULL or absent (an older signature without it): the
// simjoin.algorithm setting.
Algorithm algorithm_argument(FunctionCallInfo fcinfo, int argument);

// The eps argument into *eps; false when it is NULL (d <= NULL is never true). ERROR when it is
// NaN (no pair is within NaN; a NaN is a mistake, not a request).
bool eps_argument(FunctionCallInfo fcinfo, int argument, double* eps);

// The engine's JoinSpec for eps and metric: the settings' device and threads, `algorithm`.
JoinSpec join_spec(double eps, Metric metric, Algorithm algorithm);

// The engine's view of points read from a table.
inline PointSet point_set(const TableVectors& vectors) {
  return PointSet{vectors.coords, vectors.n, static_cast<size_t>(vectors.dim)};
}

// ERROR unless both table arguments are given.
void require_tables(FunctionCallInfo fcinfo, int left_table, int right_table);

// Both sides of a join of two tables (possibly the same one). When left_table = right_table a
// column or key named on one side only serves both. `self_join`: the same relation, vector column
// and key on both sides (then the right side is the left one, read once).
struct JoinTables {
  TableColumns left;
  TableColumns right;
  bool self_join;
};
// `key_type`: as resolve_table_columns's, for both tables.
void resolve_join_tables(FunctionCallInfo fcinfo, int left_table, int right_table, int left_column,
                         int right_column, int left_key, int right_key, JoinTables* out,
                         Oid key_type = InvalidOid);

// A polymorphic form (the keys in their own type: key_type anyelement, at `position`) run as the
// integer-keyed function body(fcinfo, key_type) runs it: on the call's arguments without
// key_type (its value is only a type), sharing the call's flinfo (the result type resolved from
// the call) and result set.
Datum call_without_key_type(FunctionCallInfo fcinfo, int position,
                            Datum (*body)(FunctionCallInfo, Oid));

// Reads both sides (the right one only when not a self-join: then right = left). ERROR when the
// two sides' vectors have different dimensions. `left_null_keys`: keep the keys of the left
// side's rows whose vector is NULL (TableVectors::null_keys). Geography points are read for the
// caller to decide their pairs in metres (geography_pairs.h); two sides are both geographies or
// neither.
void read_join_vectors(const JoinTables& tables, bool left_null_keys, TableVectors* left,
                       TableVectors* right);

}  // namespace simjoin::pg
