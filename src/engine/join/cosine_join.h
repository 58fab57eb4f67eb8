// The cosine join: candidates from a Euclidean join of unit vectors, every candidate decided by
// the exact cosine distance (cosine.h).
#pragma once

#include <functional>

#include "engine/pair_sink.h"
#include "engine/types.h"

namespace simjoin {

// Joins with spec.metric == Metric::Cosine through `euclidean_join` (run_join's contract, on the
// CPU or the GPU): each point a becomes the unit vector a'/|a'| (points without a direction get
// NaN coordinates, which match nothing), the inputs are joined within cosine_candidate_radius,
// and a candidate pair reaches `sink` iff cosine_distance <= spec.eps, with that distance.
// Stats: the inner join's, with `candidates` its distance evaluations plus one exact cosine
// evaluation per inner pair, `pairs` and `batches` as handed to `sink`,
// algorithm "<inner> on unit vectors" and a "normalize" phase.
using EuclideanJoinFn = std::function<JoinStats(const PointSet& left, const PointSet* right,
                                                const JoinSpec& spec, PairSink& sink)>;
JoinStats run_cosine_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                          const EuclideanJoinFn& euclidean_join, PairSink& sink);

}  // namespace simjoin
