// The brute force with the FP32 filter (engine/join/float_filter.h): each pair's FP32 distance
// from tiles of dot products (engine/join/float_tiles.h), and the pairs that pass decided, and
// their distances computed, by the exact double test, so that the results are bit for bit those
// of testing every pair exactly. Euclidean joins (cosine ones too, on unit vectors) from
// kFloatFilterMinDim dimensions.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "engine/join/float_filter.h"
#include "engine/join_params.h"
#include "engine/pair_sink.h"
#include "engine/parallel/batch_pipeline.h"
#include "engine/types.h"

namespace simjoin {

// The filter pays from this many dimensions (docs/benchmarks/cpu_engine.md, "FP32 filter").
constexpr std::size_t kFloatFilterMinDim = 16;

// Whether brute force filters this join in FP32.
inline bool float_filter_applies(Metric metric, std::size_t dim) {
  return metric == Metric::Euclidean && dim >= kFloatFilterMinDim && dim <= kFloatFilterMaxDim;
}

// The join of left with right (nullptr: self-join per params.self_pairs) through `inputs`, made
// by make_float_filter_inputs for these points and params.bound (not pass_all). Counts every
// pair as a candidate; exact_tests (optional) gets the pairs the exact test decided added.
PipelineResult float_filtered_join(const PointSet& left, const PointSet* right,
                                   const FloatFilterInputs& inputs, const JoinParams& params,
                                   PairSink& sink,
                                   std::atomic<std::uint64_t>* exact_tests = nullptr);

}  // namespace simjoin
