// The exact distance of distance.h on the device, bit for bit: double precision, dimensions in
// stored order, every operation rounded on its own (__dadd_rn/__dmul_rn: nvcc would otherwise
// contract a*b+c into an FMA and change the last bit).
#pragma once

#include <cuda_runtime.h>

#include "engine/types.h"

namespace simjoin::gpu {

// Whether every coordinate of a row is finite: a row with NaN or infinity never matches
// (engine/join/finite_points.h on the host).
__device__ __forceinline__ bool finite_row(const double* p, int dim) {
  for (int j = 0; j < dim; ++j)
    if (!isfinite(p[j])) return false;
  return true;
}

// Adds one dimension's term to the accumulated distance (accumulate_distance in distance.h).
// Returns false once the accumulated value can no longer end <= bound (SHORTC: the terms are
// non-negative, so partial sums never decrease) or became NaN in a Chebyshev maximum.
template <Metric M>
__device__ __forceinline__ void accumulate_term(double& acc, double a, double b) {
  const double diff = __dsub_rn(a, b);
  if constexpr (M == Metric::Euclidean) {
    acc = __dadd_rn(acc, __dmul_rn(diff, diff));
  } else if constexpr (M == Metric::Manhattan) {
    acc = __dadd_rn(acc, fabs(diff));
  } else {
    const double abs_diff = fabs(diff);
    if (isnan(abs_diff))
      acc = abs_diff;  // NaN propagates and stays (NaN > acc is false from here on)
    else if (abs_diff > acc && !isnan(acc))
      acc = abs_diff;
  }
}

// Accumulated distance between a point given by `query` (DIM registers, or `dim` values when
// DIM == 0) and the candidate at `candidate` (16-byte aligned when DIM is even), stopping early
// once it exceeds `bound`.
// The result is exact (identical to accumulate_distance) whenever it is <= bound.
template <Metric M, int DIM>
__device__ __forceinline__ double accumulate_bounded(const double* query,
                                                     const double* __restrict__ candidate,
                                                     int dim, double bound) {
  double acc = 0.0;
  if constexpr (DIM > 0 && DIM % 2 == 0) {
    // Rows of an even dimension are 16-byte aligned: half the load instructions.
    const double2* pairs = reinterpret_cast<const double2*>(candidate);
#pragma unroll
    for (int h = 0; h < DIM / 2; ++h) {
      const double2 values = pairs[h];
      accumulate_term<M>(acc, query[2 * h], values.x);
      accumulate_term<M>(acc, query[2 * h + 1], values.y);
      if (DIM > 4 && (h & 1) == 1 && acc > bound) return acc;
    }
  } else if constexpr (DIM > 0) {
#pragma unroll
    for (int j = 0; j < DIM; ++j) {
      accumulate_term<M>(acc, query[j], candidate[j]);
      if (DIM > 4 && (j & 3) == 3 && acc > bound) return acc;
    }
  } else {
    for (int j = 0; j < dim; ++j) {
      accumulate_term<M>(acc, query[j], candidate[j]);
      if ((j & 3) == 3 && acc > bound) return acc;
    }
  }
  return acc;
}

// The reported distance (finish_distance in distance.h).
template <Metric M>
__device__ __forceinline__ double finish_distance_device(double accumulated) {
  if constexpr (M == Metric::Euclidean) return __dsqrt_rn(accumulated);
  return accumulated;
}

}  // namespace simjoin::gpu
