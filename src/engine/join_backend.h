// The engine's backend interface: what runs a join on one kind of device. The CPU grid and the
// in-process GPU backend (cuda/gpu_backend.h) implement it, nothing else. The engine owns the CPU
// backend; a GPU backend exists in a process only once its owner installs it (the GPU service,
// the benchmark and the GPU tests do): PostgreSQL backends never do, so they never touch CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/neighbour_stats.h"
#include "engine/pair_sink.h"
#include "engine/types.h"

namespace simjoin {

class JoinBackend {
 public:
  virtual ~JoinBackend() = default;
  // Whether joins can run here; `why` (optional) gets the reason when not. Cheap after the
  // first call.
  virtual bool usable(std::string* why) = 0;
  // run_join's contract (engine.h) on this device; the inputs are already checked.
  virtual JoinStats run(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                        PairSink& sink) = 0;
  // Whether run() implements `algorithm` (Auto, Grid and BruteForce always): Algorithm::Auto and
  // the device choice weigh the SZL only on a backend that runs it.
  virtual bool supports(Algorithm algorithm) const { return algorithm != Algorithm::Szl; }

  // Whether neighbour_stats() and dbscan() run here (the GPU backend: folded on the device, no
  // pair leaves it). run_neighbour_stats and run_dbscan call them when given no runner and the
  // spec's device resolves to this backend; otherwise they fold run_join's pairs on the host.
  virtual bool runs_aggregates() const { return false; }
  // run_neighbour_stats's and run_dbscan's contracts (engine/aggregates/neighbour_stats.h, engine/aggregates/dbscan.h); the inputs are
  // already checked.
  virtual NeighbourStats neighbour_stats(const PointSet& /*left*/, const PointSet* /*right*/,
                                         const JoinSpec& /*spec*/, StatsSide /*side*/,
                                         const std::uint64_t* /*partner_ranks*/,
                                         const KeepGoing& /*keep_going*/,
                                         StatsFields /*fields*/) {
    throw Error("simjoin: internal error: this backend does not run aggregates");
  }
  virtual DbscanResult dbscan(const PointSet& /*points*/, const JoinSpec& /*spec*/,
                              std::uint64_t /*min_points*/, const KeepGoing& /*keep_going*/) {
    throw Error("simjoin: internal error: this backend does not run aggregates");
  }
};

// The multithreaded CPU engine (grid, SZL or brute force).
JoinBackend& cpu_backend();

// Installs this process's GPU backend (nullptr uninstalls). Not synchronized: install before
// joins start.
void install_gpu_backend(JoinBackend* backend);
// The installed GPU backend, or nullptr.
JoinBackend* installed_gpu_backend();

}  // namespace simjoin
