// Runs a pair producer's traversal with a device fold (pair_fold.cuh) in place of the pair
// output: the count pass over the queries in launches of adaptive size (about a tenth of a second
// each), so that keep_going is polled while the device works and a stop waits for one launch at
// most. No pair leaves the device.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/pair_sink.h"
#include "engine/types.h"
#include "pair_fold.cuh"
#include "pair_producer.cuh"

namespace simjoin::gpu {

// One traversal of `producer` with `fold`; adds the candidates to stats.candidates, one batch per
// launch to stats.batches and the phase `phase`. *pairs gets the pairs folded. Returns false when
// control.keep_going() stopped it (the aggregates are then partial).
bool run_fold_pass(const PairProducer& producer, const PairFold& fold, PairSink& control,
                   const char* phase, JoinStats& stats, std::uint64_t* pairs);

// Folds the identity pairs (i, i) at distance 0 of `ids` (device, n of them) into `fold` with
// fold_left only (a self-join's SelfPairs::All adds them after its Unique pairs). Queued on
// `stream`.
void fold_identities(const PairFold& fold, const std::uint32_t* ids, std::uint32_t n,
                     cudaStream_t stream);

// A PairSink that only answers keep_going (the control of a fold pass).
class ControlSink : public PairSink {
 public:
  explicit ControlSink(const std::function<bool()>& keep_going) : keep_going_(keep_going) {}
  bool consume(const PairBatch&) override { return true; }
  bool keep_going() override { return !keep_going_ || keep_going_(); }

 private:
  const std::function<bool()>& keep_going_;
};

// The points of `set` that match themselves, decided as the CPU engine decides the identity
// pairs: matches_itself (engine/distance.h). For eps >= 0 under the Euclidean, L1 and
// Chebyshev distances: the points whose coordinates are all finite.
std::vector<std::uint32_t> self_matching_ids(const PointSet& set, const JoinSpec& spec);
// The same from the uploaded coordinates (n rows of `dim`, input order): a pass on the device
// instead of a scan of every coordinate on the host.
std::vector<std::uint32_t> finite_ids(const double* device_coords, std::size_t n, std::size_t dim);

}  // namespace simjoin::gpu
