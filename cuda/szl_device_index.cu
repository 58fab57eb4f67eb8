// Building the Set of Z-Lists on the device: quantization, the curve sorts, the key prefixes.
#include "szl_device_index.cuh"

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "cuda_check.h"
#include "engine/join/finite_points.h"
#include "engine/join/szl_index.h"
#include "engine/join/zorder.h"

namespace simjoin::gpu {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::uint64_t items) {
  return static_cast<unsigned>((items + kBlock - 1) / kBlock);
}

__global__ void quantize_points(const double* __restrict__ coords, std::uint64_t elements,
                                int dim, const double* __restrict__ lo, double scale,
                                std::uint32_t* __restrict__ out) {
  const std::uint64_t e = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= elements) return;
  out[e] = z_quantize(coords[e], lo[e % dim], scale);
}

// words[k] = word w of the key of point ids[k] on the curve with `shift`.
__global__ void key_words(const std::uint32_t* __restrict__ quantized, int dim,
                          std::uint32_t shift, std::uint32_t w,
                          const std::uint32_t* __restrict__ ids, std::uint32_t n,
                          std::uint64_t* __restrict__ words) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  words[k] = z_key_word(quantized + std::uint64_t(ids[k]) * dim, dim, shift, w);
}

// *tied = 1 where two neighbours of the sorted words are equal.
__global__ void find_tie(const std::uint64_t* __restrict__ sorted, std::uint32_t n,
                         int* __restrict__ tied) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k + 1 < n && sorted[k] == sorted[k + 1]) *tied = 1;
}

__global__ void key_prefixes(const std::uint32_t* __restrict__ quantized, int dim,
                             std::uint32_t shift, const std::uint32_t* __restrict__ ids,
                             std::uint32_t n, std::uint64_t* __restrict__ prefixes) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  prefixes[k] = z_key_prefix(quantized + std::uint64_t(ids[k]) * dim, dim, shift);
}

// The first key word of a probe point on curve 0 (shift 0), quantized on the fly; ~0 (sorted
// after every finite point, whose top key bit is 0) for a non-finite point.
__global__ void probe_prefixes(const double* __restrict__ coords, std::uint32_t n, int dim,
                               const double* __restrict__ lo, double scale,
                               std::uint64_t* __restrict__ keys, std::uint32_t* __restrict__ ids,
                               unsigned long long* __restrict__ finite_count) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  bool finite = false;
  if (i < n) {
    const double* p = coords + std::uint64_t(i) * dim;
    finite = true;
    for (int j = 0; j < dim; ++j) finite = finite && isfinite(p[j]);
    std::uint64_t word = ~0ull;
    if (finite) {
      word = 0;
      const int total = dim * kZBits;
      for (int g = 0; g < 64; ++g) {
        std::uint64_t bit = 0;
        if (g < total)
          bit = (z_quantize(p[g % dim], lo[g % dim], scale) >> (kZBits - 1 - g / dim)) & 1u;
        word = (word << 1) | bit;
      }
    }
    keys[i] = word;
    ids[i] = i;
  }
  const unsigned finite_in_warp = __popc(__ballot_sync(0xffffffffu, finite));
  if ((threadIdx.x & 31) == 0 && finite_in_warp) atomicAdd(finite_count, finite_in_warp);
}

// z_compare as the merge sort's "less".
struct ZLess {
  const std::uint32_t* quantized;
  int dim;
  std::uint32_t shift;
  __device__ bool operator()(std::uint32_t a, std::uint32_t b) const {
    return z_compare(quantized + std::uint64_t(a) * dim, shift, quantized + std::uint64_t(b) * dim,
                     shift, dim) < 0;
  }
};

void sort_by_comparator(const DeviceSzlIndex& index, std::uint32_t shift, std::uint32_t* ids,
                        cudaStream_t stream) {
  const ZLess less{index.quantized.data(), index.dim, shift};
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, temp_bytes, ids, index.listed, less, stream));
  DeviceBuffer<std::uint8_t> temp(temp_bytes);
  CUDA_CHECK(
      cub::DeviceMergeSort::SortKeys(temp.data(), temp_bytes, ids, index.listed, less, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // temp is freed on return
}

// Radix sorts on key words: the first word, and where two points tie on it, every word from the
// last to the first (stable passes: the order of whole keys).
void sort_by_keys(const DeviceSzlIndex& index, std::uint32_t shift, std::uint32_t* ids,
                  cudaStream_t stream) {
  const std::uint32_t n = index.listed;
  DeviceBuffer<std::uint64_t> words(n), sorted_words(n);
  DeviceBuffer<std::uint32_t> other_ids(n);
  DeviceBuffer<int> tied(1);
  cub::DoubleBuffer<std::uint64_t> keys(words.data(), sorted_words.data());
  cub::DoubleBuffer<std::uint32_t> values(ids, other_ids.data());
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, values, n, 0, 64, stream));
  DeviceBuffer<std::uint8_t> temp(temp_bytes);
  const auto pass = [&](std::uint32_t w) {
    key_words<<<blocks_for(n), kBlock, 0, stream>>>(index.quantized.data(), index.dim, shift, w,
                                                    values.Current(), n, keys.Current());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys, values, n, 0, 64, stream));
  };
  pass(0);
  const std::uint32_t key_words_count = static_cast<std::uint32_t>(z_key_words(index.dim));
  if (key_words_count > 1) {
    int any_tie = 0;
    CUDA_CHECK(cudaMemsetAsync(tied.data(), 0, sizeof(int), stream));
    find_tie<<<blocks_for(n), kBlock, 0, stream>>>(keys.Current(), n, tied.data());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(&any_tie, tied.data(), sizeof any_tie, cudaMemcpyDeviceToHost,
                               stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (any_tie) {
      for (std::uint32_t w = key_words_count; w-- > 0;) pass(w);
    }
  }
  if (values.Current() != ids)
    CUDA_CHECK(cudaMemcpyAsync(ids, values.Current(), std::size_t(n) * sizeof(std::uint32_t),
                               cudaMemcpyDeviceToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the buffers are freed on return
}

}  // namespace

DeviceSzlIndex build_device_szl_index(const PointSet& points, const double* coords, SzlSort sort,
                                      cudaStream_t stream) {
  SzlIndex parameters;
  choose_szl_parameters(points, 0, parameters);
  DeviceSzlIndex index;
  index.dim = static_cast<int>(points.dim);
  index.curves = static_cast<std::uint32_t>(parameters.curves);
  index.scale = parameters.scale;
  index.shifts = parameters.shifts;
  std::vector<std::uint32_t> finite;
  finite.reserve(points.n);
  for (std::size_t i = 0; i < points.n; ++i) {
    if (is_finite_point(points.point(i), points.dim)) finite.push_back(static_cast<std::uint32_t>(i));
  }
  index.listed = static_cast<std::uint32_t>(finite.size());

  index.lo.resize(points.dim);
  if (points.dim > 0)
    CUDA_CHECK(cudaMemcpyAsync(index.lo.data(), parameters.lo.data(), index.lo.bytes(),
                               cudaMemcpyHostToDevice, stream));
  const std::uint64_t elements = std::uint64_t(points.n) * points.dim;
  index.quantized.resize(elements);
  if (elements > 0) {
    quantize_points<<<blocks_for(elements), kBlock, 0, stream>>>(
        coords, elements, index.dim, index.lo.data(), index.scale, index.quantized.data());
    CUDA_CHECK_LAUNCH();
  }
  const std::size_t listed = index.listed;
  index.order.resize(index.curves * listed);
  index.prefixes.resize(index.curves * listed);
  for (std::uint32_t c = 0; c < index.curves && listed > 0; ++c) {
    std::uint32_t* ids = index.order.data() + c * listed;
    CUDA_CHECK(cudaMemcpyAsync(ids, finite.data(), listed * sizeof(std::uint32_t),
                               cudaMemcpyHostToDevice, stream));
    if (sort == SzlSort::Compare)
      sort_by_comparator(index, index.shifts[c], ids, stream);
    else
      sort_by_keys(index, index.shifts[c], ids, stream);
    key_prefixes<<<blocks_for(listed), kBlock, 0, stream>>>(index.quantized.data(), index.dim,
                                                            index.shifts[c], ids, index.listed,
                                                            index.prefixes.data() + c * listed);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));  // before `finite` and `parameters` go
  return index;
}

DeviceBuffer<std::uint32_t> probe_order(const DeviceSzlIndex& index, const double* coords,
                                        std::uint32_t n, std::uint32_t* finite,
                                        cudaStream_t stream) {
  DeviceBuffer<std::uint64_t> keys(n), sorted_keys(n);
  DeviceBuffer<std::uint32_t> ids(n), sorted_ids(n);
  DeviceBuffer<unsigned long long> finite_count(1);
  CUDA_CHECK(cudaMemsetAsync(finite_count.data(), 0, sizeof(unsigned long long), stream));
  if (n > 0) {
    probe_prefixes<<<blocks_for(n), kBlock, 0, stream>>>(coords, n, index.dim, index.lo.data(),
                                                         index.scale, keys.data(), ids.data(),
                                                         finite_count.data());
    CUDA_CHECK_LAUNCH();
  }
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.data(), sorted_keys.data(),
                                             ids.data(), sorted_ids.data(), n, 0, 64, stream));
  DeviceBuffer<std::uint8_t> temp(temp_bytes);
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys.data(),
                                             sorted_keys.data(), ids.data(), sorted_ids.data(), n,
                                             0, 64, stream));
  unsigned long long count = 0;
  CUDA_CHECK(cudaMemcpyAsync(&count, finite_count.data(), sizeof count, cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  *finite = static_cast<std::uint32_t>(count);
  return sorted_ids;
}

}  // namespace simjoin::gpu
