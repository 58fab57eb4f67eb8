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
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simjoin_similarity_join);
}

#include <cmath>
#include <cstring>
#include <string>

#include "engine_runner.h"
#include "pg_guard.h"
#include "settings.h"
#include "table_vectors.h"

namespace simjoin::pg {

namespace {

enum Argument { LEFT_TABLE, RIGHT_TABLE, EPS, METRIC, LEFT_COLUMN, RIGHT_COLUMN, LEFT_KEY,
                RIGHT_KEY, UNIQUE_PAIRS, ALGORITHM };

const char* name_argument(FunctionCallInfo fcinfo, int argument) {
  return PG_ARGISNULL(argument) ? nullptr : NameStr(*PG_GETARG_NAME(argument));
}

Metric parse_metric(const char* name) {
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

// Writes each pair as a (left_id, right_id, distance) row of the function's tuplestore. The
// row's layout is fixed (three 8-byte, 8-aligned, never NULL columns), so one formed tuple is
// reused: each pair overwrites its data area and the tuplestore copies it.
class TuplestoreSink : public InterruptibleSink {
 public:
  TuplestoreSink(ReturnSetInfo* rsinfo, const int64* left_keys, const int64* right_keys,
                 bool order_keys)
      : rsinfo_(rsinfo), left_keys_(left_keys), right_keys_(right_keys), order_keys_(order_keys) {
    pg_call([this] {
      Datum values[3] = {Int64GetDatum(0), Int64GetDatum(0), Float8GetDatum(0.0)};
      bool nulls[3] = {false, false, false};
      row_ = heap_form_tuple(rsinfo_->setDesc, values, nulls);
    });
    row_data_ = reinterpret_cast<char*>(row_->t_data) + row_->t_data->t_hoff;
  }

  bool consume(const PairBatch& batch) override {
    pg_call([&] {
      for (size_t k = 0; k < batch.size; ++k) {
        int64 left = left_keys_[batch.left[k]];
        int64 right = right_keys_[batch.right[k]];
        if (order_keys_) {  // unique_pairs: the rows of ... AND l.key < r.key
          if (left == right) continue;  // two rows sharing a key (the key is not unique)
          if (right < left) std::swap(left, right);
        }
        std::memcpy(row_data_, &left, 8);
        std::memcpy(row_data_ + 8, &right, 8);
        std::memcpy(row_data_ + 16, &batch.distance[k], 8);
        tuplestore_puttuple(rsinfo_->setResult, row_);
      }
    });
    return keep_going();
  }

 private:
  ReturnSetInfo* rsinfo_;
  const int64* left_keys_;
  const int64* right_keys_;
  bool order_keys_;
  HeapTuple row_ = nullptr;
  char* row_data_ = nullptr;
};

}  // namespace

}  // namespace simjoin::pg

using namespace simjoin;
using namespace simjoin::pg;

extern "C" Datum simjoin_similarity_join(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(LEFT_TABLE) || PG_ARGISNULL(RIGHT_TABLE))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("simjoin: left_table and right_table must not be NULL")));
  InitMaterializedSRF(fcinfo, 0);
  if (PG_ARGISNULL(EPS)) PG_RETURN_NULL();  // d <= NULL is never true: no rows
  const double eps = PG_GETARG_FLOAT8(EPS);
  if (std::isnan(eps))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: eps must not be NaN")));
  const Metric metric =
      parse_metric(PG_ARGISNULL(METRIC) ? "euclidean" : text_to_cstring(PG_GETARG_TEXT_PP(METRIC)));
  const bool unique_pairs = !PG_ARGISNULL(UNIQUE_PAIRS) && PG_GETARG_BOOL(UNIQUE_PAIRS);
  // NULL (and the 1.3 signature, without the argument): the simjoin.algorithm setting.
  const bool algorithm_given = PG_NARGS() > ALGORITHM && !PG_ARGISNULL(ALGORITHM);
  const Algorithm algorithm = algorithm_given
                                  ? parse_algorithm(text_to_cstring(PG_GETARG_TEXT_PP(ALGORITHM)))
                                  : static_cast<Algorithm>(algorithm_setting);

  // One relation on both sides: a column or key named on one side only serves both.
  const Oid left_table = PG_GETARG_OID(LEFT_TABLE), right_table = PG_GETARG_OID(RIGHT_TABLE);
  const char* left_column = name_argument(fcinfo, LEFT_COLUMN);
  const char* right_column = name_argument(fcinfo, RIGHT_COLUMN);
  const char* left_key = name_argument(fcinfo, LEFT_KEY);
  const char* right_key = name_argument(fcinfo, RIGHT_KEY);
  if (left_table == right_table) {
    if (!left_column) left_column = right_column;
    if (!right_column) right_column = left_column;
    if (!left_key) left_key = right_key;
    if (!right_key) right_key = left_key;
  }
  TableColumns left_columns, right_columns;
  resolve_table_columns(left_table, left_column, left_key, "left", &left_columns);
  resolve_table_columns(right_table, right_column, right_key, "right", &right_columns);
  const bool self_join = left_columns.relid == right_columns.relid &&
                         left_columns.vector_attnum == right_columns.vector_attnum &&
                         left_columns.key_attnum == right_columns.key_attnum;
  if (unique_pairs && !self_join)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("simjoin: unique_pairs needs a self-join"),
                    errdetail("The left and right tables, vector columns and keys must be the same.")));

  TableVectors left, right;
  read_table_vectors(left_columns, 0, &left);
  if (self_join)
    right = left;
  else
    read_table_vectors(right_columns, left.dim, &right);
  if (left.n == 0 || right.n == 0) PG_RETURN_NULL();
  if (right.dim != left.dim)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("simjoin: vectors of table \"%s\" have %d dimensions, of table \"%s\" %d",
                           left_columns.table_name, left.dim, right_columns.table_name, right.dim)));

  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  // Only a bool leaves C++: raise_if_interrupted may longjmp, and nothing with a destructor (the
  // JoinStats) may be alive in this frame then.
  const bool stopped = cpp_guard([&] {
    const PointSet left_points{left.coords, left.n, static_cast<size_t>(left.dim)};
    const PointSet right_points{right.coords, right.n, static_cast<size_t>(right.dim)};
    JoinSpec spec = spec_from_settings(eps, metric);
    spec.algorithm = algorithm;
    spec.self_pairs = unique_pairs ? SelfPairs::Unique : SelfPairs::All;
    TuplestoreSink sink(rsinfo, left.keys, right.keys, unique_pairs);
    return run_engine(left_points, self_join ? nullptr : &right_points, spec, sink).stopped;
  });
  raise_if_interrupted(stopped);
  PG_RETURN_NULL();
}
