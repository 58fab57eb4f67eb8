// The k nearest of each query among candidate pairs that are known to hold them: the GPU's kNN
// join streams every pair within a per-query upper bound of the k-th distance into this sink,
// then hands each query's k nearest on, as run_knn_join's contract orders them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/pair_sink.h"

namespace simjoin {

// Pairs handed to a sink in batches of at most `batch_pairs` (0: one batch, at finish()).
class PairHandOver {
 public:
  PairHandOver(PairSink& sink, std::size_t batch_pairs) : sink_(sink), capacity_(batch_pairs) {}
  // Adds a pair, handing the batch over when it is full; false once the sink has stopped.
  bool add(std::uint32_t left, std::uint32_t right, double distance) {
    left_.push_back(left);
    right_.push_back(right);
    distance_.push_back(distance);
    return left_.size() != capacity_ || finish();
  }
  // Hands over the pairs added since the last batch; false once the sink has stopped.
  bool finish();
  std::uint64_t pairs() const { return pairs_; }
  std::uint64_t batches() const { return batches_; }

 private:
  PairSink& sink_;
  std::size_t capacity_;
  std::vector<std::uint32_t> left_, right_;
  std::vector<double> distance_;
  std::uint64_t pairs_ = 0, batches_ = 0;
};

class NearestSelection : public PairSink {
 public:
  // `downstream` is polled for keep_going() while the pairs arrive.
  NearestSelection(std::size_t n_left, std::size_t k, PairSink& downstream)
      : n_left_(n_left), k_(k), downstream_(downstream) {}
  bool consume(const PairBatch& batch) override;
  // From now on, consume() reads a batch's left index i as left_ids[i] (null: as it is).
  void map_left(const std::uint32_t* left_ids) { left_ids_ = left_ids; }
  bool keep_going() override { return downstream_.keep_going(); }
  void progress(std::uint64_t candidates_done) override { downstream_.progress(candidates_done); }
  std::size_t collected() const { return left_.size(); }

  // Adds every query's k nearest collected pairs (distance, then the smaller right index),
  // nearest first, queries in ascending order, to `out` (which hands them to the downstream
  // sink); false once the sink has stopped. Spends the collected pairs.
  bool emit(PairHandOver& out);

 private:
  std::size_t n_left_, k_;
  PairSink& downstream_;
  const std::uint32_t* left_ids_ = nullptr;
  std::vector<std::uint32_t> left_, right_;
  std::vector<double> distance_;
};

}  // namespace simjoin
