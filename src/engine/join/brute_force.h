// The brute-force join: every pair tested, multithreaded. Used when the grid cannot prune
// (eps = +inf, no indexable dimension) and for tiny inputs; handles any coordinates and bound.
// Euclidean joins of kFloatFilterMinDim dimensions and more go through the FP32 filter
// (engine/join/float_brute_force.h) unless their coordinates are too large for it.
#pragma once

#include "engine/join_params.h"
#include "engine/pair_sink.h"
#include "engine/parallel/batch_pipeline.h"
#include "engine/types.h"

namespace simjoin {

// right == nullptr: self-join of left, reported per params.self_pairs.
PipelineResult brute_force_join(const PointSet& left, const PointSet* right,
                                const JoinParams& params, PairSink& sink);

}  // namespace simjoin
