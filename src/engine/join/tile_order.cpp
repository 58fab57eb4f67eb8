// space_key: the bits of the tile order's key spread over the dimensions (see tile_order.h).
#include "engine/join/tile_order.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace simjoin {

SpaceKey space_key(const std::vector<double>& mean, const std::vector<double>& variance) {
  SpaceKey key;
  std::vector<int> dims(variance.size());
  std::iota(dims.begin(), dims.end(), 0);
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int a, int b) { return variance[a] > variance[b]; });
  double width[SpaceKey::kMaxDims];  // each dimension's cell width at the bits given so far
  for (int d : dims) {
    if (key.count == SpaceKey::kMaxDims) break;
    const double sigma = std::sqrt(variance[d]);
    if (!(sigma > 0.0) || !std::isfinite(sigma) || !std::isfinite(mean[d])) continue;
    key.dims[key.count] = d;
    key.low[key.count] = mean[d] - 2.0 * sigma;
    width[key.count] = 4.0 * sigma;
    ++key.count;
  }
  if (key.count == 0) return key;
  constexpr int kMaxCellBits = 24;
  unsigned char from_top[SpaceKey::kBits];  // the bit's place in its dimension, from the top
  for (; key.length < SpaceKey::kBits; ++key.length) {
    int widest = -1;
    for (int i = 0; i < key.count; ++i)
      if (key.bits[i] < kMaxCellBits && (widest < 0 || width[i] > width[widest])) widest = i;
    if (widest < 0) break;
    key.slot[key.length] = static_cast<unsigned char>(widest);
    from_top[key.length] = static_cast<unsigned char>(key.bits[widest]++);
    width[widest] /= 2.0;
  }
  for (int b = 0; b < key.length; ++b)
    key.shift[b] = static_cast<unsigned char>(key.bits[key.slot[b]] - 1 - from_top[b]);
  for (int i = 0; i < key.count; ++i)
    key.scale[i] = std::ldexp(1.0, key.bits[i]) / (4.0 * std::sqrt(variance[key.dims[i]]));
  return key;
}

}  // namespace simjoin
