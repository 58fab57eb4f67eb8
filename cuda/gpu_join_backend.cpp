// gpu::backend(): the GPU backend behind the engine's JoinBackend interface, in both builds (without
// CUDA, available() says why not and run_join throws).
#include "gpu_backend.h"

namespace simjoin::gpu {

namespace {

class GpuBackend : public JoinBackend {
 public:
  bool usable(std::string* why) override { return available(why); }
  bool supports(Algorithm) const override { return true; }  // the grid, the SZL, brute force
  JoinStats run(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                PairSink& sink) override {
    return run_join(left, right, spec, sink);
  }
};

}  // namespace

JoinBackend& backend() {
  static GpuBackend gpu;
  return gpu;
}

}  // namespace simjoin::gpu
