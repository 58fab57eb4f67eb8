// The float32 prefilter: candidate distances are first computed in float on a shifted
// float copy of the points, and a candidate is REJECTED only when its float sum exceeds a proven
// upper bound on what the float sum of any matching pair can be. Every other candidate (the
// matches and a thin band around the bound) is decided, and its distance reported, by the exact
// double computation of device_distance.cuh, so the results stay bit-identical to the CPU engine.
//
// ---- The bound (u = 2^-24 float, v = 2^-53 double unit roundoff; a, b points, d dimensions) ----
// Copy. With one centre c per join (any finite point: it only keeps magnitudes small),
// af_j = fl32(fl64(a_j - c_j)) (__double2float_rn). fl64 adds a relative error <= v (a double
// subtraction is exact when its result is subnormal), fl32 a relative error <= u plus, below
// FLT_MIN, an absolute error <= 2^-150. So with A_j = |a_j - c_j|:
//     |af_j - (a_j - c_j)| <= ua A_j + 2^-150,  ua = u + v + uv  (we use u (1 + 2^-20)).
// Each point stores Ma >= max_j A_j as a float rounded up (max_j |fl64(a_j - c_j)| <= Ma / (1+v)).
// Difference. g_j = af_j - bf_j (exact), delta_j = a_j - b_j (exact):
//     |g_j - delta_j| <= e := ua (Ma + Mb) + 2^-149,  and df_j = fl32(g_j), |df_j| <= (1+u)|g_j|
// (a float subtraction with a subnormal result is exact).
// Float accumulation, one rounding per term (fmaf for Euclidean, fadd for Manhattan, none for
// the Chebyshev maximum): s_k = (s_{k-1} + t_k)(1 + e_k) + eta_k, |e_k| <= u, |eta_k| <= 2^-150
// (only fmaf can produce an inexact subnormal), so  sf <= (1+u)^d (sum_j t_j + d 2^-150).
// Partial sums never decrease (non-negative terms, monotone rounding), so a partial sum above
// the limit is a final sum above it (SHORTC on the float sum is as safe as on the full sum).
// Exact side. The double sum S_d of distance.h relates to the real S (sum delta_j^2, sum |delta_j|,
// max |delta_j|) by S_d >= (1-v)^(d+2) S - d 2^-1074 (Euclidean), (1-v)^d S (Manhattan),
// (1-v) S (Chebyshev). So S_d <= bound implies S <= B := (bound + d 2^-1074) / (1-v)^(d+2); the
// host rounds sqrt(B) (Euclidean) or B up into r0 with a (d+4) 2^-52 relative margin.
// Limits. For a pair with S_d <= bound, using ||g||_2 <= ||delta||_2 + sqrt(d) e (triangle
// inequality) and sum |g_j| <= sum |delta_j| + d e:
//     Euclidean  sf <= (1+u)^d [ (1+u)^2 (sqrt(B) + sqrt(d) e)^2 + d 2^-150 ]
//     Manhattan  sf <= (1+u)^(d-1) (1+u) (B + d e)     (d-1 rounded additions, the first is exact)
//     Chebyshev  sf <= (1+u) (B + e)                   (a maximum rounds nothing)
// i.e. limit = scale * t^p + tiny with t = k (Ma + Mb) + r (p = 2 for Euclidean, else 1), where the
// host computes k, r, scale, tiny rounded up, and the device evaluates the formula with upward
// rounding (__fadd_ru, __fmaf_ru, __fmul_ru): every step only grows the limit. A candidate is
// rejected iff sf > limit. NaN never rejects (comparisons with NaN are false) and an overflow makes
// the limit +inf: both fall through to the exact test, which rejects NaN itself. Tuning's
// float_margin (1 = the bound above; tests set it to 0 to show that their data needs the margin).
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
