// JoinStats::estimates (Algorithm::Auto's priced algorithms) as plain data, for the GPU service's
// job record in shared memory and the custom scan's summed engine statistics.
#pragma once

#include <cstdio>
#include <vector>

#include "engine/types.h"

namespace simjoin::pg {

struct EstimatesRecord {
  static constexpr int kMax = 3;  // grid, szl, brute force
  int count;
  char name[kMax][16];
  double candidates[kMax];
  double seconds[kMax];
};

inline void record_estimates(const std::vector<AlgorithmEstimate>& from, EstimatesRecord* to) {
  to->count = 0;
  for (const AlgorithmEstimate& e : from) {
    if (to->count == EstimatesRecord::kMax) break;
    std::snprintf(to->name[to->count], sizeof to->name[0], "%s", e.algorithm.c_str());
    to->candidates[to->count] = e.candidates;
    to->seconds[to->count++] = e.seconds;
  }
}

inline std::vector<AlgorithmEstimate> recorded_estimates(const EstimatesRecord& from) {
  std::vector<AlgorithmEstimate> estimates;
  for (int k = 0; k < from.count && k < EstimatesRecord::kMax; ++k)
    estimates.push_back({from.name[k], from.candidates[k], from.seconds[k]});
  return estimates;
}

}  // namespace simjoin::pg
