// Reading real[], float8[] and integer array values into doubles (float4, int2 and int4 widen to
// double exactly; int8 exactly up to 2^53 in magnitude, else to the nearest double).
#include "pg/functions/vector_input.h"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
}

namespace simjoin::pg {

namespace {

// The row's description that starts error messages: 'table "t", row with key 42: ', or ''
// for a plain value (no table).
void describe_row(char* out, size_t size, const char* table, const char* key_text) {
  if (!table)
    out[0] = '\0';
  else if (key_text)
    snprintf(out, size, "table \"%s\", row with key %s: ", table, key_text);
  else
    snprintf(out, size, "table \"%s\": ", table);
}

ArrayType* checked_array(Datum value, const char* table, const char* key_text) {
  ArrayType* array = DatumGetArrayTypeP(value);
  char row[NAMEDATALEN * 2 + 64];
  if (ARR_NDIM(array) > 1) {
    describe_row(row, sizeof row, table, key_text);
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("simjoin: %svector has %d array dimensions, expected 1", row,
                           ARR_NDIM(array)),
                    errhint("Store each vector as a one-dimensional real[] or float8[].")));
  }
  if (ARR_NDIM(array) == 0) {
    describe_row(row, sizeof row, table, key_text);
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("simjoin: %svector is empty", row)));
  }
  if (ARR_HASNULL(array) && array_contains_nulls(array)) {
    describe_row(row, sizeof row, table, key_text);
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("simjoin: %svector has NULL elements", row)));
  }
  switch (ARR_ELEMTYPE(array)) {
    case FLOAT4OID: case FLOAT8OID: case INT2OID: case INT4OID: case INT8OID: break;
    default:
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("simjoin: vectors must be real[], float8[], smallint[], integer[] "
                             "or bigint[], not %s[]",
                             format_type_be(ARR_ELEMTYPE(array)))));
  }
  return array;
}

int element_count(ArrayType* array) { return ARR_DIMS(array)[0]; }

}  // namespace

bool is_vector_type(Oid type) {
  Oid base = getBaseType(type);
  return base == FLOAT4ARRAYOID || base == FLOAT8ARRAYOID;
}

int vector_length(Datum value, const char* table, const char* key_text) {
  return element_count(checked_array(value, table, key_text));
}

void read_vector(Datum value, int dim, double* out, const char* table, const char* key_text) {
  ArrayType* array = checked_array(value, table, key_text);
  const int count = element_count(array);
  if (count != dim) {
    char row[NAMEDATALEN * 2 + 64];
    describe_row(row, sizeof row, table, key_text);
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("simjoin: %svector has %d dimensions, expected %d", row, count, dim),
                    errhint("All vectors of a join must have the same number of dimensions.")));
  }
  const char* data = ARR_DATA_PTR(array);
  const auto widen = [&](auto element) {
    const auto* values = reinterpret_cast<const decltype(element)*>(data);
    for (int j = 0; j < dim; ++j) out[j] = static_cast<double>(values[j]);
  };
  switch (ARR_ELEMTYPE(array)) {
    case FLOAT8OID: memcpy(out, data, sizeof(double) * dim); break;
    case FLOAT4OID: widen(float{}); break;
    case INT2OID: widen(int16{}); break;
    case INT4OID: widen(int32{}); break;
    default: widen(int64{}); break;  // INT8OID (checked_array)
  }
  if (reinterpret_cast<Pointer>(array) != DatumGetPointer(value)) pfree(array);
}

}  // namespace simjoin::pg
