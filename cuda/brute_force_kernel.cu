// The brute-force join kernel and its launches (see brute_force_kernel.cuh).
#include "brute_force_kernel.cuh"

#include "cuda_check.h"
#include "device_distance.cuh"
#include "kernel_dispatch.cuh"

namespace simjoin::gpu {
namespace {

// One query per thread. All threads of a block walk the same candidates in step (from the
// block's first query + 1 in a self-join), so each candidate load is one broadcast.
template <Metric M, int DIM, bool FILL>
__global__ void __launch_bounds__(kJoinBlock)
    brute_force_join(BruteForceArgs a, std::uint32_t q_begin, std::uint32_t q_end,
                     std::uint32_t* __restrict__ counts,
                     unsigned long long* __restrict__ candidates,
                     const std::uint64_t* __restrict__ offsets, std::uint64_t base,
                     PairOutput out) {
  const int dim = DIM > 0 ? DIM : a.dim;
  const std::uint32_t block_first = q_begin + blockIdx.x * blockDim.x;
  const std::uint32_t q = block_first + threadIdx.x;
  const bool active = q < q_end;
  QueryPoint<DIM> query;
  query.load(a.left + std::uint64_t(active ? q : block_first) * dim, dim);
  const std::uint64_t first_out = FILL && active ? offsets[q] - base : 0;
  std::uint32_t found = 0;
  unsigned long long evaluated = 0;
  for (std::uint32_t j = a.self_join ? block_first + 1 : 0; j < a.n_right; ++j) {
    if (!active || (a.self_join && j <= q)) continue;
    const double acc = accumulate_bounded<M, DIM>(query.coords(),
                                                  a.right + std::uint64_t(j) * dim, dim, a.bound);
    ++evaluated;
    if (acc <= a.bound) {
      if constexpr (FILL) {
        const std::uint64_t o = first_out + found;
        out.left[o] = q;
        out.right[o] = j;
        out.distance[o] = finish_distance_device<M>(acc);
      }
      ++found;
    }
  }
  if constexpr (!FILL) {
    if (active) counts[q] = found;
    add_candidates(candidates, evaluated);
  }
}

template <bool FILL>
void launch_brute_force(const BruteForceArgs& args, Metric metric, std::uint32_t q_begin,
                        std::uint32_t q_end, std::uint32_t* counts,
                        unsigned long long* candidates, const std::uint64_t* offsets,
                        std::uint64_t base, const PairOutput& out, cudaStream_t stream) {
  if (q_end <= q_begin) return;
  dispatch_metric_dim(metric, args.dim, [&](auto metric_tag, auto dim_tag) {
    brute_force_join<decltype(metric_tag)::value, decltype(dim_tag)::value, FILL>
        <<<join_blocks(q_end - q_begin), kJoinBlock, 0, stream>>>(
            args, q_begin, q_end, counts, candidates, offsets, base, out);
  });
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void BruteForceProducer::count(std::uint32_t* counts, unsigned long long* candidates,
                               cudaStream_t stream) const {
  launch_brute_force<false>(args_, metric_, 0, args_.n_left, counts, candidates, nullptr, 0,
                            PairOutput{}, stream);
}

void BruteForceProducer::fill(std::uint32_t q_begin, std::uint32_t q_end,
                              const std::uint64_t* offsets, std::uint64_t base,
                              const PairOutput& out, cudaStream_t stream) const {
  launch_brute_force<true>(args_, metric_, q_begin, q_end, nullptr, nullptr, offsets, base, out,
                           stream);
}

}  // namespace simjoin::gpu
