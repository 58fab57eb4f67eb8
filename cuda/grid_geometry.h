// The eps-grid's geometry as the kernels see it: a by-value copy of the GridPlan's indexed
// dimensions with the mixed-radix strides that turn cell coordinates into one 64-bit cell key.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/join/grid_plan.h"

namespace simjoin::gpu {

// At most this many dimensions are indexed: the stencil visits 3^(k-1) rows of cells per query.
constexpr int kMaxIndexedDims = 8;
// Masks M (Gowanlock and Karsin, IPDPSW 2018) are kept for dimensions of at most this many cells.
constexpr std::int64_t kMaxMaskCells = std::int64_t(1) << 24;

struct GridGeometry {
  int k = 0;    // indexed dimensions in use (<= plan.k: fewer dimensions only widen the filter)
  int dim = 0;  // dimensions of a point
  double cell_width = 0.0;
  int indexed_dim[kMaxIndexedDims] = {};  // stored dimension of indexed dimension i
  double origin[kMaxIndexedDims] = {};
  std::int64_t cells[kMaxIndexedDims] = {};
  std::uint64_t stride[kMaxIndexedDims] = {};  // key = sum of coordinate[i] * stride[i]
  std::uint64_t total_cells = 0;               // product of cells: the key of no cell
  int key_bits = 0;                            // bits that hold every key and total_cells
  std::int64_t mask_offset[kMaxIndexedDims] = {};  // into the mask array; -1: no mask

  // The cell coordinate of x in indexed dimension i: grid_cell() of engine/join/grid_plan.h, on either side.
  __host__ __device__ std::int64_t cell_of(int i, double x) const {
#ifdef __CUDA_ARCH__
    return static_cast<std::int64_t>(__ddiv_rn(__dsub_rn(x, origin[i]), cell_width));
#else
    return static_cast<std::int64_t>((x - origin[i]) / cell_width);
#endif
  }
};

// Takes the plan's first indexed dimensions, as many as fit kMaxIndexedDims and a 62-bit key.
GridGeometry make_grid_geometry(const GridPlan& plan, int dim);

}  // namespace simjoin::gpu
