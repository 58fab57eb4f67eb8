// The kNN join's pick pass (knn_tensor_kernel.cuh) with the dot products kept in registers, for
// rows of up to 128 padded dimensions: each warp holds its 16 or 32 queries' FP16 rows as mma.sync
// fragments for the whole kernel, the candidate tiles stream through two shared-memory stages
// by asynchronous copies (the next tile lands while the current one is multiplied), and each
// FP16 distance is compared on its accumulator register with the current largest pick of its
// query: the few that come closer go to the query's list in shared memory. The picks mean what
// the tile kernel's mean: every unpicked candidate's FP16 distance is at least the largest pick.
#include <cuda_fp16.h>

#include <cstdint>

#include "cuda_check.h"
#include "knn_tensor_kernel.cuh"
#include "register_tile.cuh"

namespace simjoin::gpu {
namespace {

using registers::CandidateTile;
using registers::kBlockQueries;
using registers::kTileCandidates;
constexpr int kListWidth = 32;  // a query's list: at most a warp of picks
constexpr unsigned kAll = 0xffffffffu;

// Each query's picks: keys (FP16 distances) and candidate indexes, entries from picks_per_split
// on at -infinity (never the largest), and the largest held (+infinity until the list is full).
struct PickLists {
  float key[kBlockQueries][kListWidth];
  std::uint32_t index[kBlockQueries][kListWidth];
  float worst[kBlockQueries];
};

struct PickShared {
  CandidateTile stage[2];
  PickLists lists;
};

// Offers (key, index) to query row's list (the whole warp, key and index the same in every
// lane): below the largest held, it takes that entry's place.
__device__ __forceinline__ void offer_to_list(PickLists& lists, int row, float key,
                                              std::uint32_t index, int lane) {
  const float worst = lists.worst[row];
  if (!(key < worst)) return;  // uniform over the warp
  float held = lists.key[row][lane];
  const unsigned holders = __ballot_sync(kAll, held == worst);
  if (lane == __ffs(holders) - 1) {
    lists.key[row][lane] = key;
    lists.index[row][lane] = index;
    held = key;
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    held = fmaxf(held, __shfl_xor_sync(kAll, held, offset));
  __syncwarp();  // every lane has read the old largest
  if (lane == 0) lists.worst[row] = held;
  __syncwarp();
}

// ROW_BLOCKS: a warp's queries in blocks of 16 (1: eight warps, 64 candidates a pass; 2: four
// warps, 32 candidates a pass); either way 32 accumulators a thread and 128 queries a block.
template <int ROW_BLOCKS>
__global__ void __launch_bounds__(256 / ROW_BLOCKS, 2) pick_on_registers_kernel(KnnPickArgs a) {
  constexpr int kRowsPerWarp = 16 * ROW_BLOCKS;
  constexpr int kColumnBlocks = 8 / ROW_BLOCKS;  // blocks of 8 candidates a pass
  constexpr int kPassColumns = 8 * kColumnBlocks;
  static_assert(ROW_BLOCKS * kColumnBlocks * 4 == 32, "one bit a thread's accumulator");
  extern __shared__ __align__(128) unsigned char shared_bytes[];
  PickShared& s = *reinterpret_cast<PickShared*>(shared_bytes);
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const std::uint32_t q0 = blockIdx.x * kBlockQueries;
  const int warp_row0 = warp * kRowsPerWarp;  // the warp's first query within the block
  const std::uint32_t tiles = (a.n_right + kTileCandidates - 1) / kTileCandidates;

  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int row = warp_row0 + r;
    s.lists.key[row][lane] = lane < a.picks_per_split ? __int_as_float(0x7f800000)
                                                      : __int_as_float(0xff800000);
    s.lists.index[row][lane] = UINT32_MAX;
    if (lane == 0) s.lists.worst[row] = __int_as_float(0x7f800000);
  }

  // The warp's query rows as A fragments, and their norms (rows g and g + 8 of each block).
  registers::WarpQueries<ROW_BLOCKS> queries;
  queries.load(a.left_half.coords, q0 + warp_row0, a.padded_dim);
  float query_norm2[ROW_BLOCKS][2];
#pragma unroll
  for (int b = 0; b < ROW_BLOCKS; ++b)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      query_norm2[b][h] = a.left_half.norm2[q0 + warp_row0 + 16 * b + g + 8 * h];
  __syncwarp();
  float threshold[ROW_BLOCKS][2];
  const auto refresh_thresholds = [&] {
#pragma unroll
    for (int b = 0; b < ROW_BLOCKS; ++b)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        threshold[b][h] = s.lists.worst[warp_row0 + 16 * b + g + 8 * h];
  };
  refresh_thresholds();

  const auto on_tile = [&](const CandidateTile& staged, std::uint32_t c0) {
    const bool diagonal = a.skip_diagonal && c0 == q0;
    for (int pass = 0; pass < kTileCandidates / kPassColumns; ++pass) {
      const int first = pass * kPassColumns;  // the pass's first candidate within the tile
      float acc[ROW_BLOCKS][kColumnBlocks][4];
      registers::multiply(acc, queries, staged, first, a.padded_dim);
      // The FP16 distances, in place of the dot products, and which of them come closer.
      std::uint32_t closer = 0;
      registers::for_each_accumulator<ROW_BLOCKS, kColumnBlocks>([&](int r, int c, int i) {
        const int column = first + 8 * c + 2 * t + (i & 1);
        const int row = warp_row0 + 16 * r + g + 8 * (i >> 1);
        acc[r][c][i] =
            approx_distance(acc[r][c][i], query_norm2[r][i >> 1], staged.norm2[column]);
        bool enters = acc[r][c][i] < threshold[r][i >> 1];  // NaN (padding) never enters
        if (diagonal) enters = enters && column != row;
        closer |= std::uint32_t(enters) << ((r * kColumnBlocks + c) * 4 + i);
      });
      if (!__any_sync(kAll, closer != 0)) continue;
      registers::for_each_accumulator<ROW_BLOCKS, kColumnBlocks>([&](int r, int c, int i) {
        unsigned from = __ballot_sync(kAll, (closer >> ((r * kColumnBlocks + c) * 4 + i)) & 1);
        while (from) {
          const int source = __ffs(from) - 1;
          from &= from - 1;
          const float key = __shfl_sync(kAll, acc[r][c][i], source);
          const int row = warp_row0 + 16 * r + (source >> 2) + 8 * (i >> 1);
          const std::uint32_t column = c0 + first + 8 * c + 2 * (source & 3) + (i & 1);
          offer_to_list(s.lists, row, key, column, lane);
        }
      });
      refresh_thresholds();
    }
  };
  registers::for_each_tile(s.stage, a.right_half, a.padded_dim, false, TileWalk{tiles, a.splits},
                           0, blockIdx.y, on_tile);

  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int row = warp_row0 + r;
    const std::uint32_t q = q0 + row;
    if (q >= a.n_left) break;
    const std::uint64_t slot = std::uint64_t(q) * a.splits + blockIdx.y;
    if (lane < a.picks_per_split)
      a.picks[slot * a.picks_per_split + lane] = s.lists.index[row][lane];
    if (lane == 0) a.unpicked[slot] = s.lists.worst[row];
  }
}

}  // namespace

void pick_nearest_on_registers(const KnnPickArgs& args, int rows_per_warp, cudaStream_t stream) {
  const bool wide = rows_per_warp == 32;
  const auto kernel = wide ? &pick_on_registers_kernel<2> : &pick_on_registers_kernel<1>;
  const int shared_bytes = static_cast<int>(sizeof(PickShared));
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  shared_bytes));
  const std::uint32_t query_blocks = (args.n_left + kBlockQueries - 1) / kBlockQueries;
  kernel<<<dim3(query_blocks, args.splits), wide ? 128 : 256, shared_bytes, stream>>>(args);
  CUDA_CHECK_LAUNCH();
}

}  // namespace simjoin::gpu
