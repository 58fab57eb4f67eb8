// The engine's one entry point: join two point sets (or one with itself) within eps.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "engine/pair_sink.h"
#include "engine/parallel/filled_vector.h"
#include "engine/types.h"

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

// Per point of `counted`, its partners in `partners` (nullptr: in `counted` itself, each point its
// own partner: SQL's self-join) within eps, into *counts (counted.n, 0 for a point with a
// non-finite coordinate), counted on the CPU grid without pairs (grid_neighbour_counts), where
// run_join would run the grid on this join: same choice, same plan. The array is sized after the
// grid's index is built, so that it reuses the index's freed sort memory (the buffer cache).
// Nothing (counts untouched) where it would not. keep_going() false stops (stats.stopped);
// stats.pairs is the counts' sum. `progress` (optional) gets the candidates done, on this thread
// whenever keep_going is polled.
std::optional<JoinStats> count_on_cpu_grid(
    const PointSet& counted, const PointSet* partners, const JoinSpec& spec,
    const std::function<bool()>& keep_going, FilledVector<std::uint64_t>* counts,
    const std::function<void(std::uint64_t)>& progress = {});

// Whether this process has a GPU backend installed (join_backend.h) and its device is usable.
// `why` (optional) gets the reason when not. Without an installed backend it touches no GPU.
bool gpu_available(std::string* why = nullptr);

}  // namespace simjoin
