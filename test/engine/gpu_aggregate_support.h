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

// Every producer the device aggregates run over: kGpuKernels and the SZL join.
inline constexpr GpuKernel kAggregateKernels[] = {kGpuKernels[0], kGpuKernels[1], kGpuKernels[2],
                                                  {Algorithm::Szl, -1, "gpu-szl"}};

}  // namespace simjoin::testing
