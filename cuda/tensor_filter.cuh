// The tensor-core filter's inputs: the points centred on their mean, scaled by a power of two
// into [-1, 1] and rounded to FP16 (rows padded with zeros to a multiple of 16 dimensions), and
// per row the terms of a proven bound on how far the FP16 distance |x~|^2 + |y~|^2 - 2 x~.y~
// (dot products on tensor cores, FP32 accumulation) can fall below the exact one. A pair whose
// FP16 distance exceeds its bound cannot match; every other pair is decided by the exact double
// test (device_distance.cuh). The bound and its proof: docs/EXACTNESS.md, "The GPU's tensor-core
// filter".
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "device_buffer.h"

namespace simjoin::gpu {

constexpr int kTensorK = 16;  // the FP16 rows are padded to a multiple of this

inline int tensor_padded_dim(int dim) { return (dim + kTensorK - 1) / kTensorK * kTensorK; }

// One input's FP16 copy and bound terms, in the input's row order, `rows` rows plus padding.
// Every value is NaN for padding rows and rows with a non-finite coordinate (they never match).
struct HalfPoints {
  DeviceBuffer<__half> coords;  // padded_rows x padded_dim
  DeviceBuffer<float> norm2;    // |x~|^2, rounded to float
  DeviceBuffer<float> reach;    // e/2 + the row's rounding radius, rounded up (tensor_filter.cu)
  DeviceBuffer<float> norm;     // an upper bound of |x~|
  DeviceBuffer<float> slack;    // the roundings of the norms and of the float test, per row
};

// What the join kernel reads of a HalfPoints.
struct HalfRows {
  const __half* coords = nullptr;
  const float *norm2 = nullptr, *reach = nullptr, *norm = nullptr, *slack = nullptr;
};
inline HalfRows rows_of(const HalfPoints& points) {
  return HalfRows{points.coords.data(), points.norm2.data(), points.reach.data(),
                  points.norm.data(), points.slack.data()};
}

// The constant shared by both inputs of a join.
struct TensorFilter {
  float gemm = 0.0f;  // per unit of |x~| |y~|: the FP32 accumulation's error, doubled twice
};

// The FP16 distance of a pair, from s, the FP32 tensor-core dot product of the FP16 rows.
__host__ __device__ __forceinline__ float approx_distance(float s, float norm2_r, float norm2_c) {
  return fmaf(-2.0f, s, norm2_r + norm2_c);
}

// Whether a pair at FP16 distance `approx` may match (reach = reach_r + reach_c, gemm_norm_r =
// gemm * norm[r]): false proves that it does not, approx above the limit. The limit is
// non-decreasing in every term (all at least 0), so the largest terms of a set of candidates
// give a test for all of them at once.
__host__ __device__ __forceinline__ float approx_limit(float reach, float gemm_norm_r,
                                                      float norm_c, float slack_r,
                                                      float slack_c) {
  const float limit = fmaf(reach, reach, fmaf(gemm_norm_r, norm_c, slack_r + slack_c));
  return limit * (1.0f + 0x1p-20f);  // the float roundings of this test
}
__host__ __device__ __forceinline__ bool approx_may_match(float approx, float reach,
                                                          float gemm_norm_r, float norm_c,
                                                          float slack_r, float slack_c) {
  return approx <= approx_limit(reach, gemm_norm_r, norm_c, slack_r, slack_c);
}

// Whether the pair (r, c) may match, given s (see approx_distance): false proves that it does not.
__device__ __forceinline__ bool may_match(float s, float norm2_r, float norm2_c, float reach_r,
                                          float reach_c, float gemm_norm_r, float norm_c,
                                          float slack_r, float slack_c) {
  return approx_may_match(approx_distance(s, norm2_r, norm2_c), reach_r + reach_c, gemm_norm_r,
                          norm_c, slack_r, slack_c);
}

// Builds the FP16 copies of `left` and (unless null) `right` (device coordinates, `dim` values
// a row) for a join whose exact test accepts an accumulated distance <= bound. `margin` scales
// the rounding terms (1 = proven; 0 drops them, for tests that show the margin is needed).
// With order_rows, each side's FP16 rows follow its order in space (tile_pruning.cuh): FP16 row
// r holds input row order[r].
struct TensorInputs {
  HalfPoints left, right;
  DeviceBuffer<std::uint32_t> left_order, right_order;  // empty without order_rows
  TensorFilter filter;
  int padded_dim = 0;
  double scale = 1.0;  // the power of two the centred points were scaled by
};
TensorInputs make_tensor_inputs(const double* left, std::uint64_t n_left, const double* right,
                                std::uint64_t n_right, int dim, double bound, double margin,
                                bool order_rows, cudaStream_t stream);

}  // namespace simjoin::gpu
