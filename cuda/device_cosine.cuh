// The cosine distance of engine/cosine.h on the device, bit for bit: every sum in stored order,
// every operation rounded on its own (nvcc would otherwise contract a*b+c into an FMA).
#pragma once

#include <cuda_runtime.h>

namespace simjoin::gpu {

// dot_product of cosine.h: sum_j a_j b_j in stored order.
__device__ __forceinline__ double dot_product_device(const double* a, const double* b, int dim) {
  double dot = 0.0;
  for (int j = 0; j < dim; ++j) dot = __dadd_rn(dot, __dmul_rn(a[j], b[j]));
  return dot;
}

// cosine_from_scaled of cosine.h: d(a, b) from a', b' and their norms, clamped to [0, 2]; NaN
// for a point without a direction (NaN norm).
__device__ __forceinline__ double cosine_from_scaled_device(const double* a_scaled, double norm_a,
                                                            const double* b_scaled, double norm_b,
                                                            int dim) {
  const double dot = dot_product_device(a_scaled, b_scaled, dim);
  const double d = __dsub_rn(1.0, __ddiv_rn(dot, __dmul_rn(norm_a, norm_b)));
  if (d < 0.0) return 0.0;
  if (d > 2.0) return 2.0;
  return d;
}

}  // namespace simjoin::gpu
