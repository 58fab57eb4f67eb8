// What the batching pipeline asks of a join kernel: count each query's pairs, then write the
// pairs of a range of queries at exact offsets (count first, then fill exact-sized buffers).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "pair_fold.cuh"

namespace simjoin::gpu {

// Device arrays that receive one batch of pairs (left index, right index, distance).
struct PairOutput {
  std::uint32_t* left = nullptr;
  std::uint32_t* right = nullptr;
  double* distance = nullptr;
};

// Where the count pass also writes the pairs it finds (GDS-Join's single pass): pair number
// atomicAdd(total, 1) goes to out[that number] while it is below capacity; *total ends as the
// number of pairs. If it ends above capacity, the counts are used for the count/fill path.
// With fold.kind set (pair_fold.cuh), the count pass runs its folding instantiation and each pair
// is folded into device aggregates instead (the pairs are still counted in *total).
struct DirectOutput {
  PairOutput out;
  unsigned long long* total = nullptr;  // null: count only
  std::uint64_t capacity = 0;
  PairFold fold;
};

class PairProducer {
 public:
  virtual ~PairProducer() = default;
  // Queries are numbered 0..num_queries()-1; each one owns the pairs it finds.
  virtual std::uint32_t num_queries() const = 0;
  // Writes counts[q] for every query, adds the distance evaluations to *candidates and, where
  // direct.total is set, writes (or folds) the pairs too (see DirectOutput).
  void count(std::uint32_t* counts, unsigned long long* candidates, const DirectOutput& direct,
             cudaStream_t stream) const {
    count_range(0, num_queries(), counts, candidates, direct, stream);
  }
  // The same for the queries [q_begin, q_end) only (counts[q] for those q).
  virtual void count_range(std::uint32_t q_begin, std::uint32_t q_end, std::uint32_t* counts,
                           unsigned long long* candidates, const DirectOutput& direct,
                           cudaStream_t stream) const = 0;
  // Writes the pairs of queries [q_begin, q_end), those of query q at out[offsets[q] - base]
  // (base = offsets[q_begin]), exactly counts[q] of them.
  virtual void fill(std::uint32_t q_begin, std::uint32_t q_end, const std::uint64_t* offsets,
                    std::uint64_t base, const PairOutput& out, cudaStream_t stream) const = 0;
};

}  // namespace simjoin::gpu
