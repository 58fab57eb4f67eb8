// Helpers of the GPU aggregate tests (gpu_neighbour_stats_test.cpp, gpu_dbscan_test.cpp).
#pragma once

#include <string>

#include "gpu_test_support.h"

namespace simjoin::testing {

// Whether a run reported the phase `name` (the device folds name theirs "fold-...").
inline bool has_phase(const JoinStats& stats, const std::string& name) {
  for (const auto& phase : stats.phase_seconds)
    if (phase.first == name) return true;
  return false;
}

// n uniform 2-D points in [0, 100]^2 of which every 40th is moved to (x, y): a hot spot of
// identical points, whose pairs all fold into the same few addresses.
inline Points with_hot_spot(std::size_t n, double x, double y, unsigned seed) {
  Points points = uniform_points(n, 2, 0.0, 100.0, seed);
  for (std::size_t i = 0; i < n; i += 40) {
    points.point(i)[0] = x;
    points.point(i)[1] = y;
  }
  return points;
}

// Every producer the device aggregates run over: kGpuKernels and the SZL join.
inline constexpr GpuKernel kAggregateKernels[] = {kGpuKernels[0], kGpuKernels[1], kGpuKernels[2],
                                                  kGpuKernels[3],
                                                  {Algorithm::Szl, -1, 0, "gpu-szl"}};

}  // namespace simjoin::testing
