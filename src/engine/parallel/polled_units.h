// Work units on the engine's worker threads while the calling thread polls for a stop (query
// cancel): for passes that hand no pairs to a sink (the grid DBSCAN's phases).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "engine/aggregates/neighbour_stats.h"

namespace simjoin {

// Runs work(unit) for every unit in [0, units) on up to `threads` workers, which take units in
// increasing order; the calling thread polls keep_going at the start and every few milliseconds
// (on one worker or unit, it runs the units itself and polls between them). A false keep_going
// hands out no further unit and returns false. The first exception a unit throws is rethrown
// here after every worker has ended.
bool run_polled_units(std::size_t units, int threads, const KeepGoing& keep_going,
                      const std::function<void(std::size_t unit)>& work);

// keep_going (empty: go on) that first reports `before` plus the candidates counted so far to
// `progress` (if any): the poll of run_polled_units, on the calling thread.
KeepGoing reporting_progress(const KeepGoing& keep_going, const Progress& progress,
                             const std::atomic<std::uint64_t>& counted, std::uint64_t before = 0);

}  // namespace simjoin
