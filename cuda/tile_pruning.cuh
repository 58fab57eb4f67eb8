// Pruning of tile pairs for the joins on tensor cores: the rows are put in an order along a
// space-filling curve, so that the 128 rows of a tile lie close together; each tile gets a ball
// around its FP16 rows; a query tile skips a candidate tile whose ball is certainly farther than
// any matching pair can be. The proof: a pair within the join's bound has
// |x~ - y~| <= reach(x) + reach(y) (tensor_filter.cuh: the scaled exact distance e plus each FP16
// row's rounding radius), so with centres c and radii r, |c_Q - c_T| <= r_Q + r_T + reach(x) +
// reach(y); a tile pair whose centres lie farther apart than the sum of its two extents (the
// largest of a row's distance from its centre plus its reach) holds no pair. docs/EXACTNESS.md gives the roundings.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device_buffer.h"
#include "engine/join/tile_order.h"
#include "tensor_filter.cuh"

namespace simjoin::gpu {

// The rows [0, n) of `coords` (dim doubles a row) sorted by `key` (rows with a non-finite
// coordinate last): order[r] is the input row at place r.
DeviceBuffer<std::uint32_t> space_order(const double* coords, std::uint64_t n, int dim,
                                        const SpaceKey& key, cudaStream_t stream);

// Which candidate tiles each query tile visits: bit t of row l (words a row), for query tile l
// of the left rows and candidate tile t of the right ones; in a self-join only t >= l.
struct TileMask {
  DeviceBuffer<std::uint32_t> bits;
  std::uint32_t words = 0, rows = 0;
  std::uint64_t visited = 0, pairs = 0;  // tile pairs kept, of those looked at
};

// Most bytes a mask may take; a larger join runs without one.
constexpr std::uint64_t kMaxMaskBytes = std::uint64_t(256) << 20;

// The mask of a join of the FP16 rows built by make_tensor_inputs (right: null in a self-join),
// or an empty mask (bits.data() null) when it would exceed kMaxMaskBytes or would keep more than
// 90% of the tile pairs.
TileMask tile_pair_mask(const HalfPoints& left, std::uint64_t n_left, const HalfPoints* right,
                        std::uint64_t n_right, int padded_dim, cudaStream_t stream);

}  // namespace simjoin::gpu
