// The GEMM of the joins on tensor cores with the dot products kept in registers (rows of up to
// 128 padded FP16 dimensions; knn_pick_registers.cu, tensor_join_registers.cu): a block of 128
// queries, each warp holding its queries' rows as mma.sync fragments for the whole kernel, and
// the candidates streaming through two shared-memory stages by asynchronous copies, a tile of
// 128 landing while the one before it is multiplied. Each pass of a warp leaves the dot products
// of its rows with 8 * COLUMN_BLOCKS candidates in registers, to be filtered there.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "mma_sync.cuh"
#include "tensor_filter.cuh"
#include "tile_walk.cuh"

namespace simjoin::gpu::registers {

constexpr int kMaxDim = 128;           // padded dimensions held in registers
constexpr int kBlockQueries = 128;     // a block's queries
constexpr int kTileCandidates = 128;   // candidates of a staged tile
constexpr int kStagePitch = kMaxDim + 8;  // halves a staged row: ldmatrix without bank conflicts
constexpr int kMaxSteps = kMaxDim / 16;   // k-steps of m16n8k16

// One staged tile of candidates: the FP16 rows and the filter's per-row terms (HalfRows).
struct CandidateTile {
  __half rows[kTileCandidates][kStagePitch];
  float norm2[kTileCandidates];
  float reach[kTileCandidates];
  float norm[kTileCandidates];
  float slack[kTileCandidates];
};

// Starts the copies of candidate rows [c0, c0 + 128) (rows padded, so all exist) and their
// norms, with the bound terms where `bound_terms`.
__device__ __forceinline__ void stage_tile(CandidateTile& tile, const HalfRows& rows,
                                           int padded_dim, std::uint32_t c0, bool bound_terms) {
  const int vectors = padded_dim / 8;  // 16-byte vectors a row
  for (int v = threadIdx.x; v < kTileCandidates * vectors; v += blockDim.x) {
    const int r = v / vectors, c = v % vectors;
    mma::copy_async_16(&tile.rows[r][8 * c],
                       rows.coords + (std::uint64_t(c0) + r) * padded_dim + 8 * c);
  }
  constexpr int kVectors = kTileCandidates / 4;  // 16-byte vectors of a term
  const int term = threadIdx.x / kVectors, v = threadIdx.x % kVectors;
  if (term < (bound_terms ? 4 : 1)) {
    float* const to = term == 0 ? tile.norm2 : term == 1 ? tile.reach : term == 2 ? tile.norm
                                                                                  : tile.slack;
    const float* const from = term == 0   ? rows.norm2
                              : term == 1 ? rows.reach
                              : term == 2 ? rows.norm
                                          : rows.slack;
    mma::copy_async_16(to + 4 * v, from + c0 + 4 * v);
  }
}

// A warp's queries as A fragments, rows first_row + 16 b + g and + 8 (g = lane / 4) of block b.
template <int ROW_BLOCKS>
struct WarpQueries {
  std::uint32_t a[ROW_BLOCKS][kMaxSteps][4];

  __device__ __forceinline__ void load(const __half* coords, std::uint64_t first_row,
                                       int padded_dim) {
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3, steps = padded_dim / 16;
#pragma unroll
    for (int b = 0; b < ROW_BLOCKS; ++b) {
      const std::uint64_t low = first_row + 16 * b + g;
      const auto* low_row = reinterpret_cast<const std::uint32_t*>(coords + low * padded_dim);
      const auto* high_row = low_row + 4 * padded_dim;  // row low + 8
#pragma unroll
      for (int k = 0; k < kMaxSteps; ++k) {
        const bool used = k < steps;
        a[b][k][0] = used ? low_row[8 * k + t] : 0u;
        a[b][k][1] = used ? high_row[8 * k + t] : 0u;
        a[b][k][2] = used ? low_row[8 * k + 4 + t] : 0u;
        a[b][k][3] = used ? high_row[8 * k + 4 + t] : 0u;
      }
    }
  }
};

// acc[b][c] = the dot products of the warp's row block b with candidates first + 8c .. + 7 of
// the tile (the accumulator layout of mma_sync.cuh: rows g and g + 8, columns 2t and 2t + 1).
template <int ROW_BLOCKS, int COLUMN_BLOCKS>
__device__ __forceinline__ void multiply(float (&acc)[ROW_BLOCKS][COLUMN_BLOCKS][4],
                                         const WarpQueries<ROW_BLOCKS>& queries,
                                         const CandidateTile& tile, int first, int padded_dim) {
  static_assert(COLUMN_BLOCKS % 2 == 0, "ldmatrix.x4 loads two column blocks");
  const int lane = threadIdx.x & 31, steps = padded_dim / 16;
  __syncwarp();  // ldmatrix and mma.sync need the whole warp, converged
#pragma unroll
  for (int b = 0; b < ROW_BLOCKS; ++b)
#pragma unroll
    for (int c = 0; c < COLUMN_BLOCKS; ++c)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[b][c][i] = 0.0f;
#pragma unroll
  for (int k = 0; k < kMaxSteps; ++k) {
    if (k >= steps) break;
#pragma unroll
    for (int c = 0; c < COLUMN_BLOCKS; c += 2) {
      // Matrices: candidates first + 8c .. + 7 at dimensions 16k and 16k + 8, then the next 8.
      std::uint32_t b[4];
      const int row = first + 8 * c + (lane & 7) + 8 * (lane >> 4);
      mma::load_matrices_x4(b, &tile.rows[row][16 * k + 8 * ((lane >> 3) & 1)]);
#pragma unroll
      for (int r = 0; r < ROW_BLOCKS; ++r) {
        mma::product_m16n8k16(acc[r][c], queries.a[r][k], b[0], b[1]);
        mma::product_m16n8k16(acc[r][c + 1], queries.a[r][k], b[2], b[3]);
      }
    }
  }
}

// Calls f(r, c, i) for each accumulator acc[r][c][i] of a pass, unrolled (so that f may index
// register arrays with them), in the order of bit (r * COLUMN_BLOCKS + c) * 4 + i.
template <int ROW_BLOCKS, int COLUMN_BLOCKS, typename F>
__device__ __forceinline__ void for_each_accumulator(F&& f) {
#pragma unroll
  for (int r = 0; r < ROW_BLOCKS; ++r)
#pragma unroll
    for (int c = 0; c < COLUMN_BLOCKS; ++c)
#pragma unroll
      for (int i = 0; i < 4; ++i) f(r, c, i);
}

// Runs on_tile(staged tile, c0) for the candidate tiles of `walk` from its offset-th visited tile
// at or after `first` (tile_walk.cuh), each tile's copies started while the one before it is
// processed (every thread of the block calls it; on_tile may read the stage until it returns).
template <typename OnTile>
__device__ __forceinline__ void for_each_tile(CandidateTile (&stage)[2], const HalfRows& rows,
                                              int padded_dim, bool bound_terms,
                                              const TileWalk& walk, std::uint32_t first,
                                              std::uint32_t offset, OnTile&& on_tile) {
  std::uint32_t tile = walk.start(first, offset);
  if (tile < walk.tiles)
    stage_tile(stage[0], rows, padded_dim, tile * kTileCandidates, bound_terms);
  mma::commit_copies();
  int buffer = 0;
  while (tile < walk.tiles) {
    const std::uint32_t next = walk.next(tile);
    if (next < walk.tiles)
      stage_tile(stage[buffer ^ 1], rows, padded_dim, next * kTileCandidates, bound_terms);
    mma::commit_copies();
    mma::wait_copies<1>();  // this tile's copies are done; the next tile's may still run
    __syncthreads();
    on_tile(stage[buffer], tile * kTileCandidates);
    __syncthreads();  // the stage is read: the next round's copies may overwrite it
    tile = next;
    buffer ^= 1;
  }
}

}  // namespace simjoin::gpu::registers
