// Host-side pieces of the low-precision filters' bound that do not depend on the precision:
// the power-of-two scale of the centred points and e, the scaled reach of a matching pair.
// cuda/tensor_filter.cu uses them for its FP16 copies.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace simjoin {

// A power of two s with s * largest <= 1 (largest: the largest |x - c| of the centred points),
// at most 2^1000 so that it stays finite for subnormal data.
inline double power_of_two_scale(double largest) {
  if (!(largest > 0.0) || !std::isfinite(largest)) return 1.0;
  int exponent = 0;
  std::frexp(largest, &exponent);  // largest = f 2^exponent, f in [0.5, 1)
  return std::ldexp(1.0, exponent < -1000 ? 1000 : -exponent);
}

// x rounded up to a float (+inf above the range; NaN stays NaN).
inline float round_up_to_float(double x) {
  float f = static_cast<float>(x);
  if (static_cast<double>(f) < x) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

// e: the exact test accepts S <= bound with S the double sum of the squared differences of
// `dim` dimensions, each term and sum rounded (relative 2^-53) or, in the subnormal range,
// off by at most 2^-1075; so the real squared distance is at most
// bound (1 + (dim + 2) 2^-52) + (dim + 1) 2^-1074, and scaled by s its root is at most e.
// margin scales the rounding terms (1 = proven, 0 = none).
inline double scaled_reach(double bound, std::size_t dim, double scale, double margin) {
  const double d = static_cast<double>(dim);
  const double real_bound =
      bound * (1.0 + margin * (d + 2.0) * 0x1p-52) + margin * (d + 1.0) * 0x1p-1074;
  return std::sqrt(real_bound) * scale * (1.0 + margin * 0x1p-50);
}

}  // namespace simjoin
