// The device side shared by the grid kernels (per-thread and tiled): the 3^k stencil of a query's
// cell walked as rows of cells along the last indexed dimension (three neighbouring cells there
// have consecutive keys, hence one contiguous range of sorted points), and how a pair is recorded.
#pragma once

#include <cstdint>

#include "device_distance.cuh"
#include "grid_join_kernel.cuh"
#include "kernel_dispatch.cuh"

namespace simjoin::gpu {

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

// The stencil of the cell `key`: for each offset in {-1,0,1} of the first k-1 indexed dimensions
// (skipping coordinates outside the grid or absent from the masks), one row of up to three cells.
// Self-joins (unicomp): a row whose key offset is negative is skipped (its pairs belong to the
// other cell's queries), and the query's own row starts at its own cell.
class GridStencil {
 public:
  __device__ GridStencil(const GridJoinArgs& a, std::uint64_t key) : key_(key) {
    const GridGeometry& g = a.geometry;
    const int m = g.k - 1;  // stencil dimensions stepped cell by cell
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
          valid_ |= std::uint32_t(inside) << (3 * t + d);
        }
        rows_ *= 3;
      }
    }
    const std::int64_t last =
        static_cast<std::int64_t>(key % static_cast<std::uint64_t>(g.cells[m]));
    below_ = last > 0 ? 1 : 0;             // a cell at -1 in the last dimension
    above_ = last + 1 < g.cells[m] ? 1 : 0;  // a cell at +1
  }

  __device__ std::uint32_t rows() const { return rows_; }

  // Row r's range [*begin, *end) of sorted index points; false when the row is outside the grid,
  // left to another cell by unicomp, or empty. *own_row: the query's own row in a self-join,
  // whose range starts at the query's own cell (the caller pairs only later points there).
  __device__ bool row(const GridJoinArgs& a, std::uint32_t r, std::uint32_t* begin,
                      std::uint32_t* end, bool* own_row) const {
    const GridGeometry& g = a.geometry;
    std::uint32_t digits = r;
    std::int64_t row_offset = 0;  // key offset of the row's middle cell
    bool inside = true;
#pragma unroll
    for (int t = 0; t < kMaxIndexedDims - 1; ++t) {
      if (t < g.k - 1) {
        const std::uint32_t d = digits % 3;
        digits /= 3;
        inside = inside && ((valid_ >> (3 * t + d)) & 1u);
        row_offset += (static_cast<std::int64_t>(d) - 1) * static_cast<std::int64_t>(g.stride[t]);
      }
    }
    if (!inside || (a.self_join && row_offset < 0)) return false;
    *own_row = a.self_join && row_offset == 0;
    const std::uint64_t middle = key_ + row_offset;
    const std::uint64_t lo = *own_row ? key_ : middle - below_;
    const std::uint64_t hi = middle + above_;
    const std::uint32_t first_cell = lower_bound_key(a.cell_keys, a.num_cells, lo);
    std::uint32_t end_cell = first_cell;
    while (end_cell < a.num_cells && a.cell_keys[end_cell] <= hi) ++end_cell;
    if (end_cell == first_cell) return false;
    *begin = a.cell_start[first_cell];
    *end = a.cell_start[end_cell];
    return true;
  }

 private:
  std::uint64_t key_;
  std::uint32_t valid_ = 0;  // which offsets exist per stepped dimension (3 bits each)
  std::uint32_t rows_ = 1;
  std::uint64_t below_ = 0, above_ = 0;
};

// Records the match of query q with sorted index point j (accumulated distance acc): written at
// out[first_out + found] by a fill pass, into the direct output by a count pass.
template <Metric M, bool FILL, bool FOLD>
__device__ __forceinline__ void record_grid_pair(const GridJoinArgs& a, std::uint32_t q,
                                                 std::uint32_t j, double acc,
                                                 std::uint64_t first_out, std::uint32_t found,
                                                 const PairOutput& out,
                                                 const DirectOutput& direct) {
  if (!FILL && !direct.total) return;
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
    emit_direct<FOLD>(direct, left, right, finish_distance_device<M>(acc));
  }
}

}  // namespace simjoin::gpu
