// The first pass of the k-nearest-neighbour join on tensor cores (knn_tensor_join.cuh): per
// query, the few dozen candidates of smallest FP16 distance (a GEMM tile at a time, a running
// top list per query row), then their exact distances: the k nearest of them and the k-th
// distance, an upper bound of the query's exact k-th nearest distance; and the smallest FP16
// distance left unpicked, which tells whether any other candidate can come closer.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "tensor_filter.cuh"

namespace simjoin::gpu {

// Candidates picked per query and split: more than k, so that the picks hold the answer with a
// margin the FP16 error cannot cross; at most a warp.
inline int knn_picks_per_split(int k) { return k > 16 ? 32 : k > 8 ? 24 : 16; }

struct KnnPickArgs {
  HalfRows left_half, right_half;  // right_half == left_half in a self-join
  std::uint32_t n_left = 0, n_right = 0;
  int padded_dim = 0;
  bool skip_diagonal = false;  // a self-join without (q, q)
  std::uint32_t splits = 1;    // the candidate tiles are split over this many blocks per query tile
  int picks_per_split = 32;        // knn_picks_per_split(k)
  std::uint32_t* picks = nullptr;  // n_left x splits x picks_per_split indexes (UINT32_MAX: fewer)
  float* unpicked = nullptr;  // n_left x splits: the largest FP16 distance picked (+inf: all were)
};

// The number of splits that keeps the device busy for n_left queries against n_right candidates,
// and gives each query at least 2k picks in all: a query is settled only where its unpicked
// candidates lie provably beyond its k-th nearest pick, which needs picks beyond the k-th (k = 32
// fills a warp's 32 picks: two splits give it 64).
std::uint32_t knn_pick_splits(std::uint32_t n_left, std::uint32_t n_right, int k);

// The picks, by the kernel tuning().knn_pick_rows chooses: the dot products filtered on the
// tensor cores' registers (knn_pick_registers.cu) for rows of up to registers::kMaxDim padded
// dimensions (register_tile.cuh), else staged through shared memory a tile at a time
// (tensor_tile.cuh).
void pick_nearest(const KnnPickArgs& args, cudaStream_t stream);

// rows_per_warp: 16 or 32 queries a warp (args.padded_dim <= registers::kMaxDim).
void pick_nearest_on_registers(const KnnPickArgs& args, int rows_per_warp, cudaStream_t stream);

// The exact rows the picks are measured on: coordinates (Euclidean) or, where left_norm is set,
// cosine's scaled rows and norms (device_cosine.cuh).
struct KnnExactRows {
  const double* left = nullptr;
  const double* right = nullptr;
  const double* left_norm = nullptr;
  const double* right_norm = nullptr;
  int dim = 0;
};

// Per query q, from its picks: nearest[q * k + r] and distance[q * k + r] (r < k), the k nearest
// picks by (exact distance, index), nearest first (UINT32_MAX and +infinity where fewer);
// kth[q], the k-th smallest exact distance (+infinity with fewer than k); unpicked[q], the
// smallest of the splits' unpicked values (no unpicked candidate has a smaller FP16 distance).
struct KnnPickResult {
  std::uint32_t* nearest;
  double* distance;
  double* kth;
  float* unpicked;
};
void exact_picks(const KnnPickArgs& args, int k, const KnnExactRows& rows,
                 const KnnPickResult& out, cudaStream_t stream);

// Whether any of the n x dim coordinates is +-infinity.
bool any_infinity(const double* coords, std::uint64_t count, cudaStream_t stream);

// dst row r = src row ids[r] (width values a row) for r < m, then `pad` up to padded_rows rows.
template <typename T>
void gather_rows(const T* src, const std::uint32_t* ids, std::uint32_t m,
                 std::uint64_t padded_rows, int width, T pad, T* dst, cudaStream_t stream);

}  // namespace simjoin::gpu
