// The brute-force join on tensor cores (tensor_join_kernel.cuh) with the dot products kept in
// registers (register_tile.cuh), for rows of up to 128 padded dimensions. Each FP16 distance is
// first compared, on its accumulator register, with one limit per query and tile: the filter's
// bound (tensor_filter.cuh) taken with the largest terms of the tile's candidates, which is at
// least every pair's own. The few that pass are tested with their own terms, queued per warp
// over tiles, and decided exactly a lane a pair (tensor_pair_decision.cuh). The pairs, counts and
// candidates are the staged kernel's.
#include <cstdint>

#include "cuda_check.h"
#include "register_tile.cuh"
#include "tensor_join_kernel.cuh"
#include "tensor_pair_decision.cuh"

namespace simjoin::gpu {
namespace {

using registers::CandidateTile;
using registers::kBlockQueries;
using registers::kTileCandidates;
constexpr int kWarps = 8;  // 16 queries each
constexpr int kThreads = 32 * kWarps;
constexpr int kColumnBlocks = 8;  // a pass: 64 candidates
constexpr int kPassColumns = 8 * kColumnBlocks;
constexpr unsigned kAll = 0xffffffffu;

// Each warp's candidates that passed the float test, (query within the block) << 25 | candidate
// (so candidates below 2^25: kMaxCandidates), carried over tiles and decided a round of lanes at
// a time once a pass might no longer fit (a pass adds at most 16 x 64).
constexpr int kQueueCapacity = 16 * kPassColumns + 128;
constexpr int kDecideAbove = kQueueCapacity - 16 * kPassColumns;
constexpr int kCandidateBits = 25;

struct JoinShared {
  CandidateTile stage[2];
  std::uint32_t queue[kWarps][kQueueCapacity];
  int queue_size[kWarps];
  std::uint32_t row_found[kBlockQueries];  // the count pass's pairs per query
};

// The largest of each bound term over the tile's candidates (NaN rows left out; terms are >= 0).
struct TileMaxima {
  float reach = 0.0f, norm = 0.0f, slack = 0.0f;
};
__device__ __forceinline__ TileMaxima tile_maxima(const CandidateTile& tile, int lane) {
  TileMaxima m;
#pragma unroll
  for (int i = lane; i < kTileCandidates; i += 32) {
    m.reach = fmaxf(m.reach, tile.reach[i]);
    m.norm = fmaxf(m.norm, tile.norm[i]);
    m.slack = fmaxf(m.slack, tile.slack[i]);
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    m.reach = fmaxf(m.reach, __shfl_xor_sync(kAll, m.reach, offset));
    m.norm = fmaxf(m.norm, __shfl_xor_sync(kAll, m.norm, offset));
    m.slack = fmaxf(m.slack, __shfl_xor_sync(kAll, m.slack, offset));
  }
  return m;
}

// One query's filter terms (the staged kernel's per-row values).
struct QueryTerms {
  float norm2, reach, gemm_norm, slack;
  bool live;  // below q_end
};

// Decides the warp's queue, a lane a pair, and empties it (every lane of the warp calls it).
template <bool FILL, bool FOLD>
__device__ __forceinline__ void decide_queue_of_warp(JoinShared& s, int warp,
                                                     const TensorJoinArgs& a, std::uint32_t q0,
                                                     const std::uint64_t* __restrict__ offsets,
                                                     std::uint64_t base,
                                                     std::uint32_t* __restrict__ cursors,
                                                     const PairOutput& out,
                                                     const DirectOutput& direct) {
  const int lane = threadIdx.x & 31;
  __syncwarp();
  const int size = s.queue_size[warp];
  for (int i = lane; i < size; i += 32) {
    const std::uint32_t entry = s.queue[warp][i];
    const std::uint32_t row = entry >> kCandidateBits;
    decide_and_record<FILL, FOLD>(a, q0 + row, entry & ((1u << kCandidateBits) - 1),
                                  &s.row_found[row], offsets, base, cursors, out, direct);
  }
  __syncwarp();
  if (lane == 0) s.queue_size[warp] = 0;
  __syncwarp();
}

template <bool FILL, bool FOLD>
__global__ void __launch_bounds__(kThreads, 2)
    tensor_join_on_registers(TensorJoinArgs a, std::uint32_t q_begin, std::uint32_t q_end,
                             std::uint32_t* __restrict__ counts,
                             unsigned long long* __restrict__ candidates,
                             const std::uint64_t* __restrict__ offsets, std::uint64_t base,
                             std::uint32_t* __restrict__ cursors, PairOutput out,
                             DirectOutput direct) {
  extern __shared__ __align__(128) unsigned char shared_bytes[];
  JoinShared& s = *reinterpret_cast<JoinShared*>(shared_bytes);
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const std::uint32_t q0 = q_begin + blockIdx.x * kBlockQueries;
  const int warp_row0 = 16 * warp;
  const std::uint32_t tiles = (a.n_right + kTileCandidates - 1) / kTileCandidates;
  // A self-join's pairs have j > q: tiles that end at or before q0 + 1 hold none.
  const std::uint32_t first_tile = a.self_join ? (q0 + 1) / kTileCandidates : 0;
  if constexpr (!FILL)
    for (int r = threadIdx.x; r < kBlockQueries; r += kThreads) s.row_found[r] = 0;
  if (lane == 0) s.queue_size[warp] = 0;

  registers::WarpQueries<1> queries;
  queries.load(a.left_half.coords, q0 + warp_row0, a.padded_dim);
  QueryTerms terms[2];  // rows g and g + 8 of the warp
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const std::uint32_t q = q0 + warp_row0 + g + 8 * h;
    terms[h] = QueryTerms{a.left_half.norm2[q], a.left_half.reach[q],
                          a.filter.gemm * a.left_half.norm[q], a.left_half.slack[q], q < q_end};
  }
  // The candidates' count: lane l < 16 counts query warp_row0 + l's valid pairs of each tile.
  const std::uint32_t my_query = q0 + warp_row0 + (lane & 15);
  const std::uint32_t my_id = a.left_ids && my_query < q_end ? a.left_ids[my_query] : my_query;
  unsigned long long evaluated = 0;

  const auto decide_queue = [&] {
    decide_queue_of_warp<FILL, FOLD>(s, warp, a, q0, offsets, base, cursors, out, direct);
  };

  const auto on_tile = [&](const CandidateTile& staged, std::uint32_t c0) {
    if (lane < 16 && my_query < q_end) {
      std::uint32_t low = c0;
      const std::uint32_t high = min(c0 + kTileCandidates, a.n_right);
      if (a.self_join) low = max(low, my_query + 1);
      if (high > low) {
        evaluated += high - low;
        if (a.skip_diagonal && my_id >= low && my_id < high) --evaluated;
      }
    }
    const TileMaxima maxima = tile_maxima(staged, lane);
    float coarse[2];  // a limit for every pair of the row with this tile (NaN: a dead row)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      coarse[h] = terms[h].live ? approx_limit(terms[h].reach + maxima.reach, terms[h].gemm_norm,
                                               maxima.norm, terms[h].slack, maxima.slack)
                                : __int_as_float(0x7fc00000);
    const bool ordered = a.self_join && c0 < q0 + kBlockQueries;  // may hold pairs with j <= q
    for (int pass = 0; pass < kTileCandidates / kPassColumns; ++pass) {
      __syncwarp();
      if (s.queue_size[warp] > kDecideAbove) decide_queue();  // uniform over the warp
      const int first = pass * kPassColumns;
      float acc[1][kColumnBlocks][4];
      registers::multiply(acc, queries, staged, first, a.padded_dim);
      std::uint32_t near = 0;
#pragma unroll
      for (int c = 0; c < kColumnBlocks; ++c)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int column = first + 8 * c + 2 * t + (i & 1);
          acc[0][c][i] =
              approx_distance(acc[0][c][i], terms[i >> 1].norm2, staged.norm2[column]);
          near |= std::uint32_t(acc[0][c][i] <= coarse[i >> 1]) << (4 * c + i);
        }
      if (near == 0) continue;  // the usual case: nothing of this thread's is near
#pragma unroll
      for (int c = 0; c < kColumnBlocks; ++c)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          if (!((near >> (4 * c + i)) & 1)) continue;
          const int h = i >> 1, row = warp_row0 + g + 8 * h;
          const int column = first + 8 * c + 2 * t + (i & 1);
          const std::uint32_t q = q0 + row, j = c0 + column;
          const std::uint32_t q_id = a.left_ids ? a.left_ids[q] : q;
          const bool valid =
              j < a.n_right && (!ordered || j > q) && !(a.skip_diagonal && j == q_id);
          if (valid && approx_may_match(acc[0][c][i], terms[h].reach + staged.reach[column],
                                        terms[h].gemm_norm, staged.norm[column], terms[h].slack,
                                        staged.slack[column])) {
            const int slot = atomicAdd(&s.queue_size[warp], 1);
            s.queue[warp][slot] = std::uint32_t(row) << kCandidateBits | j;
          }
        }
    }
  };
  const TileWalk walk =
      masked_tile_walk(a.visits, a.visit_words, a.visit_rows, q0, tiles, gridDim.y);
  registers::for_each_tile(s.stage, a.right_half, a.padded_dim, true, walk, first_tile,
                           blockIdx.y, on_tile);
  decide_queue();

  if constexpr (!FILL) {
    __syncthreads();
    for (int r = threadIdx.x; r < kBlockQueries; r += kThreads)
      if (s.row_found[r] > 0) atomicAdd(counts + q0 + r, s.row_found[r]);
    add_candidates(candidates, evaluated);
  }
}

template <bool FILL, bool FOLD>
void launch(dim3 grid, const TensorJoinArgs& args, std::uint32_t q_begin, std::uint32_t q_end,
            std::uint32_t* counts, unsigned long long* candidates, const std::uint64_t* offsets,
            std::uint64_t base, std::uint32_t* cursors, const PairOutput& out,
            const DirectOutput& direct, cudaStream_t stream) {
  const auto kernel = &tensor_join_on_registers<FILL, FOLD>;
  constexpr int kSharedBytes = static_cast<int>(sizeof(JoinShared));
  CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  kernel<<<grid, kThreads, kSharedBytes, stream>>>(args, q_begin, q_end, counts, candidates,
                                                   offsets, base, cursors, out, direct);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

bool tensor_join_fits_registers(const TensorJoinArgs& args) {
  return args.padded_dim <= registers::kMaxDim && args.n_right < (1u << kCandidateBits);
}

void launch_tensor_join_on_registers(bool fill, bool fold, dim3 grid, const TensorJoinArgs& args,
                                     std::uint32_t q_begin, std::uint32_t q_end,
                                     std::uint32_t* counts, unsigned long long* candidates,
                                     const std::uint64_t* offsets, std::uint64_t base,
                                     std::uint32_t* cursors, const PairOutput& out,
                                     const DirectOutput& direct, cudaStream_t stream) {
  const auto run = fill   ? &launch<true, false>
                   : fold ? &launch<false, true>
                          : &launch<false, false>;
  run(grid, args, q_begin, q_end, counts, candidates, offsets, base, cursors, out, direct, stream);
}

}  // namespace simjoin::gpu
