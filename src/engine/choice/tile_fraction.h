// The share of tile pairs that the GPU's brute force on tensor cores visits: it orders the rows
// along a space-filling curve (engine/join/tile_order.h), gives each tile of 128 rows a bounding
// ball and skips the tile pairs whose balls lie farther apart than the join's bound
// (cuda/tile_pruning.cuh). Measured on samples, so that Auto prices the pairs that run.
#pragma once

#include <cstddef>

#include "engine/types.h"

namespace simjoin {

// Rows of a tile of the joins on tensor cores.
constexpr std::size_t kTensorTileRows = 128;

// Whether the GPU joins these by brute force on tensor cores (and prunes tile pairs): the
// Euclidean and cosine distances from 16 dimensions.
bool tensor_tiles_apply(Metric metric, std::size_t dim);

// The estimated share (0, 1] of tile pairs the mask keeps for run_join(left, right, spec) by
// brute force on tensor cores: each side's sample sorted by the space key and cut into as many
// groups as the side has tiles, each group's ball (its mean, its farthest sampled point) standing
// for its tile's, and the pairs of balls within the bound of each other (all of them, or a
// sample of them) counted. 1 where the GPU keeps every pair (a mask that would keep more than
// 90% of them, or too large a mask) or where the samples would be too thin to tell (fewer than
// four points a tile within the sampling budget).
double estimate_tile_fraction(const PointSet& left, const PointSet* right, const JoinSpec& spec);

}  // namespace simjoin
