// Turns the run-time metric and dimension into the template arguments of a join kernel: small
// dimensions get a kernel with the query point unrolled into registers, others the generic loop.
#pragma once

#include <cstdint>
#include <type_traits>

#include "types.h"

namespace simjoin::gpu {

constexpr int kJoinBlock = 128;  // threads per block of the join kernels

template <Metric M>
using MetricTag = std::integral_constant<Metric, M>;
template <int D>
using DimTag = std::integral_constant<int, D>;  // 0: any dimension, read at run time

// Calls launch(MetricTag<metric>{}, DimTag<D>{}) with D = dim where a specialization exists.
template <typename Launch>
void dispatch_metric_dim(Metric metric, int dim, Launch&& launch) {
  auto with_metric = [&](auto metric_tag) {
    switch (dim) {
      case 1: launch(metric_tag, DimTag<1>{}); break;
      case 2: launch(metric_tag, DimTag<2>{}); break;
      case 3: launch(metric_tag, DimTag<3>{}); break;
      case 4: launch(metric_tag, DimTag<4>{}); break;
      case 5: launch(metric_tag, DimTag<5>{}); break;
      case 6: launch(metric_tag, DimTag<6>{}); break;
      case 8: launch(metric_tag, DimTag<8>{}); break;
      case 16: launch(metric_tag, DimTag<16>{}); break;
      case 32: launch(metric_tag, DimTag<32>{}); break;
      default: launch(metric_tag, DimTag<0>{}); break;
    }
  };
  switch (metric) {
    case Metric::Euclidean: with_metric(MetricTag<Metric::Euclidean>{}); break;
    case Metric::Manhattan: with_metric(MetricTag<Metric::Manhattan>{}); break;
    case Metric::Chebyshev: with_metric(MetricTag<Metric::Chebyshev>{}); break;
  }
}

inline unsigned join_blocks(std::uint32_t queries) {
  return static_cast<unsigned>((std::uint64_t(queries) + kJoinBlock - 1) / kJoinBlock);
}

// Sums each warp's distance evaluations into *total (every thread of the warp must call it).
__device__ __forceinline__ void add_candidates(unsigned long long* total,
                                               unsigned long long mine) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(total, mine);
}

// The query point, in registers for a compile-time dimension, else read where it lies.
template <int DIM>
struct QueryPoint {
  double value[DIM];
  __device__ __forceinline__ void load(const double* p, int) {
#pragma unroll
    for (int j = 0; j < DIM; ++j) value[j] = p[j];
  }
  __device__ __forceinline__ const double* coords() const { return value; }
};
template <>
struct QueryPoint<0> {
  const double* value = nullptr;
  __device__ __forceinline__ void load(const double* p, int) { value = p; }
  __device__ __forceinline__ const double* coords() const { return value; }
};

}  // namespace simjoin::gpu
