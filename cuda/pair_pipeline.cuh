// The result pipeline: count every query's pairs, cut the queries into batches whose pairs fit
// exact-sized buffers, and keep several batches in flight on their own streams (kernel,
// device-to-host copy into pinned memory, hand-over to the sink on the calling thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pair_producer.cuh"
#include "pair_sink.h"
#include "types.h"

namespace simjoin::gpu {

struct PipelineOptions {
  // Self-join with SelfPairs::All: each produced pair (i, j) is also handed over as (j, i), and
  // diagonal_ids lists the points paired with themselves (distance 0).
  bool mirror = false;
  const std::vector<std::uint32_t>* diagonal_ids = nullptr;
  std::size_t sink_batch = 0;  // most pairs per PairBatch (JoinSpec::batch_pairs); 0 = no limit
};

// Runs the producer to the end or until the sink stops; adds batches, candidates, pairs and the
// phases "count", "alloc" (buffers), "join" (all batches, alloc
// and sink included) and "sink" to stats. Returns false when the sink stopped the join.
bool stream_pairs(const PairProducer& producer, const PipelineOptions& options, PairSink& sink,
                  JoinStats& stats);

}  // namespace simjoin::gpu
