// The engine's backend interface: what runs a join on one kind of device. The CPU grid and the
// in-process GPU backend (cuda/gpu_backend.h) implement it, nothing else. The engine owns the CPU
// backend; a GPU backend exists in a process only once its owner installs it (the GPU service,
// the benchmark and the GPU tests do): PostgreSQL backends never do, so they never touch CUDA.
#pragma once

#include <string>

#include "engine/pair_sink.h"
#include "engine/types.h"

namespace simjoin {

class AggregateBackend;  // engine/aggregates/aggregate_backend.h
struct KnnSpec;          // engine/knn/knn_join.h

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

  // The aggregates folded on this device (the GPU backend's: no pair leaves it), or nullptr.
  // run_neighbour_stats and run_dbscan use them when given no runner and the spec's device
  // resolves to this backend; otherwise they fold run_join's pairs on the host.
  virtual AggregateBackend* aggregates() { return nullptr; }

  // Whether run_knn takes this k-nearest-neighbour join (run_knn_join runs the others on the CPU).
  virtual bool runs_knn(const KnnSpec& /*spec*/) const { return false; }
  // run_knn_join's contract (knn/knn_join.h) on this device; the inputs are already checked.
  virtual JoinStats run_knn(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                            PairSink& sink);
};

// The multithreaded CPU engine (grid, SZL or brute force).
JoinBackend& cpu_backend();

// Installs this process's GPU backend (nullptr uninstalls). Not synchronized: install before
// joins start.
void install_gpu_backend(JoinBackend* backend);
// The installed GPU backend, or nullptr.
JoinBackend* installed_gpu_backend();

}  // namespace simjoin
