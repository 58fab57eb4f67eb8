// A cosine join on tensor cores, on the device from end to end: the rows prepared there
// (cosine_rows.cuh), their unit vectors filtered in FP16 within engine/cosine.h's candidate
// radius (tensor_join_kernel.cuh), and every pair that passes decided by its exact cosine, so
// that the pairs leave the device decided. (The other GPU algorithms join unit vectors made on
// the host and decide the cosine there: engine/join/cosine_join.h.)
#pragma once

#include "engine/pair_sink.h"
#include "engine/types.h"
#include "producer_join.cuh"

namespace simjoin::gpu {

// run_join's contract for spec.metric == Metric::Cosine, by brute force on tensor cores; the
// inputs must fit the device (no chunking). Phases "normalize", "upload" (the FP16 copies),
// "prune", then the pair pipeline's, or `consume`'s passes over the producer where given (the
// device aggregates: producer_join.cuh; sink then only answers keep_going).
JoinStats run_cosine_tensor_join(const PointSet& left, const PointSet* right,
                                 const JoinSpec& spec, PairSink& sink,
                                 const ProducerConsumer* consume = nullptr);

}  // namespace simjoin::gpu
