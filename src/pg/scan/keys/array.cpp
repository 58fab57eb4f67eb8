// Keys of simjoin's own distances: real[] and float8[] arrays.
#include "pg/scan/keys/keys.h"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
}

#include <cstring>

namespace simjoin::pg::cs {

// real[] / float8[]: one dimension, no NULL elements, float4 or float8 elements. Read in place,
// also from a value with a short header (arrays of small vectors are stored so): its fields
// after the header are those of ArrayType after vl_len_, unaligned, so they are copied out.
int array_point(Datum value, double* out, int want_dim) {
  Size size;
  const char* data = varlena_data(value, &size);
  struct Head {  // ArrayType after vl_len_, then dims[1] (lbound[1] follows)
    int32 ndim;
    int32 dataoffset;  // non-zero: a NULL bitmap follows (NULL elements)
    Oid elemtype;
    int32 dim;
  } head;
  if (size < sizeof head) return -1;
  std::memcpy(&head, data, sizeof head);
  if (head.ndim != 1 || head.dataoffset != 0) return -1;
  const Size element = head.elemtype == FLOAT8OID ? sizeof(double)
                       : head.elemtype == FLOAT4OID ? sizeof(float)
                                                     : 0;
  const int dim = head.dim;
  if (element == 0 || dim <= 0 || (want_dim >= 0 && dim != want_dim)) return -1;
  const Size offset = ARR_OVERHEAD_NONULLS(1) - VARHDRSZ;  // the elements, after the header
  if (size < offset + element * static_cast<Size>(dim)) return -1;
  const char* x = data + offset;
  for (int i = 0; i < dim; ++i) {
    double coordinate;
    if (element == sizeof(double)) {
      std::memcpy(&coordinate, x + sizeof(double) * i, sizeof(double));
    } else {
      float f;
      std::memcpy(&f, x + sizeof(float) * i, sizeof(float));
      coordinate = f;
    }
    if (!coordinate_ok(coordinate)) return -1;
    if (out) out[i] = coordinate;
  }
  return dim;
}

}  // namespace simjoin::pg::cs
