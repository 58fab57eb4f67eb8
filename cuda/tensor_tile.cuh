// One tile of the tensor-core GEMM shared by the joins on tensor cores (tensor_join_kernel.cu,
// knn_tensor_kernel.cu): the FP16 dot products of 128 queries with 128 candidates, staged through
// shared memory in chunks of 64 dimensions, FP32 accumulation, stored row-major in shared memory.
#pragma once

#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>
#include <cstdint>

namespace simjoin::gpu::tile {

namespace wmma = nvcuda::wmma;

constexpr int kTile = 128;              // queries of a block, candidates of a tile
constexpr int kChunk = 64;              // dimensions per shared-memory stage
constexpr int kHalfPitch = kChunk + 8;  // halves per staged row (keeps fragment rows apart)
constexpr int kAccPitch = kTile + 4;    // floats per row of the dot products
constexpr int kWarps = 8;               // 4 x 2 warps, each 32 queries x 64 candidates
constexpr int kThreads = kWarps * 32;

struct Stage {
  __half query[kTile][kHalfPitch];
  __half candidate[kTile][kHalfPitch];
};
// The stage and the dot products share one region: the dot products replace the stage.
constexpr std::size_t kDotsBytes = std::max(sizeof(Stage), sizeof(float) * kTile * kAccPitch);
using Dots = float (*)[kAccPitch];

// Copies rows [first, first + kTile) of an FP16 matrix (pitch `pitch` halves), dimensions
// [k0, k0 + width), into a staged tile of PITCH halves a row (width: a multiple of 16).
template <int PITCH>
__device__ __forceinline__ void stage_rows(__half (*tile)[PITCH], const __half* rows,
                                           std::uint64_t first, int pitch, int k0, int width) {
  const int vectors = width / 8;  // 16-byte vectors per row
  for (int v = threadIdx.x; v < kTile * vectors; v += kThreads) {
    const int r = v / vectors, c = v % vectors;
    *reinterpret_cast<uint4*>(&tile[r][8 * c]) =
        *reinterpret_cast<const uint4*>(rows + (first + r) * pitch + k0 + 8 * c);
  }
}

// A block's query tile kept in shared memory for all its candidate tiles, where the rows are
// short enough (padded_dim <= kResidentDim): staged once instead of once a candidate tile.
constexpr int kResidentDim = 128;
constexpr int kResidentPitch = kResidentDim + 8;
using ResidentQueries = __half (*)[kResidentPitch];
constexpr std::size_t kResidentBytes = sizeof(__half) * kTile * kResidentPitch;

// Stages query rows [q0, q0 + kTile) whole into `resident`, then a barrier.
__device__ __forceinline__ void stage_resident(ResidentQueries resident, const __half* queries,
                                               std::uint64_t q0, int padded_dim) {
  stage_rows(resident, queries, q0, padded_dim, 0, padded_dim);
  __syncthreads();
}

// dots[r][c] = the FP32 dot product of query row q0 + r with candidate row c0 + c (FP16 rows of
// padded_dim halves, 128 rows readable from each), the queries read from `resident` where set
// (stage_resident) and staged with the candidates otherwise. Called by all kThreads threads; on
// return the dot products are visible to the whole block (the region held the stage before).
__device__ __forceinline__ void dot_products(unsigned char* region, const __half* queries,
                                             std::uint64_t q0, const __half* candidates,
                                             std::uint64_t c0, int padded_dim,
                                             ResidentQueries resident = nullptr) {
  Stage& stage = *reinterpret_cast<Stage*>(region);
  const int warp = threadIdx.x / 32, warp_row = warp / 2, warp_col = warp % 2;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < padded_dim; k0 += kChunk) {
    const int width = min(kChunk, padded_dim - k0);
    __syncthreads();  // the previous stage (or the previous tile's dot products) is read
    if (!resident) stage_rows(stage.query, queries, q0, padded_dim, k0, width);
    stage_rows(stage.candidate, candidates, c0, padded_dim, k0, width);
    __syncthreads();
    for (int k = 0; k < width; k += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> qf[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> cf[4];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int row = 32 * warp_row + 16 * i;
        if (resident)
          wmma::load_matrix_sync(qf[i], &resident[row][k0 + k], kResidentPitch);
        else
          wmma::load_matrix_sync(qf[i], &stage.query[row][k], kHalfPitch);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j)
        wmma::load_matrix_sync(cf[j], &stage.candidate[64 * warp_col + 16 * j][k], kHalfPitch);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], qf[i], cf[j], acc[i][j]);
    }
  }
  __syncthreads();  // every warp is done with the stage: the dot products take its place
  const Dots dots = reinterpret_cast<Dots>(region);
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      wmma::store_matrix_sync(&dots[32 * warp_row + 16 * i][64 * warp_col + 16 * j], acc[i][j],
                              kAccPitch, wmma::mem_row_major);
  __syncthreads();
}

}  // namespace simjoin::gpu::tile
