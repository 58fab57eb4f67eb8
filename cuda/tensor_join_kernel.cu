// The tensor-core brute-force join kernel and its launches (see tensor_join_kernel.cuh).
#include "tensor_join_kernel.cuh"

#include <algorithm>

#include "cuda_check.h"
#include "gpu_tuning.h"
#include "kernel_dispatch.cuh"
#include "tensor_pair_decision.cuh"
#include "tensor_tile.cuh"
#include "tile_walk.cuh"

namespace simjoin::gpu {
namespace {

using tile::kAccPitch;
using tile::kThreads;
using tile::kTile;
using tile::kWarps;
constexpr int kCandidateTilesPerBlock = 16;  // at least, where there are as many

// The candidates that passed the float test, waiting for their exact test: the block's query
// row (0..127) and the candidate's index. Deciding them in batches lets every thread of the block
// test one pair on its own (the sum in dimension order, as on the CPU) instead of a warp
// summing one pair through a chain of shuffles.
constexpr int kPendingCapacity = 2048;
constexpr int kFlushAt = kPendingCapacity - kWarps * kTile;  // above it, a round may not fit
struct Pending {
  std::uint32_t candidate[kPendingCapacity];
  std::uint32_t row_found[kTile];  // the count pass's matches per query row
  int size;
  std::uint8_t row[kPendingCapacity];
};
constexpr std::size_t kPendingOffset = (tile::kDotsBytes + 15) / 16 * 16;
constexpr std::size_t kSharedBytes = kPendingOffset + sizeof(Pending);

// Decides the pending candidates of queries q0 + row (after a barrier that made every append
// visible): each thread tests pairs on its own (tensor_pair_decision.cuh), then counts or
// stores the matches.
template <bool FILL, bool FOLD>
__device__ __forceinline__ void decide_pending(Pending& pending, const TensorJoinArgs& a,
                                               std::uint32_t q0,
                                               const std::uint64_t* __restrict__ offsets,
                                               std::uint64_t base,
                                               std::uint32_t* __restrict__ cursors,
                                               const PairOutput& out, const DirectOutput& direct) {
  const int size = pending.size;
  for (int i = threadIdx.x; i < size; i += kThreads) {
    decide_and_record<FILL, FOLD>(a, q0 + pending.row[i], pending.candidate[i],
                                  &pending.row_found[pending.row[i]], offsets, base, cursors, out,
                                  direct);
  }
  __syncthreads();  // every pending pair is read
  if (threadIdx.x == 0) pending.size = 0;
  __syncthreads();
}

// One block: the queries [q0, q0 + 128) (those below q_end) against candidate tiles
// first_tile, first_tile + gridDim.y, ...: dot products on tensor cores into shared memory,
// then one warp per query row applies the float test to the row's 128 candidates (lane l:
// columns l, l+32, ...) and queues those that pass; the queue is decided whenever a round of
// rows might no longer fit, and at the end.
template <bool FILL, bool FOLD>
__global__ void __launch_bounds__(kThreads, 2)
    tensor_join(TensorJoinArgs a, std::uint32_t q_begin, std::uint32_t q_end,
                std::uint32_t* __restrict__ counts, unsigned long long* __restrict__ candidates,
                const std::uint64_t* __restrict__ offsets, std::uint64_t base,
                std::uint32_t* __restrict__ cursors, PairOutput out, DirectOutput direct) {
  extern __shared__ __align__(128) unsigned char shared[];
  const tile::Dots dots = reinterpret_cast<tile::Dots>(shared);
  Pending& pending = *reinterpret_cast<Pending*>(shared + kPendingOffset);
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const std::uint32_t q0 = q_begin + blockIdx.x * kTile;
  const std::uint32_t tiles = (a.n_right + kTile - 1) / kTile;
  // A self-join's pairs have j > q: tiles that end at or before q0 + 1 hold none.
  const std::uint32_t first_tile = a.self_join ? (q0 + 1) / kTile : 0;
  unsigned long long evaluated = 0;
  if (threadIdx.x == 0) pending.size = 0;
  if constexpr (!FILL)
    for (int r = threadIdx.x; r < kTile; r += kThreads) pending.row_found[r] = 0;

  const TileWalk walk =
      masked_tile_walk(a.visits, a.visit_words, a.visit_rows, q0, tiles, gridDim.y);
  for (std::uint32_t t = walk.start(first_tile, blockIdx.y); t < tiles; t = walk.next(t)) {
    const std::uint32_t c0 = t * kTile;
    tile::dot_products(shared, a.left_half.coords, q0, a.right_half.coords, c0, a.padded_dim);

    // This lane's four candidates and their bound terms.
    float c_norm2[4], c_reach[4], c_norm[4], c_slack[4];
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      const std::uint32_t j = c0 + lane + 32 * m;
      c_norm2[m] = a.right_half.norm2[j];  // padding rows hold NaN: never a candidate
      c_reach[m] = a.right_half.reach[j];
      c_norm[m] = a.right_half.norm[j];
      c_slack[m] = a.right_half.slack[j];
    }
    // Rounds of kWarps rows (one a warp) append at most kWarps * kTile pairs.
    for (int round = 0; round < kTile; round += kWarps) {
      const int r = round + warp;
      int appended_end = 0;  // where this warp's last append ended
      const std::uint32_t q = q0 + r;
      const std::uint32_t q_id = a.left_ids && q < q_end ? a.left_ids[q] : q;
      if (q < q_end) {  // uniform over the warp
        const float q_norm2 = a.left_half.norm2[q], q_reach = a.left_half.reach[q],
                    q_slack = a.left_half.slack[q];
        const float q_gemm_norm = a.filter.gemm * a.left_half.norm[q];
#pragma unroll
        for (int m = 0; m < 4; ++m) {
          const std::uint32_t j = c0 + lane + 32 * m;
          const bool valid =
              j < a.n_right && (!a.self_join || j > q) && !(a.skip_diagonal && j == q_id);
          evaluated += valid;
          const bool candidate = valid && may_match(dots[r][lane + 32 * m], q_norm2, c_norm2[m],
                                                    q_reach, c_reach[m], q_gemm_norm, c_norm[m],
                                                    q_slack, c_slack[m]);
          const unsigned ballot = __ballot_sync(0xffffffffu, candidate);
          if (ballot == 0) continue;
          int slot = 0;
          if (lane == 0) slot = atomicAdd(&pending.size, __popc(ballot));
          slot = __shfl_sync(0xffffffffu, slot, 0);
          appended_end = slot + __popc(ballot);
          slot += __popc(ballot & ((1u << lane) - 1));
          if (candidate) {
            pending.candidate[slot] = j;
            pending.row[slot] = static_cast<std::uint8_t>(r);
          }
        }
      }
      // A barrier that also tells every thread whether the queue ended above kFlushAt (the
      // warp that appended last saw its end).
      if (__syncthreads_or(appended_end > kFlushAt))
        decide_pending<FILL, FOLD>(pending, a, q0, offsets, base, cursors, out, direct);
    }
  }
  __syncthreads();
  decide_pending<FILL, FOLD>(pending, a, q0, offsets, base, cursors, out, direct);
  if constexpr (!FILL) {
    for (int r = threadIdx.x; r < kTile; r += kThreads)
      if (pending.row_found[r] > 0) atomicAdd(counts + q0 + r, pending.row_found[r]);
    add_candidates(candidates, evaluated);
  }
}

template <bool FILL, bool FOLD>
void launch_tensor_join(const TensorJoinArgs& args, std::uint32_t q_begin, std::uint32_t q_end,
                        std::uint32_t* counts, unsigned long long* candidates,
                        const std::uint64_t* offsets, std::uint64_t base, std::uint32_t* cursors,
                        const PairOutput& out, const DirectOutput& direct, cudaStream_t stream) {
  if (q_end <= q_begin) return;
  const std::uint32_t query_tiles = (q_end - q_begin + kTile - 1) / kTile;
  const std::uint32_t candidate_tiles = (args.n_right + kTile - 1) / kTile;
  // Enough blocks to fill the device several times over, each with a run of candidate tiles.
  constexpr std::uint32_t kTargetBlocks = 4096;
  const std::uint32_t split = std::clamp<std::uint32_t>(
      std::min((kTargetBlocks + query_tiles - 1) / query_tiles,
               std::max<std::uint32_t>(1, candidate_tiles / kCandidateTilesPerBlock)),
      1, 65535);
  const dim3 grid(query_tiles, split);
  if (tuning().tensor_registers && tensor_join_fits_registers(args)) {
    launch_tensor_join_on_registers(FILL, FOLD, grid, args, q_begin, q_end, counts, candidates,
                                    offsets, base, cursors, out, direct, stream);
    return;
  }
  const auto kernel = &tensor_join<FILL, FOLD>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(kSharedBytes)));
  kernel<<<grid, kThreads, kSharedBytes, stream>>>(args, q_begin, q_end, counts, candidates,
                                                   offsets, base, cursors, out, direct);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

TensorJoinArgs tensor_join_args(const TensorInputs& inputs, const double* left,
                                std::uint32_t n_left, const double* right, std::uint32_t n_right,
                                int dim, double bound) {
  TensorJoinArgs args;
  args.left = left;
  args.right = right ? right : left;
  args.n_left = n_left;
  args.n_right = right ? n_right : n_left;
  args.dim = dim;
  args.padded_dim = inputs.padded_dim;
  args.self_join = right == nullptr;
  args.bound = bound;
  args.left_half = rows_of(inputs.left);
  args.right_half = rows_of(right ? inputs.right : inputs.left);
  args.filter = inputs.filter;
  args.left_order = inputs.left_order.data();
  args.right_order = right ? inputs.right_order.data() : args.left_order;
  return args;
}

TileMask use_tile_mask(TensorJoinArgs& args, const TensorInputs& inputs, cudaStream_t stream) {
  if (!args.left_order) return TileMask();
  TileMask mask = tile_pair_mask(inputs.left, args.n_left,
                                 args.self_join ? nullptr : &inputs.right, args.n_right,
                                 args.padded_dim, stream);
  args.visits = mask.bits.data();
  args.visit_words = mask.words;
  args.visit_rows = mask.rows;
  return mask;
}

TensorJoinProducer::TensorJoinProducer(const TensorJoinArgs& args)
    : args_(args), cursors_(args.n_left) {}

void TensorJoinProducer::count_range(std::uint32_t q_begin, std::uint32_t q_end,
                                     std::uint32_t* counts, unsigned long long* candidates,
                                     const DirectOutput& direct, cudaStream_t stream) const {
  if (q_end <= q_begin) return;
  CUDA_CHECK(cudaMemsetAsync(counts + q_begin, 0, sizeof(std::uint32_t) * (q_end - q_begin),
                             stream));
  if (direct.fold.kind != FoldKind::None)
    launch_tensor_join<false, true>(args_, q_begin, q_end, counts, candidates, nullptr, 0,
                                    nullptr, PairOutput{}, direct, stream);
  else
    launch_tensor_join<false, false>(args_, q_begin, q_end, counts, candidates, nullptr, 0,
                                     nullptr, PairOutput{}, direct, stream);
}

void TensorJoinProducer::fill(std::uint32_t q_begin, std::uint32_t q_end,
                              const std::uint64_t* offsets, std::uint64_t base,
                              const PairOutput& out, cudaStream_t stream) const {
  if (q_end <= q_begin) return;
  CUDA_CHECK(cudaMemsetAsync(cursors_.data() + q_begin, 0,
                             sizeof(std::uint32_t) * (q_end - q_begin), stream));
  launch_tensor_join<true, false>(args_, q_begin, q_end, nullptr, nullptr, offsets, base,
                                  cursors_.data(), out, DirectOutput{}, stream);
}

}  // namespace simjoin::gpu
