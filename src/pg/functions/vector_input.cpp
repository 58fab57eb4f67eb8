// Reading real[] and float8[] values into doubles (float4 widens to double exactly).
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
  if (ARR_ELEMTYPE(array) != FLOAT4OID && ARR_ELEMTYPE(array) != FLOAT8OID)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("simjoin: vectors must be real[] or float8[], not %s[]",
                           format_type_be(ARR_ELEMTYPE(array)))));
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
  if (ARR_ELEMTYPE(array) == FLOAT8OID) {
    memcpy(out, ARR_DATA_PTR(array), sizeof(double) * dim);
  } else {
    const float* data = reinterpret_cast<const float*>(ARR_DATA_PTR(array));
    for (int j = 0; j < dim; ++j) out[j] = data[j];
  }
  if (reinterpret_cast<Pointer>(array) != DatumGetPointer(value)) pfree(array);
}

}  // namespace simjoin::pg
