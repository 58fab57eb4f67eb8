// Keys of pgvector's distances: vector (float4 coordinates), normalized for its cosine distance.
#include "pg/scan/keys/keys.h"

#include <cmath>
#include <cstring>

namespace simjoin::pg::cs {

// pgvector: int32 vl_len_; int16 dim; int16 unused; float4 x[dim].
int pgvector_point(Datum value, double* out, int want_dim, bool cosine, bool* zero) {
  Size size;
  const char* data = varlena_data(value, &size);
  if (size < 4) return -1;
  int16 dim;
  std::memcpy(&dim, data, 2);
  if (dim <= 0 || size < 4 + sizeof(float) * Size(dim)) return -1;
  if (want_dim >= 0 && dim != want_dim) return -1;
  const char* coords = data + 4;
  double norm2 = 0;
  for (int i = 0; i < dim; ++i) {
    float f;
    std::memcpy(&f, coords + sizeof(float) * i, sizeof(float));
    const double x = f;
    if (!std::isfinite(x)) return -1;
    norm2 += x * x;
    if (out) out[i] = x;
  }
  // pgvector's cosine sums a.b, |a|^2 and |b|^2 in single precision. Where |a|^2 passes
  // FLT_MAX the sums overflow (its distance is then 1 or NaN), and where it is tiny the products
  // fall into float's subnormals and lose their digits ([3e-23,0] and [3e-23,1e-23] are at its
  // cosine distance 0): outside [1e-30, 1e38] its result is not the cosine within the engine
  // bound's margin, so such vectors are wild (its own operator decides them).
  if (cosine && norm2 != 0 && !(norm2 >= 1e-30 && norm2 <= 1e38)) return -1;
  if (zero) *zero = norm2 == 0;
  if (cosine && out && norm2 > 0) {
    const double norm = std::sqrt(norm2);
    for (int i = 0; i < dim; ++i) out[i] /= norm;
  }
  return dim;
}

}  // namespace simjoin::pg::cs
