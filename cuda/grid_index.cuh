// The eps-grid index, built on the GPU (Gowanlock and Karsin, IPDPSW 2018): each input's finite points sorted by cell key
// (CUB radix sort), and for the indexed input the non-empty cells (run-length encoding of the
// sorted keys) with their point ranges and the per-dimension masks M.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device_buffer.h"
#include "grid_geometry.h"

namespace simjoin::gpu {

// One input's points with all coordinates finite, in ascending cell-key order (the lookup array
// A of Gowanlock and Karsin (IPDPSW 2018), with the coordinates copied alongside so that a cell's points are contiguous).
struct SortedPoints {
  DeviceBuffer<double> coords;       // n_finite rows of `dim` values, stored dimension order
  DeviceBuffer<std::uint32_t> ids;   // each row's index in the input
  DeviceBuffer<std::uint64_t> keys;  // each row's cell key
  std::uint32_t n_finite = 0;
};

// The non-empty cells of the indexed input (lookup arrays B and G of Gowanlock and Karsin, IPDPSW 2018).
struct CellIndex {
  DeviceBuffer<std::uint64_t> keys;   // ascending
  DeviceBuffer<std::uint32_t> start;  // first row of each cell in SortedPoints; [num_cells] = n
  DeviceBuffer<std::uint8_t> masks;   // masks M: 1 where some non-empty cell has that coordinate
  std::uint32_t num_cells = 0;
};

// Sorts the points at `coords` (device, input order, n rows) by cell; points with a non-finite
// coordinate are left out (they match nothing for a finite eps). Throws if a finite point lies
// outside the plan's grid. Synchronizes `stream`.
SortedPoints sort_points_by_cell(const double* coords, std::uint32_t n, const GridGeometry& geometry,
                                 cudaStream_t stream);

// Builds the cell lookup over `points` and sets geometry.mask_offset. Synchronizes `stream`.
CellIndex build_cell_index(const SortedPoints& points, GridGeometry& geometry, cudaStream_t stream);

}  // namespace simjoin::gpu
