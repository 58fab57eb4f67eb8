// The GPU brute-force join: every query against every candidate (the baseline of the benchmark,
// and the algorithm for eps = infinity, where a grid cannot prune). Non-finite coordinates need
// no special case: the exact distance test rejects them as the CPU engine does.
#pragma once

#include <cstdint>

#include "engine/types.h"
#include "float_filter.cuh"
#include "pair_producer.cuh"

namespace simjoin::gpu {

struct BruteForceArgs {
  const double* left = nullptr;   // queries, input order
  const double* right = nullptr;  // candidates (== left in a self-join)
  std::uint32_t n_left = 0;
  std::uint32_t n_right = 0;
  int dim = 0;
  bool self_join = false;  // pairs (i, j) with i < j only
  double bound = 0.0;      // accumulated_bound(eps, metric)
  // The float copies (same rows as left and right) and the prefilter's constants.
  const float* left_float = nullptr;
  const float* left_mag = nullptr;
  const float* right_float = nullptr;
  const float* right_mag = nullptr;
  FloatFilter filter;
};

class BruteForceProducer : public PairProducer {
 public:
  BruteForceProducer(const BruteForceArgs& args, Metric metric) : args_(args), metric_(metric) {}
  std::uint32_t num_queries() const override { return args_.n_left; }
  void count_range(std::uint32_t q_begin, std::uint32_t q_end, std::uint32_t* counts,
                   unsigned long long* candidates, const DirectOutput& direct,
                   cudaStream_t stream) const override;
  void fill(std::uint32_t q_begin, std::uint32_t q_end, const std::uint64_t* offsets,
            std::uint64_t base, const PairOutput& out, cudaStream_t stream) const override;

 private:
  BruteForceArgs args_;
  Metric metric_;
};

}  // namespace simjoin::gpu
