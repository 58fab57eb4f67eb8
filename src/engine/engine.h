// The engine's one entry point: join two point sets (or one with itself) within eps.
#pragma once

#include "pair_sink.h"
#include "types.h"

namespace simjoin {

// Joins `left` with `right` (right == nullptr: self-join of left, see SelfPairs) and streams every
// pair (i, j) with distance(left[i], right[j]) <= eps to `sink`, on the calling thread.
//
// Exactness contract: a pair is reported iff its distance, computed by exact_distance() (double
// precision, dimensions summed in their stored order), is <= eps. Points with NaN never match;
// eps < 0 or NaN matches nothing. Pairs come in no particular order.
//
// Throws simjoin::Error on invalid input (dimension mismatch, more than 2^32-1 points) or when the
// chosen device fails. Device::Gpu without a usable GPU backend in this process throws;
// Device::Auto then runs on the CPU. An algorithm the GPU backend does not run
// (JoinBackend::supports) runs on the CPU.
JoinStats run_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                   PairSink& sink);

// Whether this process has a GPU backend installed (join_backend.h) and its device is usable.
// `why` (optional) gets the reason when not. Without an installed backend it touches no GPU.
bool gpu_available(std::string* why = nullptr);

}  // namespace simjoin
