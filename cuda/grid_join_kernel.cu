// The per-thread eps-grid join kernel (one query point per thread over its stencil, Gowanlock and Karsin, IPDPSW 2018) and
// the producer's launches, which pick it or the tiled kernel (grid_tile_kernel.cuh).
#include "grid_join_kernel.cuh"

#include "candidate_test.cuh"
#include "cuda_check.h"
#include "grid_stencil.cuh"
#include "grid_tile_kernel.cuh"
#include "kernel_dispatch.cuh"

namespace simjoin::gpu {
namespace {

// Counts (FILL = false) or writes (FILL = true) the pairs of queries [q_begin, q_end), one query
// per thread; in a self-join's own row only later points are paired.
template <Metric M, int DIM, bool FILL, bool FOLD>
__global__ void __launch_bounds__(kJoinBlock)
    grid_join(GridJoinArgs a, std::uint32_t q_begin, std::uint32_t q_end,
              std::uint32_t* __restrict__ counts, unsigned long long* __restrict__ candidates,
              const std::uint64_t* __restrict__ offsets, std::uint64_t base, PairOutput out,
              DirectOutput direct) {
  const std::uint32_t q = q_begin + blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long evaluated = 0;
  if (q < q_end) {
    const int dim = DIM > 0 ? DIM : a.geometry.dim;
    // The float query in registers for the prefilter; the double one is read from memory by the
    // exact test of the (few) candidates that the prefilter keeps.
    FloatQuery<DIM> query_float;
    query_float.load(a.query_float + std::uint64_t(q) * dim);
    const CandidatePoint query{query_float.coords(), a.query_mag[q],
                               a.query_coords + std::uint64_t(q) * dim};
    const GridStencil stencil(a, a.query_keys[q]);
    const std::uint64_t first_out = FILL ? offsets[q] - base : 0;
    std::uint32_t found = 0;
    for (std::uint32_t r = 0; r < stencil.rows(); ++r) {
      std::uint32_t begin, end;
      bool own_row;
      if (!stencil.row(a, r, &begin, &end, &own_row)) continue;
      if (own_row) begin = q + 1;
      for (std::uint32_t j = begin; j < end; ++j) {
        ++evaluated;
        const CandidatePoint candidate{a.index_float + std::uint64_t(j) * dim, a.index_mag[j],
                                       a.index_coords + std::uint64_t(j) * dim};
        const double acc = candidate_distance<M, DIM>(a.filter, query, candidate, dim, a.bound);
        if (acc <= a.bound) {
          record_grid_pair<M, FILL, FOLD>(a, q, j, acc, first_out, found, out, direct);
          ++found;
        }
      }
    }
    if constexpr (!FILL) counts[q] = found;
  }
  if constexpr (!FILL) add_candidates(candidates, evaluated);
}

struct GridJoinKernel {
  template <Metric M, int DIM, bool FILL, bool FOLD>
  static constexpr auto kernel() {
    return &grid_join<M, DIM, FILL, FOLD>;
  }
  static std::size_t shared_bytes(const GridJoinArgs&) { return 0; }
};

}  // namespace

void GridJoinProducer::count_range(std::uint32_t q_begin, std::uint32_t q_end,
                                   std::uint32_t* counts, unsigned long long* candidates,
                                   const DirectOutput& direct, cudaStream_t stream) const {
  const bool fold = direct.fold.kind != FoldKind::None;
  if (args_.tile_points > 0 && fold)
    launch_grid_tile<false, true>(args_, metric_, q_begin, q_end, counts, candidates, nullptr, 0,
                                  PairOutput{}, direct, stream);
  else if (args_.tile_points > 0)
    launch_grid_tile<false>(args_, metric_, q_begin, q_end, counts, candidates, nullptr, 0,
                            PairOutput{}, direct, stream);
  else if (fold)
    launch_join<GridJoinKernel, false, true>(args_, metric_, args_.geometry.dim, q_begin, q_end,
                                             counts, candidates, nullptr, 0, PairOutput{}, direct,
                                             stream);
  else
    launch_join<GridJoinKernel, false>(args_, metric_, args_.geometry.dim, q_begin, q_end, counts,
                                       candidates, nullptr, 0, PairOutput{}, direct, stream);
}

void GridJoinProducer::fill(std::uint32_t q_begin, std::uint32_t q_end,
                            const std::uint64_t* offsets, std::uint64_t base,
                            const PairOutput& out, cudaStream_t stream) const {
  if (args_.tile_points > 0)
    launch_grid_tile<true>(args_, metric_, q_begin, q_end, nullptr, nullptr, offsets, base, out,
                           DirectOutput{}, stream);
  else
    launch_join<GridJoinKernel, true>(args_, metric_, args_.geometry.dim, q_begin, q_end, nullptr,
                                      nullptr, offsets, base, out, DirectOutput{}, stream);
}

}  // namespace simjoin::gpu
