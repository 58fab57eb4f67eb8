// Reading vectors from SQL values: real[] and float8[] arrays into doubles (exact widening).
#pragma once

extern "C" {
#include "postgres.h"
}

namespace simjoin::pg {

// Whether `type` is a vector type the extension reads (real[] or float8[], domains over them).
bool is_vector_type(Oid type);

// Number of elements of the one-dimensional array `value`; ERROR when it has more than one
// dimension or NULL elements. `table` and `key_text` (either may be NULL) only name the row in the message.
int vector_length(Datum value, const char* table, const char* key_text);

// Copies the array's elements, widened to double, into out[0..dim-1]. ERROR (naming table, key
// and problem) on NULL elements, more than one array dimension, or a length other than dim.
void read_vector(Datum value, int dim, double* out, const char* table, const char* key_text);

}  // namespace simjoin::pg
