// A key along a space-filling curve, k-d style, that orders the rows of the joins on tensor cores
// so that the 128 rows of a tile lie close together (cuda/tile_pruning.cuh), and the sampled
// estimate of the tile pairs that order lets them skip (engine/choice/tile_fraction.h). Its 64
// bits halve, one after the other, the dimension whose cells are then widest, over the range
// mean +- 2 sigma of up to 16 dimensions (those of largest variance), so that a dimension along
// which the points spread little gets few bits or none. Header with raw arrays: the CUDA port
// computes the same keys. (engine/bounds/space_order.h is another curve: the glue's order of the
// points it loads, over three dimensions, for memory locality.)
#pragma once

#include <cstdint>
#include <vector>

#include "engine/join/zorder.h"  // SIMJOIN_HD

namespace simjoin {

struct SpaceKey {
  static constexpr int kMaxDims = 16;
  static constexpr int kBits = 64;
  int count = 0;   // dimensions in the key (0: every row gets the same key)
  int length = 0;  // bits of the key
  int dims[kMaxDims] = {};
  int bits[kMaxDims] = {};      // bits of each dimension's cell number
  double low[kMaxDims] = {};    // mean - 2 sigma
  double scale[kMaxDims] = {};  // 2^bits / (4 sigma)
  // Bit i of the key (from the top): bit `shift[i]` of dimension slot[i]'s cell number.
  unsigned char slot[kBits] = {};
  unsigned char shift[kBits] = {};
};

// The key from each dimension's mean and variance over the finite rows.
SpaceKey space_key(const std::vector<double>& mean, const std::vector<double>& variance);

// The key of a row whose coordinates are all finite.
SIMJOIN_HD inline unsigned long long space_key_of(const SpaceKey& key, const double* p) {
  std::uint32_t cell[SpaceKey::kMaxDims];
  for (int d = 0; d < key.count; ++d) {
    const double top = double((1u << key.bits[d]) - 1);
    const double x = (p[key.dims[d]] - key.low[d]) * key.scale[d];
    cell[d] = static_cast<std::uint32_t>(x < 0.0 ? 0.0 : x > top ? top : x);
  }
  unsigned long long k = 0;
  for (int b = 0; b < key.length; ++b) k = k << 1 | ((cell[key.slot[b]] >> key.shift[b]) & 1u);
  return k;
}

}  // namespace simjoin
