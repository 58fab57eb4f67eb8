// The tiled eps-grid join kernel and its launch (see grid_tile_kernel.cuh).
#include "grid_tile_kernel.cuh"

#include <algorithm>

#include "candidate_test.cuh"
#include "cuda_check.h"
#include "grid_stencil.cuh"
#include "kernel_dispatch.cuh"

namespace simjoin::gpu {
namespace {

constexpr std::uint32_t kMaxTilePoints = 128;
constexpr std::uint32_t kMinTilePoints = 32;
constexpr std::size_t kTileBytes = 40 * 1024;  // within the 48 KiB a block gets without opting in

// A block's window holds queries of one or more cells (sorted by cell key). For each cell, the
// threads of its queries ("members") test every candidate of the cell's stencil rows, which the
// whole block loads tile by tile into shared memory. Each query sees its candidates in the same
// order as in any other launch (stencil row, then position), so a fill pass writes exactly what
// the count pass counted. Self-joins: in the own row only candidates after the query are paired.
template <Metric M, int DIM, bool FILL, bool FOLD>
__global__ void __launch_bounds__(kJoinBlock)
    grid_tile_join(GridJoinArgs a, std::uint32_t q_begin, std::uint32_t q_end,
                   std::uint32_t* __restrict__ counts, unsigned long long* __restrict__ candidates,
                   const std::uint64_t* __restrict__ offsets, std::uint64_t base, PairOutput out,
                   DirectOutput direct) {
  extern __shared__ float tile[];  // tile_points rows of dim floats, then their magnitudes
  const int dim = DIM > 0 ? DIM : a.geometry.dim;
  float* const tile_mag = tile + std::size_t(a.tile_points) * dim;
  const std::uint32_t window_begin = q_begin + blockIdx.x * blockDim.x;
  const std::uint32_t window_end = min(window_begin + blockDim.x, q_end);
  const std::uint32_t q = window_begin + threadIdx.x;
  const bool active = q < window_end;
  const std::uint32_t q_row = active ? q : window_begin;
  FloatQuery<DIM> query_float;
  query_float.load(a.query_float + std::uint64_t(q_row) * dim);
  const CandidatePoint query{query_float.coords(), a.query_mag[q_row],
                             a.query_coords + std::uint64_t(q_row) * dim};
  const std::uint64_t query_key = a.query_keys[q_row];
  const std::uint64_t first_out = FILL && active ? offsets[q] - base : 0;
  std::uint32_t found = 0;
  unsigned long long evaluated = 0;

  for (std::uint32_t group = window_begin; group < window_end;) {
    const std::uint64_t key = a.query_keys[group];
    const bool member = active && query_key == key;
    const std::uint32_t members = __syncthreads_count(member);
    const GridStencil stencil(a, key);
    for (std::uint32_t r = 0; r < stencil.rows(); ++r) {
      std::uint32_t begin, end;
      bool own_row;
      if (!stencil.row(a, r, &begin, &end, &own_row)) continue;
      for (std::uint32_t first = begin; first < end; first += a.tile_points) {
        const std::uint32_t n = min(a.tile_points, end - first);
        __syncthreads();  // every thread is done with the previous tile
        const float* source = a.index_float + std::uint64_t(first) * dim;
        for (std::uint32_t i = threadIdx.x; i < n * dim; i += blockDim.x) tile[i] = source[i];
        for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x)
          tile_mag[i] = a.index_mag[first + i];
        __syncthreads();
        if (!member) continue;
        std::uint32_t c = own_row && q >= first ? q - first + 1 : 0;
        for (; c < n; ++c) {
          ++evaluated;
          const std::uint32_t j = first + c;
          const CandidatePoint candidate{tile + std::size_t(c) * dim, tile_mag[c],
                                         a.index_coords + std::uint64_t(j) * dim};
          const double acc = candidate_distance<M, DIM>(a.filter, query, candidate, dim, a.bound);
          if (acc <= a.bound) {
            record_grid_pair<M, FILL, FOLD>(a, q, j, acc, first_out, found, out, direct);
            ++found;
          }
        }
      }
    }
    group += members;
  }
  if constexpr (!FILL) {
    if (active) counts[q] = found;
    add_candidates(candidates, evaluated);
  }
}

struct GridTileKernel {
  template <Metric M, int DIM, bool FILL, bool FOLD>
  static constexpr auto kernel() {
    return &grid_tile_join<M, DIM, FILL, FOLD>;
  }
  static std::size_t shared_bytes(const GridJoinArgs& a) {
    return std::size_t(a.tile_points) * (a.geometry.dim + 1) * sizeof(float);
  }
};

}  // namespace

std::uint32_t grid_tile_points(int dim) {
  const std::size_t fit = kTileBytes / ((std::size_t(dim) + 1) * sizeof(float));
  const std::uint32_t points = static_cast<std::uint32_t>(std::min<std::size_t>(kMaxTilePoints, fit));
  return points >= kMinTilePoints ? points : 0;
}

template <bool FILL, bool FOLD>
void launch_grid_tile(const GridJoinArgs& args, Metric metric, std::uint32_t q_begin,
                      std::uint32_t q_end, std::uint32_t* counts, unsigned long long* candidates,
                      const std::uint64_t* offsets, std::uint64_t base, const PairOutput& out,
                      const DirectOutput& direct, cudaStream_t stream) {
  if (args.tile_points == 0 || args.tile_points > grid_tile_points(args.geometry.dim))
    throw Error("gpu join: tile size does not fit the dimension");
  launch_join<GridTileKernel, FILL, FOLD>(args, metric, args.geometry.dim, q_begin, q_end, counts,
                                    candidates, offsets, base, out, direct, stream);
}

template void launch_grid_tile<false, true>(const GridJoinArgs&, Metric, std::uint32_t,
                                            std::uint32_t, std::uint32_t*, unsigned long long*,
                                            const std::uint64_t*, std::uint64_t, const PairOutput&,
                                            const DirectOutput&, cudaStream_t);
template void launch_grid_tile<false>(const GridJoinArgs&, Metric, std::uint32_t, std::uint32_t,
                                      std::uint32_t*, unsigned long long*, const std::uint64_t*,
                                      std::uint64_t, const PairOutput&, const DirectOutput&,
                                      cudaStream_t);
template void launch_grid_tile<true>(const GridJoinArgs&, Metric, std::uint32_t, std::uint32_t,
                                     std::uint32_t*, unsigned long long*, const std::uint64_t*,
                                     std::uint64_t, const PairOutput&, const DirectOutput&,
                                     cudaStream_t);

}  // namespace simjoin::gpu
