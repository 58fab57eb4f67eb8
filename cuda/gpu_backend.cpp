// gpu::backend(): the GPU backend behind the engine's JoinBackend interface, in both builds (without
// CUDA, available() says why not and run_join throws).
#include "engine/aggregates/aggregate_backend.h"
#include "gpu_aggregates.h"
#include "gpu_backend.h"

namespace simjoin::gpu {

namespace {

class GpuBackend : public JoinBackend, public AggregateBackend {
 public:
  bool usable(std::string* why) override { return available(why); }
  bool supports(Algorithm) const override { return true; }  // the grid, the SZL, brute force
  JoinStats run(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                PairSink& sink) override {
    return run_join(left, right, spec, sink);
  }
  AggregateBackend* aggregates() override { return this; }
  bool runs_knn(const KnnSpec& spec) const override { return gpu::runs_knn(spec); }
  JoinStats run_knn(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                    PairSink& sink) override {
    return gpu::run_knn_join(left, right, spec, sink);
  }
  NeighbourStats neighbour_stats(const PointSet& left, const PointSet* right,
                                 const JoinSpec& spec, StatsSide side,
                                 const std::uint64_t* partner_ranks,
                                 const KeepGoing& keep_going, StatsFields fields) override {
    return gpu::neighbour_stats(left, right, spec, side, partner_ranks, keep_going, fields);
  }
  DbscanResult dbscan(const PointSet& points, const JoinSpec& spec, std::uint64_t min_points,
                      const KeepGoing& keep_going) override {
    return gpu::dbscan(points, spec, min_points, keep_going);
  }
};

}  // namespace

JoinBackend& backend() {
  static GpuBackend gpu;
  return gpu;
}

}  // namespace simjoin::gpu
