// The GPU backend of a build without the CUDA toolkit: never available.
#include "gpu_aggregates.h"
#include "gpu_backend.h"
#include "gpu_tuning.h"

namespace simjoin::gpu {

Tuning& tuning() {  // knobs that nothing reads here, so that tests link in both builds
  static Tuning knobs;
  return knobs;
}

bool available(std::string* why) {
  if (why) *why = "simjoin was built without CUDA";
  return false;
}

JoinStats run_join(const PointSet&, const PointSet*, const JoinSpec&, PairSink&) {
  throw Error("simjoin was built without CUDA: no GPU backend");
}

bool runs_knn(const KnnSpec&) { return false; }

JoinStats run_knn_join(const PointSet&, const PointSet*, const KnnSpec&, PairSink&) {
  throw Error("simjoin was built without CUDA: no GPU backend");
}

double szl_index_seconds(const PointSet&, bool) {
  throw Error("simjoin was built without CUDA: no GPU backend");
}

bool memory_info(std::string*, std::size_t*, std::size_t*) { return false; }

void warm_up() { throw Error("simjoin was built without CUDA: no GPU backend"); }

bool context_healthy() { return true; }

int gpu_count() { return 0; }

void select_gpu(int) { throw Error("simjoin was built without CUDA: no GPU backend"); }

NeighbourStats neighbour_stats(const PointSet&, const PointSet*, const JoinSpec&, StatsSide,
                               const std::uint64_t*, const KeepGoing&, StatsFields) {
  throw Error("simjoin was built without CUDA: no GPU backend");
}

DbscanResult dbscan(const PointSet&, const JoinSpec&, std::uint64_t, const KeepGoing&) {
  throw Error("simjoin was built without CUDA: no GPU backend");
}

void poison_context_for_test() { throw Error("simjoin was built without CUDA: no GPU backend"); }

}  // namespace simjoin::gpu
