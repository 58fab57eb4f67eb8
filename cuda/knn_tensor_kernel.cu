// The kNN join's first passes on tensor cores (see knn_tensor_kernel.cuh).
#include "knn_tensor_kernel.cuh"

#include <algorithm>

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_cosine.cuh"
#include "device_distance.cuh"
#include "gpu_tuning.h"
#include "register_tile.cuh"
#include "tensor_tile.cuh"
#include "warp_top_k.cuh"

namespace simjoin::gpu {
namespace {

using tile::kThreads;
using tile::kTile;
using tile::kWarps;
constexpr int kRowsPerWarp = kTile / kWarps;  // warp w owns rows w, w + 8, ..., w + 120

// One block: queries [q0, q0 + 128) against candidate tiles blockIdx.y, blockIdx.y + splits, ...:
// the tile's dot products on tensor cores, then each warp offers its rows' 128 FP16 distances
// |x~|^2 + |y~|^2 - 2 x~.y~ (lane l: columns l, l + 32, l + 64, l + 96) to the rows' top-k.
// RESIDENT: the block's queries stay in shared memory (tile::stage_resident) before the region
// of the stage and the dot products.
template <bool RESIDENT>
__global__ void __launch_bounds__(kThreads, 2) pick_nearest_kernel(KnnPickArgs a) {
  extern __shared__ __align__(128) unsigned char shared[];
  const tile::ResidentQueries resident =
      RESIDENT ? reinterpret_cast<tile::ResidentQueries>(shared) : nullptr;
  unsigned char* region = RESIDENT ? shared + tile::kResidentBytes : shared;
  const tile::Dots dots = reinterpret_cast<tile::Dots>(region);
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const std::uint32_t q0 = blockIdx.x * kTile;
  const std::uint32_t tiles = (a.n_right + kTile - 1) / kTile;
  WarpTopK<float, false> best[kRowsPerWarp];
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; ++i) best[i].reset(a.picks_per_split);

  if (RESIDENT) tile::stage_resident(resident, a.left_half.coords, q0, a.padded_dim);
  for (std::uint32_t t = blockIdx.y; t < tiles; t += a.splits) {
    const std::uint32_t c0 = t * kTile;
    tile::dot_products(region, a.left_half.coords, q0, a.right_half.coords, c0, a.padded_dim,
                       resident);
    float c_norm2[4];  // padding rows and rows with a non-finite coordinate hold NaN
#pragma unroll
    for (int m = 0; m < 4; ++m) c_norm2[m] = a.right_half.norm2[c0 + lane + 32 * m];
#pragma unroll
    for (int i = 0; i < kRowsPerWarp; ++i) {
      const int r = warp + kWarps * i;
      const std::uint32_t q = q0 + r;
      if (q >= a.n_left) continue;  // uniform over the warp
      const float q_norm2 = a.left_half.norm2[q];
#pragma unroll
      for (int m = 0; m < 4; ++m) {
        const std::uint32_t j = c0 + lane + 32 * m;
        const bool valid = j < a.n_right && !(a.skip_diagonal && j == q);
        best[i].offer(valid, approx_distance(dots[r][lane + 32 * m], q_norm2, c_norm2[m]), j);
      }
    }
    // The next tile's dot_products waits for every warp before it overwrites the dot products.
  }
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; ++i) {
    const std::uint32_t q = q0 + warp + kWarps * i;
    if (q >= a.n_left) continue;
    const std::uint64_t slot = std::uint64_t(q) * a.splits + blockIdx.y;
    if (lane < a.picks_per_split) a.picks[slot * a.picks_per_split + lane] = best[i].index;
    if (lane == 0) a.unpicked[slot] = best[i].worst;
  }
}

// One warp per query: the exact distance of each of its picks, offered to a top-k by (distance,
// index); and the smallest unpicked value over the splits.
__global__ void exact_picks_kernel(KnnPickArgs a, int k, KnnExactRows rows, KnnPickResult out) {
  const std::uint64_t q = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (q >= a.n_left) return;  // uniform over the warp
  const int lane = threadIdx.x & 31;
  const std::uint32_t count = a.splits * a.picks_per_split;
  const std::uint32_t* picks = a.picks + q * count;
  const double* query = rows.left + q * rows.dim;
  WarpTopK<double, true> best;
  best.reset(k);
  for (std::uint32_t first = 0; first < count; first += 32) {
    const std::uint32_t p = first + lane;
    const std::uint32_t j = p < count ? picks[p] : UINT32_MAX;
    double distance = 0.0;
    if (j != UINT32_MAX) {
      const double* candidate = rows.right + std::uint64_t(j) * rows.dim;
      if (rows.left_norm) {
        distance = cosine_from_scaled_device(query, rows.left_norm[q], candidate,
                                             rows.right_norm[j], rows.dim);
      } else {
        const double no_bound = __longlong_as_double(0x7ff0000000000000LL);  // +infinity
        distance = finish_distance_device<Metric::Euclidean>(
            accumulate_bounded<Metric::Euclidean, 0>(query, candidate, rows.dim, no_bound));
      }
    }
    best.offer(j != UINT32_MAX, distance, j);
  }
  float unpicked = __int_as_float(0x7f800000);
  for (std::uint32_t s = lane; s < a.splits; s += 32)
    unpicked = fminf(unpicked, a.unpicked[q * a.splits + s]);
  for (int offset = 16; offset > 0; offset >>= 1)
    unpicked = fminf(unpicked, __shfl_xor_sync(0xffffffffu, unpicked, offset));
  const int place = best.rank(k);
  if (lane < k) {
    out.nearest[q * k + place] = best.index;
    out.distance[q * k + place] = best.key;
  }
  if (lane == 0) {
    out.kth[q] = best.worst;
    out.unpicked[q] = unpicked;
  }
}

__global__ void any_infinity_kernel(const double* coords, std::uint64_t count, int* found) {
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    if (isinf(coords[i])) *found = 1;
}

template <typename T>
__global__ void gather_rows_kernel(const T* src, const std::uint32_t* ids, std::uint32_t m,
                                   std::uint64_t padded_rows, int width, T pad, T* dst) {
  const std::uint64_t total = padded_rows * width;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t r = i / width;
    dst[i] = r < m ? src[std::uint64_t(ids[r]) * width + i % width] : pad;
  }
}

}  // namespace

std::uint32_t knn_pick_splits(std::uint32_t n_left, std::uint32_t n_right, int k) {
  constexpr std::uint32_t kTargetBlocks = 4096, kTilesPerBlock = 4;
  const std::uint32_t query_tiles = (n_left + kTile - 1) / kTile;
  const std::uint32_t candidate_tiles = (n_right + kTile - 1) / kTile;
  const int picks = knn_picks_per_split(k);
  const auto least = static_cast<std::uint32_t>(
      std::min<std::uint32_t>(candidate_tiles, (2 * k + picks - 1) / picks));
  return std::clamp<std::uint32_t>(
      std::max(least, std::min((kTargetBlocks + query_tiles - 1) / query_tiles,
                               std::max<std::uint32_t>(1, candidate_tiles / kTilesPerBlock))),
      1, 65535);
}

void pick_nearest(const KnnPickArgs& args, cudaStream_t stream) {
  if (args.n_left == 0) return;
  const int rows_per_warp = tuning().knn_pick_rows;
  if (rows_per_warp != 0 && args.padded_dim <= registers::kMaxDim) {
    pick_nearest_on_registers(args, rows_per_warp, stream);
    return;
  }
  const bool resident = args.padded_dim <= tile::kResidentDim && tuning().resident_queries;
  const auto kernel = resident ? &pick_nearest_kernel<true> : &pick_nearest_kernel<false>;
  const std::size_t shared_bytes = tile::kDotsBytes + (resident ? tile::kResidentBytes : 0);
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(shared_bytes)));
  const std::uint32_t query_tiles = (args.n_left + kTile - 1) / kTile;
  kernel<<<dim3(query_tiles, args.splits), kThreads, shared_bytes, stream>>>(args);
  CUDA_CHECK_LAUNCH();
}

void exact_picks(const KnnPickArgs& args, int k, const KnnExactRows& rows,
                 const KnnPickResult& out, cudaStream_t stream) {
  if (args.n_left == 0) return;
  constexpr int kBlock = 256;
  const std::uint64_t threads = std::uint64_t(args.n_left) * 32;
  exact_picks_kernel<<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock, 0,
                       stream>>>(args, k, rows, out);
  CUDA_CHECK_LAUNCH();
}

bool any_infinity(const double* coords, std::uint64_t count, cudaStream_t stream) {
  if (count == 0) return false;
  DeviceBuffer<int> found(1);
  CUDA_CHECK(cudaMemsetAsync(found.data(), 0, sizeof(int), stream));
  any_infinity_kernel<<<1024, 256, 0, stream>>>(coords, count, found.data());
  CUDA_CHECK_LAUNCH();
  int host = 0;
  CUDA_CHECK(cudaMemcpyAsync(&host, found.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return host != 0;
}

template <typename T>
void gather_rows(const T* src, const std::uint32_t* ids, std::uint32_t m,
                 std::uint64_t padded_rows, int width, T pad, T* dst, cudaStream_t stream) {
  if (padded_rows == 0 || width == 0) return;
  gather_rows_kernel<<<1024, 256, 0, stream>>>(src, ids, m, padded_rows, width, pad, dst);
  CUDA_CHECK_LAUNCH();
}

template void gather_rows<__half>(const __half*, const std::uint32_t*, std::uint32_t,
                                  std::uint64_t, int, __half, __half*, cudaStream_t);
template void gather_rows<float>(const float*, const std::uint32_t*, std::uint32_t,
                                 std::uint64_t, int, float, float*, cudaStream_t);
template void gather_rows<double>(const double*, const std::uint32_t*, std::uint32_t,
                                  std::uint64_t, int, double, double*, cudaStream_t);

}  // namespace simjoin::gpu
