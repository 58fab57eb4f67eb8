// Turns the run-time metric and dimension into the template arguments of a join kernel: small
// dimensions get a kernel with the query point unrolled into registers, others the generic loop.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>
#include <type_traits>

#include "cuda_check.h"
#include "engine/types.h"
#include "pair_producer.cuh"

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
    case Metric::Cosine:  // run_join joins unit vectors as Euclidean: never launched
      throw Error("simjoin: internal error: a cosine join reached the GPU kernels");
  }
}

inline unsigned join_blocks(std::uint32_t queries) {
  return static_cast<unsigned>((std::uint64_t(queries) + kJoinBlock - 1) / kJoinBlock);
}

// Launches Kernels::kernel<metric, dim, FILL, FOLD>() over the queries [q_begin, q_end), one thread
// each (FOLD: a count pass that folds its pairs, pair_fold.cuh; its own instantiation, so that the
// fold's code and registers stay out of the join's kernels),
// with Kernels::shared_bytes(args) of dynamic shared memory per block: the one launcher of the
// join kernels, which share this parameter list.
template <typename Kernels, bool FILL, bool FOLD = false, typename Args>
void launch_join(const Args& args, Metric metric, int dim, std::uint32_t q_begin,
                 std::uint32_t q_end, std::uint32_t* counts, unsigned long long* candidates,
                 const std::uint64_t* offsets, std::uint64_t base, const PairOutput& out,
                 const DirectOutput& direct, cudaStream_t stream) {
  if (q_end <= q_begin) return;
  dispatch_metric_dim(metric, dim, [&](auto metric_tag, auto dim_tag) {
    const auto kernel =
        Kernels::template kernel<decltype(metric_tag)::value, decltype(dim_tag)::value, FILL,
                                 FOLD>();
    kernel<<<join_blocks(q_end - q_begin), kJoinBlock, Kernels::shared_bytes(args), stream>>>(
        args, q_begin, q_end, counts, candidates, offsets, base, out, direct);
  });
  CUDA_CHECK_LAUNCH();
}

// Sums each warp's distance evaluations into *total (every thread of the warp must call it).
__device__ __forceinline__ void add_candidates(unsigned long long* total,
                                               unsigned long long mine) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(total, mine);
}

// Writes one pair of the count pass into the direct output: the threads of the warp that get
// here together reserve their slots with one atomicAdd; a slot beyond capacity is only counted.
// FOLD: the pair is folded into the device aggregates of direct.fold instead (pair_fold.cuh).
template <bool FOLD>
__device__ __forceinline__ void emit_direct(const DirectOutput& direct, std::uint32_t left,
                                            std::uint32_t right, double distance) {
  namespace cg = cooperative_groups;
  const cg::coalesced_group group = cg::coalesced_threads();
  unsigned long long slot = 0;
  if (group.thread_rank() == 0)
    slot = atomicAdd(direct.total, static_cast<unsigned long long>(group.size()));
  if constexpr (FOLD) {
    fold_pair(direct.fold, left, right, distance);
    return;
  }
  slot = group.shfl(slot, 0) + group.thread_rank();
  if (slot < direct.capacity) {
    direct.out.left[slot] = left;
    direct.out.right[slot] = right;
    direct.out.distance[slot] = distance;
  }
}

}  // namespace simjoin::gpu
