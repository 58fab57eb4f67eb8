// The rows' order in space and the mask of tile pairs worth visiting (see tile_pruning.cuh).
#include "tile_pruning.cuh"

#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>

#include "cuda_check.h"
#include "device_distance.cuh"

namespace simjoin::gpu {
namespace {

constexpr int kTileRows = 128;  // rows of a tile of the joins on tensor cores

// The key of each row and its number (the values the sort carries).
__global__ void row_keys(const double* coords, std::uint64_t n, int dim, SpaceKey key,
                         unsigned long long* keys, std::uint32_t* rows) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double* p = coords + i * dim;
  keys[i] = finite_row(p, dim) ? space_key_of(key, p) : ~0ull;  // non-finite rows last
  rows[i] = static_cast<std::uint32_t>(i);
}

// Per tile: the centre (the mean of its live FP16 rows, rounded to float; stored at
// centre[k * tiles + t]) and the extent (the largest of a live row's distance from the centre
// plus its reach, rounded up); NaN for a tile without a live row. Live rows: those below
// n whose terms are not NaN (the others never match).
__global__ void tile_balls(HalfRows rows, std::uint64_t n, int padded_dim, std::uint32_t tiles,
                           float* centre, float* extent) {
  extern __shared__ float tile_centre[];  // padded_dim
  __shared__ bool live[kTileRows];
  __shared__ unsigned largest_bits;  // bits of a non-negative float: ordered as integers
  const std::uint32_t t = blockIdx.x;
  const std::uint64_t first = std::uint64_t(t) * kTileRows;
  const int r = threadIdx.x;
  live[r] = first + r < n && !isnan(rows.norm2[first + r]);
  if (r == 0) largest_bits = 0;
  const int live_rows = __syncthreads_count(live[r]);
  for (int k = r; k < padded_dim; k += kTileRows) {
    double sum = 0.0;
    for (int i = 0; i < kTileRows; ++i)
      if (live[i]) sum += __half2float(rows.coords[(first + i) * padded_dim + k]);
    const float c = live_rows > 0 ? static_cast<float>(sum / live_rows) : 0.0f;
    tile_centre[k] = c;
    centre[std::uint64_t(k) * tiles + t] = c;
  }
  __syncthreads();
  if (live[r]) {
    double sum = 0.0;
    const __half* x = rows.coords + (first + r) * padded_dim;
    for (int k = 0; k < padded_dim; ++k) {
      const double d = double(__half2float(x[k])) - double(tile_centre[k]);
      sum = fma(d, d, sum);
    }
    // Each difference and the sum round by at most a few units of 2^-53 of the result, or
    // 2^-60 absolute for differences of numbers below 1: margins far above both.
    const double radius = __dadd_ru(__dmul_ru(__dsqrt_ru(sum), 1.0 + 0x1p-30), 0x1p-40);
    const float reach_sum = __fadd_ru(__double2float_ru(radius), rows.reach[first + r]);
    atomicMax(&largest_bits, __float_as_uint(reach_sum));
  }
  __syncthreads();
  if (r == 0)
    extent[t] = live_rows > 0 ? __uint_as_float(largest_bits) : __int_as_float(0x7fc00000);
}

struct Balls {
  DeviceBuffer<float> centre, extent;
  std::uint32_t tiles = 0;
};

Balls balls_of(const HalfPoints& points, std::uint64_t n, int padded_dim, cudaStream_t stream) {
  Balls balls;
  balls.tiles = static_cast<std::uint32_t>((n + kTileRows - 1) / kTileRows);
  balls.centre.resize(std::uint64_t(balls.tiles) * padded_dim);
  balls.extent.resize(balls.tiles);
  if (balls.tiles == 0) return balls;
  tile_balls<<<balls.tiles, kTileRows, sizeof(float) * padded_dim, stream>>>(
      rows_of(points), n, padded_dim, balls.tiles, balls.centre.data(), balls.extent.data());
  CUDA_CHECK_LAUNCH();
  return balls;
}

constexpr int kMaskThreads = 256;

// Bit t of row l: whether query tile l may hold a pair with candidate tile t (self: t >= l only).
// A tile pair is dropped when its centres' distance, computed in float, exceeds the sum of the
// extents with a margin of 2^-9 of the squares, far above the float roundings (about
// padded_dim 2^-24 of the sum of squares).
__global__ void mask_rows(const float* left_centre, const float* left_extent,
                          std::uint32_t left_tiles, const float* right_centre,
                          const float* right_extent, std::uint32_t right_tiles, int padded_dim,
                          bool self, std::uint32_t words, std::uint32_t* mask,
                          unsigned long long* visited) {
  extern __shared__ float query_centre[];
  const std::uint32_t l = blockIdx.x;
  for (int k = threadIdx.x; k < padded_dim; k += blockDim.x)
    query_centre[k] = left_centre[std::uint64_t(k) * left_tiles + l];
  __syncthreads();
  const std::uint32_t t = blockIdx.y * kMaskThreads + threadIdx.x;
  bool visit = false;
  if (t < right_tiles && !(self && t < l)) {
    float d2 = 0.0f;
    for (int k = 0; k < padded_dim; ++k) {
      const float d = query_centre[k] - right_centre[std::uint64_t(k) * right_tiles + t];
      d2 = fmaf(d, d, d2);
    }
    const float reach = __fadd_ru(left_extent[l], right_extent[t]);
    visit = d2 <= __fmul_ru(__fmul_ru(reach, reach), 1.0f + 0x1p-9f);  // NaN: an empty tile
  }
  const unsigned ballot = __ballot_sync(0xffffffffu, visit);
  const std::uint32_t word = t / 32;
  if ((threadIdx.x & 31) == 0 && word < words) {
    mask[std::uint64_t(l) * words + word] = ballot;
    if (ballot) atomicAdd(visited, static_cast<unsigned long long>(__popc(ballot)));
  }
}

}  // namespace

DeviceBuffer<std::uint32_t> space_order(const double* coords, std::uint64_t n, int dim,
                                        const SpaceKey& key, cudaStream_t stream) {
  DeviceBuffer<unsigned long long> keys(n), sorted_keys(n);
  DeviceBuffer<std::uint32_t> rows(n), order(n);
  if (n == 0) return order;
  constexpr int kBlock = 256;
  row_keys<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
      coords, n, dim, key, keys.data(), rows.data());
  CUDA_CHECK_LAUNCH();
  // Non-finite rows' key has every bit set: last whatever the bits sorted.
  const int end_bit = std::max(1, key.length);
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.data(), sorted_keys.data(),
                                             rows.data(), order.data(), static_cast<int>(n), 0,
                                             end_bit, stream));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys.data(),
                                             sorted_keys.data(), rows.data(), order.data(),
                                             static_cast<int>(n), 0, end_bit,
                                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the keys are freed on return
  return order;
}

TileMask tile_pair_mask(const HalfPoints& left, std::uint64_t n_left, const HalfPoints* right,
                        std::uint64_t n_right, int padded_dim, cudaStream_t stream) {
  TileMask mask;
  const std::uint64_t left_tiles = (n_left + kTileRows - 1) / kTileRows;
  const std::uint64_t right_tiles = ((right ? n_right : n_left) + kTileRows - 1) / kTileRows;
  const std::uint64_t words = (right_tiles + 31) / 32;
  if (left_tiles == 0 || right_tiles == 0 ||
      left_tiles * words * sizeof(std::uint32_t) > kMaxMaskBytes)
    return mask;
  const Balls left_balls = balls_of(left, n_left, padded_dim, stream);
  Balls right_balls;
  if (right) right_balls = balls_of(*right, n_right, padded_dim, stream);
  const Balls& candidates = right ? right_balls : left_balls;
  mask.words = static_cast<std::uint32_t>(words);
  mask.rows = static_cast<std::uint32_t>(left_tiles);
  mask.bits.resize(left_tiles * words);
  DeviceBuffer<unsigned long long> visited(1);
  CUDA_CHECK(cudaMemsetAsync(visited.data(), 0, visited.bytes(), stream));
  const dim3 grid(mask.rows, static_cast<unsigned>((right_tiles + kMaskThreads - 1) / kMaskThreads));
  mask_rows<<<grid, kMaskThreads, sizeof(float) * padded_dim, stream>>>(
      left_balls.centre.data(), left_balls.extent.data(), mask.rows, candidates.centre.data(),
      candidates.extent.data(), static_cast<std::uint32_t>(right_tiles), padded_dim, !right,
      mask.words, mask.bits.data(), visited.data());
  CUDA_CHECK_LAUNCH();
  unsigned long long kept = 0;
  CUDA_CHECK(cudaMemcpyAsync(&kept, visited.data(), sizeof(kept), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the balls are freed on return
  mask.visited = kept;
  mask.pairs = right ? left_tiles * right_tiles : left_tiles * (left_tiles + 1) / 2;
  // A mask that keeps nearly every tile pair saves less than walking it costs (about 2%).
  if (mask.visited > mask.pairs / 10 * 9) mask.bits = DeviceBuffer<std::uint32_t>();
  return mask;
}

}  // namespace simjoin::gpu
