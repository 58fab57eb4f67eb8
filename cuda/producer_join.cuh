// The GPU join up to its pair producer, for the device aggregates (neighbour_stats_kernel.cu,
// dbscan_kernel.cu): run_join's algorithm choice, upload, sort and index (a cosine join's rows
// prepared: cosine_tensor_join.cuh), then a consumer that runs its own passes over the producer
// instead of the pair pipeline.
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

// An aggregate's join, planned once: spec with Algorithm::Auto resolved with the GPU's prices,
// that choice's estimates and phase `choose` (empty where nothing was chosen), and whether
// run_producer_join takes it (fits): inputs that fit the device without chunks, with
// `extra_bytes` of aggregates besides, and for a cosine join brute force on tensor cores (the
// only cosine path whose pairs are decided on the device), where the caller folds cosine pairs
// (fold_cosine; else nothing is chosen). Where it does not fit, the caller runs the host fold
// over run_join with spec's algorithm and adds the choice (add_choice).
struct ProducerPlan {
  JoinSpec spec;
  JoinStats choice;
  bool fits = false;
};
ProducerPlan plan_producer_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                                std::size_t extra_bytes, bool fold_cosine);

// The join of run_join with the plan's algorithm (device, algorithm and phases in the result, the
// choice's first) with `consume` in place of the pair pipeline. `control` answers keep_going
// between phases. `consume` is not called when nothing can match (eps NaN or negative, an empty
// side) or when the join stopped before it.
JoinStats run_producer_join(const PointSet& left, const PointSet* right, ProducerPlan plan,
                            PairSink& control, const ProducerConsumer& consume);

// The plan's choice (estimates, phase `choose` first) into the host fold's join stats.
void add_choice(JoinStats& stats, ProducerPlan&& plan);

}  // namespace simjoin::gpu
