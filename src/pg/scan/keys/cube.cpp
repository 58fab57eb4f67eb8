// Keys of contrib cube's distances: point cubes (a box, or a degenerate one with NaN bounds, is
// wild).
#include "pg/scan/keys/keys.h"

#include <cstring>

namespace simjoin::pg::cs {

// contrib cube: int32 vl_len_; uint32 header (bit 31: point, low 31 bits: dim); double x[].
constexpr uint32 kCubePointBit = 0x80000000u;
constexpr uint32 kCubeDimMask = 0x7fffffffu;

// Reads a cube's coordinates if it is a point (or a degenerate box); returns its dim or -1.
int cube_point(Datum value, double* out, int want_dim) {
  Size size;
  const char* data = varlena_data(value, &size);
  if (size < 4) return -1;
  uint32 header;
  std::memcpy(&header, data, 4);
  const int dim = static_cast<int>(header & kCubeDimMask);
  const bool point = (header & kCubePointBit) != 0;
  const Size need = 4 + sizeof(double) * dim * (point ? 1 : 2);
  if (size < need || dim == 0) return -1;
  if (want_dim >= 0 && dim != want_dim) return -1;
  const char* coords = data + 4;
  for (int i = 0; i < dim; ++i) {
    double ll;
    std::memcpy(&ll, coords + sizeof(double) * i, sizeof(double));
    if (!point) {
      double ur;
      std::memcpy(&ur, coords + sizeof(double) * (dim + i), sizeof(double));
      if (!(ll == ur)) return -1;  // a box (or NaN): cube's box distance, leave it to cube
    }
    if (!coordinate_ok(ll)) return -1;
    if (out) out[i] = ll;
  }
  return dim;
}

}  // namespace simjoin::pg::cs
