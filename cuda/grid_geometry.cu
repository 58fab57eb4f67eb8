// GridGeometry from a GridPlan: indexed dimensions, strides and key width.
#include "grid_geometry.h"

#include <algorithm>
#include <cmath>

namespace simjoin::gpu {

GridGeometry make_grid_geometry(const GridPlan& plan, int dim) {
  GridGeometry g;
  g.dim = dim;
  g.cell_width = plan.cell_width;
  if (!(plan.cell_width > 0.0) || !std::isfinite(plan.cell_width)) return g;  // k = 0: no grid
  const int wanted = std::min({plan.k, dim, kMaxIndexedDims, static_cast<int>(plan.cells.size()),
                               static_cast<int>(plan.origin.size())});
  // Keys stay below 2^62, so that signed stencil offsets and the "no cell" key never overflow.
  const std::uint64_t key_limit = std::uint64_t(1) << 62;
  std::uint64_t total = 1;
  int k = 0;
  for (; k < wanted; ++k) {
    const std::int64_t cells = plan.cells[k];
    if (cells < 1 || total > key_limit / static_cast<std::uint64_t>(cells)) break;
    total *= static_cast<std::uint64_t>(cells);
    g.indexed_dim[k] = plan.order[k];
    g.origin[k] = plan.origin[k];
    g.cells[k] = cells;
  }
  g.k = k;
  g.total_cells = total;
  std::uint64_t stride = 1;
  for (int i = k - 1; i >= 0; --i) {  // the last indexed dimension varies fastest
    g.stride[i] = stride;
    stride *= static_cast<std::uint64_t>(g.cells[i]);
  }
  g.key_bits = 1;
  while (g.key_bits < 64 && (total >> g.key_bits) != 0) ++g.key_bits;
  for (int i = 0; i < kMaxIndexedDims; ++i) g.mask_offset[i] = -1;
  return g;
}

}  // namespace simjoin::gpu
