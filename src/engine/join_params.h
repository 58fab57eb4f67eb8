// What the CPU join kernels need from a JoinSpec, resolved by run_join.
#pragma once

#include <cstddef>

#include "engine/types.h"

namespace simjoin {

struct JoinParams {
  Metric metric = Metric::Euclidean;
  double bound = 0.0;  // accumulated_bound(eps, metric): a pair matches iff accumulated <= bound
  SelfPairs self_pairs = SelfPairs::All;
  int threads = 1;     // resolved: >= 1
  std::size_t batch_pairs = 1;
};

}  // namespace simjoin
