// The eps-grid join kernel and its launches (see grid_join_kernel.cuh).
#include "grid_join_kernel.cuh"

#include "cuda_check.h"
#include "device_distance.cuh"
#include "float_filter.cuh"
#include "kernel_dispatch.cuh"

namespace simjoin::gpu {
namespace {

// First position in keys[0..n) whose key is >= value.
__device__ __forceinline__ std::uint32_t lower_bound_key(const std::uint64_t* __restrict__ keys,
                                                         std::uint32_t n, std::uint64_t value) {
  std::uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < value)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Counts (FILL = false) or writes (FILL = true) the pairs of queries [q_begin, q_end).
//
// The stencil: for each offset in {-1,0,1} of the first k-1 indexed dimensions (skipping
// coordinates outside the grid or absent from the masks), the row of up to three cells along the
// last indexed dimension has consecutive keys, hence one contiguous range of sorted points found
// by one binary search. Self-joins (unicomp): a row whose key offset P is negative is skipped (its
// pairs belong to the other cell's query), in the query's own row only later points are paired.
template <Metric M, int DIM, bool FILL>
__global__ void __launch_bounds__(kJoinBlock)
    grid_join(GridJoinArgs a, std::uint32_t q_begin, std::uint32_t q_end,
              std::uint32_t* __restrict__ counts, unsigned long long* __restrict__ candidates,
              const std::uint64_t* __restrict__ offsets, std::uint64_t base, PairOutput out,
              DirectOutput direct) {
  const GridGeometry& g = a.geometry;
  const std::uint32_t q = q_begin + blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long evaluated = 0;
  if (q < q_end) {
    const int dim = DIM > 0 ? DIM : g.dim;
    // The float query in registers for the prefilter; the double one is read from memory by the
    // exact test of the (few) candidates that the prefilter keeps.
    FloatQuery<DIM> query;
    query.load(a.query_float + std::uint64_t(q) * dim);
    const float query_mag = a.query_mag[q];
    const double* query_exact = a.query_coords + std::uint64_t(q) * dim;
    const std::uint64_t key = a.query_keys[q];
    const int m = g.k - 1;  // stencil dimensions stepped cell by cell

    // Which of the offsets -1, 0, +1 exist in each stepped dimension (3 bits per dimension).
    std::uint32_t valid = 0;
    std::uint32_t rows = 1;
#pragma unroll
    for (int t = 0; t < kMaxIndexedDims - 1; ++t) {
      if (t < m) {
        const std::int64_t c = static_cast<std::int64_t>((key / g.stride[t]) %
                                                         static_cast<std::uint64_t>(g.cells[t]));
#pragma unroll
        for (int d = 0; d < 3; ++d) {
          const std::int64_t n = c + d - 1;
          const bool inside = n >= 0 && n < g.cells[t] &&
                              (g.mask_offset[t] < 0 || a.masks[g.mask_offset[t] + n]);
          valid |= std::uint32_t(inside) << (3 * t + d);
        }
        rows *= 3;
      }
    }
    const std::int64_t last = static_cast<std::int64_t>(key % static_cast<std::uint64_t>(g.cells[m]));
    const std::uint64_t below = last > 0 ? 1 : 0;             // cell at -1 in the last dimension
    const std::uint64_t above = last + 1 < g.cells[m] ? 1 : 0;  // cell at +1

    const std::uint64_t first_out = FILL ? offsets[q] - base : 0;
    std::uint32_t found = 0;
    for (std::uint32_t r = 0; r < rows; ++r) {
      std::uint32_t digits = r;
      std::int64_t row_offset = 0;  // P: key offset of the row's middle cell
      bool inside = true;
#pragma unroll
      for (int t = 0; t < kMaxIndexedDims - 1; ++t) {
        if (t < m) {
          const std::uint32_t d = digits % 3;
          digits /= 3;
          inside = inside && ((valid >> (3 * t + d)) & 1u);
          row_offset += (static_cast<std::int64_t>(d) - 1) * static_cast<std::int64_t>(g.stride[t]);
        }
      }
      if (!inside || (a.self_join && row_offset < 0)) continue;
      const bool own_row = a.self_join && row_offset == 0;
      const std::uint64_t middle = key + row_offset;
      const std::uint64_t lo = own_row ? key : middle - below;
      const std::uint64_t hi = middle + above;
      const std::uint32_t first_cell = lower_bound_key(a.cell_keys, a.num_cells, lo);
      std::uint32_t end_cell = first_cell;
      while (end_cell < a.num_cells && a.cell_keys[end_cell] <= hi) ++end_cell;
      if (end_cell == first_cell) continue;
      const std::uint32_t begin = own_row ? q + 1 : a.cell_start[first_cell];
      const std::uint32_t end = a.cell_start[end_cell];
      for (std::uint32_t j = begin; j < end; ++j) {
        ++evaluated;
        const float limit = float_limit<M>(a.filter, query_mag, a.index_mag[j]);
        if (float_bounded<M, DIM>(query.coords(), a.index_float + std::uint64_t(j) * dim, dim,
                                  limit) > limit)
          continue;  // proven: the exact accumulated distance exceeds the bound
        const double acc = accumulate_bounded<M, DIM>(
            query_exact, a.index_coords + std::uint64_t(j) * dim, dim, a.bound);
        if (acc <= a.bound) {
          if (FILL || direct.total) {
            const std::uint32_t query_id = a.query_ids[q];
            const std::uint32_t index_id = a.index_ids[j];
            std::uint32_t left, right;
            if (a.self_join) {
              left = min(query_id, index_id);
              right = max(query_id, index_id);
            } else if (a.index_is_left) {
              left = index_id;
              right = query_id;
            } else {
              left = query_id;
              right = index_id;
            }
            if constexpr (FILL) {
              const std::uint64_t o = first_out + found;
              out.left[o] = left;
              out.right[o] = right;
              out.distance[o] = finish_distance_device<M>(acc);
            } else {
              emit_direct(direct, left, right, finish_distance_device<M>(acc));
            }
          }
          ++found;
        }
      }
    }
    if constexpr (!FILL) counts[q] = found;
  }
  if constexpr (!FILL) add_candidates(candidates, evaluated);
}

struct GridJoinKernel {
  template <Metric M, int DIM, bool FILL>
  static constexpr auto kernel() {
    return &grid_join<M, DIM, FILL>;
  }
};

}  // namespace

void GridJoinProducer::count(std::uint32_t* counts, unsigned long long* candidates,
                             const DirectOutput& direct, cudaStream_t stream) const {
  launch_join<GridJoinKernel, false>(args_, metric_, args_.geometry.dim, 0, args_.num_queries,
                                     counts, candidates, nullptr, 0, PairOutput{}, direct,
                                     stream);
}

void GridJoinProducer::fill(std::uint32_t q_begin, std::uint32_t q_end,
                            const std::uint64_t* offsets, std::uint64_t base,
                            const PairOutput& out, cudaStream_t stream) const {
  launch_join<GridJoinKernel, true>(args_, metric_, args_.geometry.dim, q_begin, q_end, nullptr,
                                    nullptr, offsets, base, out, DirectOutput{}, stream);
}

}  // namespace simjoin::gpu
