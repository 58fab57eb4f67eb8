// Process-wide knobs of the GPU backend, for tests (small batches force many of them) and
// benchmarks; the defaults can be set by the environment variables named beside each knob
// (SIMJOIN_GPU_..., read on first use). Not synchronized: set them before joins start.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simjoin::gpu {

struct Tuning {
  // Pairs per GPU batch of the count/fill path (16 B each, on the device and pinned on the host).
  std::size_t device_batch_pairs = std::size_t(1) << 20;
  int streams = 3;  // batches in flight: kernel, device-to-host copy and sink hand-over overlap
  // Most pairs the count pass writes directly (single pass); 0 = always count then fill. Capped
  // at a quarter of the free device memory. SIMJOIN_GPU_DIRECT_PAIRS.
  std::size_t direct_pairs = std::size_t(1) << 29;
  // Pairs per pinned chunk when the direct result is copied to the host.
  std::size_t host_chunk_pairs = std::size_t(1) << 18;
  // The float32 prefilter (float_filter.cuh): false computes every candidate in double
  // (SIMJOIN_GPU_FLOAT_FILTER=0); float_margin scales its error bound and the tensor-core
  // filter's (tensor_filter.cuh) (1 = proven; tests only).
  bool float_filter = true;
  double float_margin = 1.0;
  // The kNN join settles a query from its picks where it can prove them complete
  // (knn_tensor_join.cuh); false sends every query through the second pass (tests).
  bool knn_settle = true;
  // The kNN picks keep a block's queries in shared memory where the rows fit
  // (tensor_tile.cuh, kResidentDim); false stages them with every candidate tile
  // (SIMJOIN_GPU_RESIDENT_QUERIES=0, to compare).
  bool resident_queries = true;
  // The kNN picks on the tensor cores' registers (knn_pick_registers.cu) with 16 or 32 queries
  // a warp, for rows of up to 128 padded dimensions; 0 always stages the dot products through
  // shared memory (SIMJOIN_GPU_KNN_PICK_ROWS).
  int knn_pick_rows = 16;
  // Grid kernel: -1 chooses by cell occupancy, 0 forces one query per thread, 1 the tiled kernel
  // where the dimension allows (SIMJOIN_GPU_TILES).
  int grid_tiles = -1;
  // Device memory the inputs of one join may take; larger inputs are joined in chunks
  // (engine/join/chunked_join.h). 0: half the free device memory (SIMJOIN_GPU_INPUT_BYTES).
  std::size_t input_bytes = 0;
  // SZL index: sort the curves with CUB's merge sort and z_compare instead of radix sorts on
  // materialized key words (SIMJOIN_GPU_ZSORT=compare; =keys, the default, for the radix sorts).
  bool szl_compare_sort = false;
  // SZL walk: read the build points from per-curve copies in curve order where they fit (false:
  // through the ids; SIMJOIN_GPU_SZL_COPIES=0).
  bool szl_curve_copies = true;
  // Brute force on tensor cores (tensor_join_kernel.cuh): -1 for Euclidean joins from 16
  // dimensions, 0 never, 1 for every Euclidean join (SIMJOIN_GPU_TENSOR).
  int tensor = -1;
  // Its dot products filtered on the tensor cores' registers (tensor_join_registers.cu) for rows
  // of up to 128 padded dimensions; false stages them through shared memory
  // (SIMJOIN_GPU_TENSOR_REGISTERS=0).
  bool tensor_registers = true;
  // Its rows ordered in space and its tile pairs pruned by bounding balls (tile_pruning.cuh);
  // false joins every tile pair in input order (SIMJOIN_GPU_TENSOR_PRUNE=0).
  bool tensor_prune = true;
  // Device aggregates (fold_pass.cuh): queries per launch of a fold pass; 0 adapts it to about
  // 0.1 s a launch (tests set a few hundred to force many launches).
  std::uint32_t fold_launch_queries = 0;
};

Tuning& tuning();

}  // namespace simjoin::gpu
