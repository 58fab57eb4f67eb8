// The result pipeline. Single pass where the result fits a large device buffer (the count pass
// writes the pairs there, GDS-Join's way), copied out in pinned chunks; otherwise count every
// query's pairs, cut the queries into batches whose pairs fit exact-sized buffers, and keep
// several batches in flight on their own streams (fill kernel, device-to-host copy into pinned
// memory, hand-over to the sink on the calling thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/pair_sink.h"
#include "engine/types.h"
#include "pair_producer.cuh"

namespace simjoin::gpu {

struct PipelineOptions {
  // Self-join with SelfPairs::All: each produced pair (i, j) is also handed over as (j, i), and
  // diagonal_ids lists the points paired with themselves, at diagonal_distances (one per id;
  // null: distance 0).
  bool mirror = false;
  const std::vector<std::uint32_t>* diagonal_ids = nullptr;
  const std::vector<double>* diagonal_distances = nullptr;
  std::size_t sink_batch = 0;  // most pairs per PairBatch (JoinSpec::batch_pairs); 0 = no limit
  std::size_t memory_bytes = 0;  // the join's device memory budget (JoinSpec); 0 = free memory
};

// Runs the producer to the end or until the sink stops; adds batches, candidates, pairs and the
// phases to stats: "alloc-direct" (the direct output), "count" (the count pass, which also writes
// the pairs when they fit the direct output), then either "alloc" (pinned chunks) and "join"
// (copies and sink hand-overs), or, when the direct output overflowed, "scan", "alloc" (device
// and pinned batch buffers) and "join" (fill kernels, copies, sink); "sink" is the time in the
// sink. Returns false when the sink stopped the join.
// The options of a join of left with right (self-join: !two_inputs) under `spec`; `diagonal`
// (the ids paired with themselves) is used only by a self-join that hands over all pairs.
PipelineOptions pipeline_options(bool two_inputs, const JoinSpec& spec,
                                 const std::vector<std::uint32_t>* diagonal);

bool stream_pairs(const PairProducer& producer, const PipelineOptions& options, PairSink& sink,
                  JoinStats& stats);

}  // namespace simjoin::gpu
