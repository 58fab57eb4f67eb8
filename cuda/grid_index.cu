// Building the eps-grid on the GPU: cell keys, radix sort, run-length encoding, masks.
#include "grid_index.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include <cmath>
#include <string>

namespace simjoin::gpu {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::uint64_t items) {
  return static_cast<unsigned>((items + kBlock - 1) / kBlock);
}

// keys[i] = the cell key of point i, or geometry.total_cells (sorted last) when a coordinate is
// not finite; counts the finite points and flags finite points outside the grid.
__global__ void compute_cell_keys(const double* __restrict__ coords, std::uint32_t n,
                                  GridGeometry g, std::uint64_t* __restrict__ keys,
                                  std::uint32_t* __restrict__ ids,
                                  unsigned long long* __restrict__ finite_count,
                                  int* __restrict__ outside_grid) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  bool finite = false;
  if (i < n) {
    const double* p = coords + i * g.dim;
    finite = true;
    for (int j = 0; j < g.dim; ++j) finite = finite && isfinite(p[j]);
    std::uint64_t key = g.total_cells;
    if (finite) {
      key = 0;
      for (int t = 0; t < g.k; ++t) {
        const std::int64_t c = g.cell_of(t, p[g.indexed_dim[t]]);
        if (c < 0 || c >= g.cells[t]) {
          atomicExch(outside_grid, 1);
          finite = false;
          key = g.total_cells;
          break;
        }
        key += static_cast<std::uint64_t>(c) * g.stride[t];
      }
    }
    keys[i] = key;
    ids[i] = static_cast<std::uint32_t>(i);
  }
  const unsigned finite_in_warp = __popc(__ballot_sync(0xffffffffu, finite));
  if ((threadIdx.x & 31) == 0 && finite_in_warp) atomicAdd(finite_count, finite_in_warp);
}

// Copies the rows of the sorted points next to each other: out row r = in row ids[r].
__global__ void gather_rows(const double* __restrict__ in, const std::uint32_t* __restrict__ ids,
                            std::uint64_t rows, int dim, double* __restrict__ out) {
  const std::uint64_t e = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= rows * dim) return;
  const std::uint64_t r = e / dim;
  out[e] = in[std::uint64_t(ids[r]) * dim + (e - r * dim)];
}

// Marks, per masked dimension, the coordinates that some non-empty cell has.
__global__ void mark_masks(const std::uint64_t* __restrict__ cell_keys, std::uint32_t num_cells,
                           GridGeometry g, std::uint8_t* __restrict__ masks) {
  const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= num_cells) return;
  const std::uint64_t key = cell_keys[c];
  for (int t = 0; t < g.k; ++t) {
    if (g.mask_offset[t] < 0) continue;
    const std::uint64_t coordinate = (key / g.stride[t]) % static_cast<std::uint64_t>(g.cells[t]);
    masks[g.mask_offset[t] + coordinate] = 1;
  }
}

}  // namespace

SortedPoints sort_points_by_cell(const double* coords, std::uint32_t n, const GridGeometry& g,
                                 cudaStream_t stream) {
  SortedPoints sorted;
  DeviceBuffer<std::uint64_t> keys(n);
  DeviceBuffer<std::uint32_t> ids(n);
  DeviceBuffer<unsigned long long> finite_count(1);
  DeviceBuffer<int> outside_grid(1);
  CUDA_CHECK(cudaMemsetAsync(finite_count.data(), 0, sizeof(unsigned long long), stream));
  CUDA_CHECK(cudaMemsetAsync(outside_grid.data(), 0, sizeof(int), stream));
  if (n > 0) {
    compute_cell_keys<<<blocks_for(n), kBlock, 0, stream>>>(coords, n, g, keys.data(), ids.data(),
                                                            finite_count.data(),
                                                            outside_grid.data());
    CUDA_CHECK_LAUNCH();
  }

  sorted.keys.resize(n);
  sorted.ids.resize(n);
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.data(), sorted.keys.data(),
                                             ids.data(), sorted.ids.data(), n, 0, g.key_bits,
                                             stream));
  {
    DeviceBuffer<std::uint8_t> temp(temp_bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys.data(),
                                               sorted.keys.data(), ids.data(), sorted.ids.data(),
                                               n, 0, g.key_bits, stream));
    unsigned long long finite = 0;
    int outside = 0;
    CUDA_CHECK(cudaMemcpyAsync(&finite, finite_count.data(), sizeof finite,
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(&outside, outside_grid.data(), sizeof outside,
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (outside)
      throw Error("gpu grid: a finite point lies outside the grid plan (origin/cells)");
    sorted.n_finite = static_cast<std::uint32_t>(finite);
  }

  const std::uint64_t elements = std::uint64_t(sorted.n_finite) * g.dim;
  sorted.coords.resize(elements);
  if (elements > 0) {
    gather_rows<<<blocks_for(elements), kBlock, 0, stream>>>(coords, sorted.ids.data(),
                                                             sorted.n_finite, g.dim,
                                                             sorted.coords.data());
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return sorted;
}

CellIndex build_cell_index(const SortedPoints& points, GridGeometry& g, cudaStream_t stream) {
  CellIndex index;
  const std::uint32_t n = points.n_finite;
  index.keys.resize(n);
  if (n == 0) {  // no finite point: no cell (CUB's encoding of nothing writes no run count)
    index.start.resize(1);
    CUDA_CHECK(cudaMemsetAsync(index.start.data(), 0, sizeof(std::uint32_t), stream));
    for (int t = 0; t < g.k; ++t) g.mask_offset[t] = -1;
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return index;
  }
  DeviceBuffer<std::uint32_t> counts(std::size_t(n) + 1);
  DeviceBuffer<std::uint32_t> num_runs(1);
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, temp_bytes, points.keys.data(),
                                                index.keys.data(), counts.data(), num_runs.data(),
                                                n, stream));
  DeviceBuffer<std::uint8_t> temp(temp_bytes);
  CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(temp.data(), temp_bytes, points.keys.data(),
                                                index.keys.data(), counts.data(), num_runs.data(),
                                                n, stream));
  CUDA_CHECK(cudaMemcpyAsync(&index.num_cells, num_runs.data(), sizeof index.num_cells,
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  // start = exclusive sum of the counts with a zero appended, so that start[num_cells] = n.
  const std::uint32_t cells = index.num_cells;
  CUDA_CHECK(cudaMemsetAsync(counts.data() + cells, 0, sizeof(std::uint32_t), stream));
  index.start.resize(std::size_t(cells) + 1);
  temp_bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts.data(), index.start.data(),
                                           cells + 1, stream));
  DeviceBuffer<std::uint8_t> scan_temp(temp_bytes);
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.data(), temp_bytes, counts.data(),
                                           index.start.data(), cells + 1, stream));

  // Masks for the dimensions the stencil steps through cell by cell (all but the last).
  std::int64_t mask_bytes = 0;
  for (int t = 0; t < g.k; ++t) {
    g.mask_offset[t] = -1;
    if (t + 1 < g.k && g.cells[t] <= kMaxMaskCells) {
      g.mask_offset[t] = mask_bytes;
      mask_bytes += g.cells[t];
    }
  }
  index.masks.resize(static_cast<std::size_t>(mask_bytes));
  if (mask_bytes > 0) {
    CUDA_CHECK(cudaMemsetAsync(index.masks.data(), 0, mask_bytes, stream));
    if (cells > 0) {
      mark_masks<<<blocks_for(cells), kBlock, 0, stream>>>(index.keys.data(), cells, g,
                                                           index.masks.data());
      CUDA_CHECK_LAUNCH();
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return index;
}

}  // namespace simjoin::gpu
