// The tiled eps-grid join kernel, for grids whose cells hold many points (high dimensions, where
// the grid prunes little and the per-thread kernel's scattered candidate loads dominate): a block
// takes a window of consecutive sorted queries and, for each cell among them, walks the cell's
// stencil once, staging each range of candidates through shared memory in tiles that every query
// of the cell reads from there (a broadcast) instead of from global memory.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/types.h"
#include "grid_join_kernel.cuh"
#include "pair_producer.cuh"

namespace simjoin::gpu {

// Candidates per shared-memory tile for points of `dim` dimensions; 0 where a useful tile does not
// fit the shared memory of a block.
std::uint32_t grid_tile_points(int dim);

// The count (FILL = false) or fill (FILL = true) launch over queries [q_begin, q_end), with the
// parameters of PairProducer::count and fill; args.tile_points must be grid_tile_points(dim).
// FOLD: a count pass that folds its pairs into direct.fold (pair_fold.cuh).
template <bool FILL, bool FOLD = false>
void launch_grid_tile(const GridJoinArgs& args, Metric metric, std::uint32_t q_begin,
                      std::uint32_t q_end, std::uint32_t* counts, unsigned long long* candidates,
                      const std::uint64_t* offsets, std::uint64_t base, const PairOutput& out,
                      const DirectOutput& direct, cudaStream_t stream);

}  // namespace simjoin::gpu
