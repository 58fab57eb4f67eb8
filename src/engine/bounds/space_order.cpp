#include "engine/bounds/space_order.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace simjoin {

SpaceCurve space_curve(const double* points, std::uint32_t n, int dim, double* lo, double* hi) {
  for (int d = 0; d < dim; ++d) lo[d] = hi[d] = points[d];
  for (std::uint32_t p = 1; p < n; ++p) {
    const double* x = points + static_cast<std::size_t>(p) * dim;
    for (int d = 0; d < dim; ++d) {
      lo[d] = std::min(lo[d], x[d]);
      hi[d] = std::max(hi[d], x[d]);
    }
  }
  SpaceCurve curve;
  for (int pick = 0; pick < 3; ++pick) {  // the widest dimensions, in decreasing width
    int best = -1;
    for (int d = 0; d < dim; ++d) {
      bool taken = false;
      for (int a = 0; a < curve.n_axes; ++a) taken = taken || curve.axes[a] == d;
      if (!taken && hi[d] > lo[d] && std::isfinite(hi[d] - lo[d]) &&
          (best < 0 || hi[d] - lo[d] > hi[best] - lo[best]))
        best = d;
    }
    if (best < 0) break;
    curve.axes[curve.n_axes] = best;
    curve.lo[curve.n_axes] = lo[best];
    curve.hi[curve.n_axes] = hi[best];
    curve.n_axes++;
  }
  if (curve.n_axes == 0) return curve;
  int total_bits = 4;
  while (total_bits < 30 && (static_cast<std::uint64_t>(1) << (total_bits - 4)) < n) ++total_bits;
  curve.bits = std::max(1, total_bits / curve.n_axes);
  return curve;
}

std::uint64_t space_code(const SpaceCurve& curve, const double* x) {
  const double cells = static_cast<double>((1u << curve.bits) - 1);
  std::uint32_t q[3];
  for (int a = 0; a < curve.n_axes; ++a) {
    const int d = curve.axes[a];
    const double t = (x[d] - curve.lo[a]) / (curve.hi[a] - curve.lo[a]) * cells;  // in [0, cells]
    q[a] = t > 0 ? static_cast<std::uint32_t>(std::min(t, cells)) : 0;
  }
  std::uint64_t code = 0;
  for (int b = curve.bits - 1; b >= 0; --b)
    for (int a = 0; a < curve.n_axes; ++a) code = (code << 1) | ((q[a] >> b) & 1u);
  return code;
}

void space_keys(const SpaceCurve& curve, const double* points, std::uint32_t n, int dim,
                std::uint64_t* keys) {
  for (std::uint32_t p = 0; p < n; ++p)
    keys[p] = (space_code(curve, points + static_cast<std::size_t>(p) * dim) << 32) | p;
}

void sort_space_keys(std::uint64_t* keys, std::uint64_t* scratch, std::uint32_t n,
                     std::uint32_t* counts) {
  // LSD radix sort on the code (at most 30 bits): two stable passes of 16 bits. An even number
  // of passes: the sorted keys end in the caller's keys.
  for (int shift = 32; shift < 64; shift += 16) {
    std::memset(counts, 0, sizeof(std::uint32_t) * kSpaceSortBuckets);
    for (std::uint32_t p = 0; p < n; ++p) counts[(keys[p] >> shift) & 0xFFFF]++;
    std::uint32_t sum = 0;
    for (std::size_t b = 0; b < kSpaceSortBuckets; ++b) {
      const std::uint32_t c = counts[b];
      counts[b] = sum;
      sum += c;
    }
    for (std::uint32_t p = 0; p < n; ++p) scratch[counts[(keys[p] >> shift) & 0xFFFF]++] = keys[p];
    std::swap(keys, scratch);
  }
}

}  // namespace simjoin
