// Helpers for the GPU backend tests: skip without a GPU, specs for Device::Gpu, tuning guard.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "gpu_backend.h"
#include "gpu_tuning.h"
#include "test_support.h"

namespace simjoin::testing {

// Every GPU test starts with this: CI and the development machine have no GPU.
#define SKIP_WITHOUT_GPU()                                                      \
  do {                                                                          \
    std::string skip_reason_;                                                   \
    if (!::simjoin::gpu::available(&skip_reason_))                              \
      GTEST_SKIP() << "no usable GPU (" << skip_reason_ << ")";                 \
  } while (0)

inline JoinSpec gpu_spec(double eps, Metric metric = Metric::Euclidean,
                         SelfPairs self_pairs = SelfPairs::All,
                         Algorithm algorithm = Algorithm::Grid) {
  JoinSpec spec = cpu_spec(eps, metric, self_pairs);
  spec.device = Device::Gpu;
  spec.algorithm = algorithm;
  return spec;
}

// Sets the GPU backend's tuning for one scope (small batches force many of them).
class ScopedGpuTuning {
 public:
  ScopedGpuTuning(std::size_t device_batch_pairs, int streams) : saved_(gpu::tuning()) {
    gpu::tuning().device_batch_pairs = device_batch_pairs;
    gpu::tuning().streams = streams;
  }
  ~ScopedGpuTuning() { gpu::tuning() = saved_; }
  ScopedGpuTuning(const ScopedGpuTuning&) = delete;
  ScopedGpuTuning& operator=(const ScopedGpuTuning&) = delete;

 private:
  gpu::Tuning saved_;
};

// Restores every GPU tuning knob at the end of a scope (set gpu::tuning() fields freely inside).
class GpuTuningGuard {
 public:
  GpuTuningGuard() : saved_(gpu::tuning()) {}
  ~GpuTuningGuard() { gpu::tuning() = saved_; }
  GpuTuningGuard(const GpuTuningGuard&) = delete;
  GpuTuningGuard& operator=(const GpuTuningGuard&) = delete;

 private:
  gpu::Tuning saved_;
};

// The GPU join kernels a test runs in turn: the grid with one query per thread, the grid with
// tiles of candidates in shared memory, brute force, and brute force on tensor cores wherever
// the metric is Euclidean (the scalar kernel for the others; with its GpuTuningGuard set up by
// use()).
struct GpuKernel {
  Algorithm algorithm;
  int grid_tiles;        // gpu::Tuning::grid_tiles
  int tensor;            // gpu::Tuning::tensor
  const char* name;      // JoinStats::algorithm (a prefix of it with the tensor cores)
  void use() const {
    gpu::tuning().grid_tiles = grid_tiles;
    gpu::tuning().tensor = tensor;
  }
  // The JoinStats::algorithm of a join in `metric` (cosine joins run on unit vectors).
  std::string algorithm_for(Metric metric) const {
    const bool euclidean = metric == Metric::Euclidean || metric == Metric::Cosine;
    std::string ran = tensor == 1 && euclidean ? "gpu-brute-force-tensor" : name;
    return metric == Metric::Cosine ? ran + " on unit vectors" : ran;
  }
};
inline constexpr GpuKernel kGpuKernels[] = {{Algorithm::Grid, 0, 0, "gpu-grid"},
                                            {Algorithm::Grid, 1, 0, "gpu-grid-tiled"},
                                            {Algorithm::BruteForce, -1, 0, "gpu-brute-force"},
                                            {Algorithm::BruteForce, -1, 1, "gpu-brute-force"}};

}  // namespace simjoin::testing
