// The brute-force join kernel and its launches (see brute_force_kernel.cuh).
#include "brute_force_kernel.cuh"

#include "candidate_test.cuh"
#include "cuda_check.h"
#include "kernel_dispatch.cuh"

namespace simjoin::gpu {
namespace {

// One query per thread. All threads of a block walk the same candidates in step (from the
// block's first query + 1 in a self-join), so each candidate load is one broadcast.
template <Metric M, int DIM, bool FILL, bool FOLD>
__global__ void __launch_bounds__(kJoinBlock)
    brute_force_join(BruteForceArgs a, std::uint32_t q_begin, std::uint32_t q_end,
                     std::uint32_t* __restrict__ counts,
                     unsigned long long* __restrict__ candidates,
                     const std::uint64_t* __restrict__ offsets, std::uint64_t base,
                     PairOutput out, DirectOutput direct) {
  const int dim = DIM > 0 ? DIM : a.dim;
  const std::uint32_t block_first = q_begin + blockIdx.x * blockDim.x;
  const std::uint32_t q = block_first + threadIdx.x;
  const bool active = q < q_end;
  const std::uint64_t query_row = std::uint64_t(active ? q : block_first) * dim;
  FloatQuery<DIM> query_float;  // in registers for the prefilter; the exact test reads the doubles
  query_float.load(a.left_float + query_row);
  const CandidatePoint query{query_float.coords(), a.left_mag[active ? q : block_first],
                             a.left + query_row};
  const std::uint64_t first_out = FILL && active ? offsets[q] - base : 0;
  std::uint32_t found = 0;
  unsigned long long evaluated = 0;
  for (std::uint32_t j = a.self_join ? block_first + 1 : 0; j < a.n_right; ++j) {
    if (!active || (a.self_join && j <= q)) continue;
    ++evaluated;
    const CandidatePoint candidate{a.right_float + std::uint64_t(j) * dim, a.right_mag[j],
                                   a.right + std::uint64_t(j) * dim};
    const double acc = candidate_distance<M, DIM>(a.filter, query, candidate, dim, a.bound);
    if (acc <= a.bound) {
      if constexpr (FILL) {
        const std::uint64_t o = first_out + found;
        out.left[o] = q;
        out.right[o] = j;
        out.distance[o] = finish_distance_device<M>(acc);
      } else if (direct.total) {
        emit_direct<FOLD>(direct, q, j, finish_distance_device<M>(acc));
      }
      ++found;
    }
  }
  if constexpr (!FILL) {
    if (active) counts[q] = found;
    add_candidates(candidates, evaluated);
  }
}

struct BruteForceKernel {
  template <Metric M, int DIM, bool FILL, bool FOLD>
  static constexpr auto kernel() {
    return &brute_force_join<M, DIM, FILL, FOLD>;
  }
  static std::size_t shared_bytes(const BruteForceArgs&) { return 0; }
};

}  // namespace

void BruteForceProducer::count_range(std::uint32_t q_begin, std::uint32_t q_end,
                                     std::uint32_t* counts, unsigned long long* candidates,
                                     const DirectOutput& direct, cudaStream_t stream) const {
  if (direct.fold.kind != FoldKind::None)
    launch_join<BruteForceKernel, false, true>(args_, metric_, args_.dim, q_begin, q_end, counts,
                                               candidates, nullptr, 0, PairOutput{}, direct,
                                               stream);
  else
    launch_join<BruteForceKernel, false>(args_, metric_, args_.dim, q_begin, q_end, counts,
                                         candidates, nullptr, 0, PairOutput{}, direct, stream);
}

void BruteForceProducer::fill(std::uint32_t q_begin, std::uint32_t q_end,
                              const std::uint64_t* offsets, std::uint64_t base,
                              const PairOutput& out, cudaStream_t stream) const {
  launch_join<BruteForceKernel, true>(args_, metric_, args_.dim, q_begin, q_end, nullptr, nullptr,
                                      offsets, base, out, DirectOutput{}, stream);
}

}  // namespace simjoin::gpu
