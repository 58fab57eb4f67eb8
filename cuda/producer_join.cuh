// The GPU join up to its pair producer, for the device aggregates (neighbour_stats_kernel.cu,
// dbscan_kernel.cu): run_join's algorithm choice, upload, sort and index, then a consumer that
// runs its own passes over the producer instead of the pair pipeline.
#pragma once

#include <cstddef>
#include <functional>

#include "engine/pair_sink.h"
#include "engine/types.h"
#include "pair_producer.cuh"

namespace simjoin::gpu {

// Runs passes over `producer` (adding candidates, batches and phases to stats); false when
// stopped.
using ProducerConsumer = std::function<bool(const PairProducer& producer, JoinStats& stats)>;

// Whether run_producer_join can take these inputs: not a cosine join (its pairs are decided on
// the host) and inputs that fit the device without chunks, with `extra_bytes` of aggregates
// besides.
bool producer_join_fits(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                        std::size_t extra_bytes);

// The join of run_join (Algorithm::Auto chosen with the GPU's prices; device, algorithm and
// phases in the result) with `consume` in place of the pair pipeline. `control` answers
// keep_going between phases. `consume` is not called when nothing can match (eps NaN or negative,
// an empty side) or when the join stopped before it.
JoinStats run_producer_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                            PairSink& control, const ProducerConsumer& consume);

}  // namespace simjoin::gpu
