// The CPU brute force's single-precision filter (Euclidean, and cosine as Euclidean on unit
// vectors): the points centred on the mean of the finite rows of both inputs, scaled by a power
// of two into [-1, 1] and rounded to FP32, with per row the terms of a proven bound on how far
// the FP32 distance |x|^2 + |y|^2 - 2 x.y (dot products summed in dimension order,
// engine/join/float_tiles.h) can fall below the exact one. A pair whose FP32 distance exceeds
// its bound cannot match; every other pair is decided by the exact double test
// (engine/bounded_distance.h). The bound and its proof: docs/EXACTNESS.md, "The CPU's FP32
// filter" (the GPU's tensor-core filter, cuda/tensor_filter.cuh, adapted to FP32 inputs).
#pragma once

#include <cstddef>
#include <vector>

#include "engine/types.h"

namespace simjoin {

// Rows are stored in panels of this many rows, dimension-major inside a panel:
// coords[(panel * dim + j) * kFloatPanel + lane] is coordinate j of row panel * kFloatPanel + lane.
constexpr std::size_t kFloatPanel = 8;

// The filter is also tested after the first kFloatFirstStage dimensions and then after every
// kFloatStage more, with the bound of the distance over the dimensions summed so far (never
// above the whole distance): a tile whose pairs all fail it stops there (the early exit of the
// exact test, a tile at a time).
constexpr std::size_t kFloatFirstStage = 16;
constexpr std::size_t kFloatStage = 32;

// The dimensions summed by the end of stage `stage` (the last stage ends at dim).
inline std::size_t float_stage_end(std::size_t stage, std::size_t dim) {
  const std::size_t end = kFloatFirstStage + stage * kFloatStage;
  return end < dim ? end : dim;
}

// One input's FP32 copy and bound terms, `n` rows; the padding rows of the last panel have zero
// coordinates. The terms are NaN for the padding rows and for rows with a non-finite
// coordinate: such rows never pass the filter (nor the exact test). Per row: reach; per stage s
// (the first float_stage_end(s, dim) dimensions) and row, at [s * slots() + row]: norm2,
// gemm, norm and slack of those dimensions.
struct FloatRows {
  std::size_t n = 0;
  std::size_t dim = 0;
  std::vector<float> coords;  // panels() * dim * kFloatPanel values
  std::vector<float> reach;   // e/2 + the row's rounding radius, rounded up
  std::vector<float> norm2;   // |x|^2, rounded to float
  std::vector<float> gemm;    // G m: the dot product's error per unit of the partner's m
  std::vector<float> norm;    // m, an upper bound of |x|
  std::vector<float> slack;   // the norms' and the float test's roundings, at least 2^-100
  std::size_t panels() const { return (n + kFloatPanel - 1) / kFloatPanel; }
  std::size_t slots() const { return panels() * kFloatPanel; }
  std::size_t stages() const {
    if (dim <= kFloatFirstStage) return 1;
    return 1 + (dim - kFloatFirstStage + kFloatStage - 1) / kFloatStage;
  }
  const float* panel(std::size_t p) const { return coords.data() + p * dim * kFloatPanel; }
};

// Both inputs' copies. pass_all: the mean or a shift by it overflowed (finite coordinates near
// +-DBL_MAX); the copies are then empty and every pair must go to the exact test.
struct FloatFilterInputs {
  FloatRows left, right;  // right is empty for a self-join
  bool pass_all = false;
};

// The largest dimension the filter's bound holds for (dim 2^-24 well below 1); above it the
// brute force tests every pair exactly.
constexpr std::size_t kFloatFilterMaxDim = std::size_t(1) << 20;

// Builds the FP32 copies of `left` and (unless null) `right` for a join whose exact test accepts
// an accumulated Euclidean distance <= bound. `margin` scales the rounding terms (1 = proven; 0
// drops them, for tests that show the margin is needed). Work shared over `threads` threads.
FloatFilterInputs make_float_filter_inputs(const PointSet& left, const PointSet* right,
                                           double bound, int threads, double margin = 1.0);

}  // namespace simjoin
