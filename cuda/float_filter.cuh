// The float32 prefilter: candidates are first tested in float on a shifted float copy of the
// points and rejected only when the float sum exceeds a proven bound on what any matching pair's
// float sum can be; the rest are decided by the exact double test (device_distance.cuh). The
// bound and its proof: docs/EXACTNESS.md, "The GPU's float prefilter".
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/types.h"

namespace simjoin::gpu {

struct FloatFilter {
  bool enabled = false;
  float k = 0.0f;      // per unit of Ma + Mb
  float r = 0.0f;      // constant part of t
  float scale = 1.0f;  // (1+u)^d (and (1+u) for the non-Euclidean metrics)
  float tiny = 0.0f;   // subnormal terms
};

// The constants for `bound` (accumulated_bound), the metric and the dimension; margin 1 gives
// the proven bound, 0 none (for tests). Disabled (enabled = false) where the float copy cannot
// help: bound not finite or above float range.
FloatFilter make_float_filter(double bound, Metric metric, int dim, double margin);

// Points shifted by the centre and rounded to float, with each row's magnitude bound Ma.
struct FloatCopyArgs {
  const double* coords = nullptr;  // n rows of dim values (device)
  const double* centre = nullptr;  // dim values (device)
  std::uint64_t n = 0;
  int dim = 0;
  float* out = nullptr;  // n rows of dim values
  float* mag = nullptr;  // n values
};
void make_float_copy(const FloatCopyArgs& args, cudaStream_t stream);

// The limit on the float sum for a pair with magnitudes ma, mb.
template <Metric M>
__device__ __forceinline__ float float_limit(const FloatFilter& f, float ma, float mb) {
  const float t = __fmaf_ru(f.k, __fadd_ru(ma, mb), f.r);
  if constexpr (M == Metric::Euclidean) return __fmaf_ru(__fmul_ru(t, t), f.scale, f.tiny);
  return __fmul_ru(t, f.scale);
}

template <Metric M>
__device__ __forceinline__ void float_term(float& acc, float a, float b) {
  const float diff = __fsub_rn(a, b);
  if constexpr (M == Metric::Euclidean) {
    acc = __fmaf_rn(diff, diff, acc);
  } else if constexpr (M == Metric::Manhattan) {
    acc = __fadd_rn(acc, fabsf(diff));
  } else {
    const float abs_diff = fabsf(diff);
    acc = abs_diff > acc ? abs_diff : acc;  // a NaN term is ignored: the exact test rejects it
  }
}

// The float sum of query (DIM values, or `dim` when DIM == 0) and candidate, stopping early once
// it exceeds `limit` (then only "> limit" is meaningful).
template <Metric M, int DIM>
__device__ __forceinline__ float float_bounded(const float* query,
                                               const float* __restrict__ candidate, int dim,
                                               float limit) {
  float acc = 0.0f;
  if constexpr (DIM > 0 && DIM % 4 == 0) {
    const float4* quads = reinterpret_cast<const float4*>(candidate);
#pragma unroll
    for (int h = 0; h < DIM / 4; ++h) {
      const float4 v = quads[h];
      float_term<M>(acc, query[4 * h], v.x);
      float_term<M>(acc, query[4 * h + 1], v.y);
      float_term<M>(acc, query[4 * h + 2], v.z);
      float_term<M>(acc, query[4 * h + 3], v.w);
      if (DIM > 8 && (h & 1) == 1 && acc > limit) return acc;
    }
  } else if constexpr (DIM > 0 && DIM % 2 == 0) {
    const float2* pairs = reinterpret_cast<const float2*>(candidate);
#pragma unroll
    for (int h = 0; h < DIM / 2; ++h) {
      const float2 v = pairs[h];
      float_term<M>(acc, query[2 * h], v.x);
      float_term<M>(acc, query[2 * h + 1], v.y);
    }
  } else if constexpr (DIM > 0) {
#pragma unroll
    for (int j = 0; j < DIM; ++j) float_term<M>(acc, query[j], candidate[j]);
  } else {
    for (int j = 0; j < dim; ++j) {
      float_term<M>(acc, query[j], candidate[j]);
      if ((j & 7) == 7 && acc > limit) return acc;
    }
  }
  return acc;
}

// The float query point: in registers for a compile-time dimension, else read where it lies.
template <int DIM>
struct FloatQuery {
  float value[DIM];
  __device__ __forceinline__ void load(const float* p) {
#pragma unroll
    for (int j = 0; j < DIM; ++j) value[j] = p[j];
  }
  __device__ __forceinline__ const float* coords() const { return value; }
};
template <>
struct FloatQuery<0> {
  const float* value = nullptr;
  __device__ __forceinline__ void load(const float* p) { value = p; }
  __device__ __forceinline__ const float* coords() const { return value; }
};

}  // namespace simjoin::gpu
