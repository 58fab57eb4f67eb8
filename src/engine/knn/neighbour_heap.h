// One query's k best candidates so far: a bounded max-heap on (distance, index), whose worst
// entry gives the bound a new candidate's accumulated distance must be within to enter.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/distance.h"

namespace simjoin {

struct Neighbour {
  double distance;
  std::uint32_t index;
};

// SQL's ORDER BY distance, key: the smaller distance first, equal distances by smaller index.
inline bool closer(const Neighbour& a, const Neighbour& b) {
  return a.distance < b.distance || (a.distance == b.distance && a.index < b.index);
}

class NeighbourHeap {
 public:
  NeighbourHeap(std::size_t k, double eps, Metric metric)
      : k_(k), metric_(metric), eps_bound_(accumulated_bound(eps, metric)) {
    heap_.reserve(std::min<std::size_t>(k, 1024));  // k may be far above the partners there are
    reset();
  }
  void reset() {
    heap_.clear();
    bound_ = eps_bound_;
  }
  // A candidate can enter only if its accumulated distance (distance.h) is <= bound(): within eps
  // and, once k are held, no farther than the k-th (a tie may still win on its index). Terms of
  // one dimension alone that exceed it rule a candidate out as well (they never exceed the sum).
  double bound() const { return bound_; }
  // Whether k candidates are held, and then the k-th's distance.
  bool full() const { return heap_.size() == k_; }
  double kth_distance() const { return heap_.front().distance; }
  // Offers a candidate at `distance` (already within bound()).
  void offer(double distance, std::uint32_t index) {
    const Neighbour candidate{distance, index};
    if (heap_.size() < k_) {
      heap_.push_back(candidate);
      std::push_heap(heap_.begin(), heap_.end(), closer);
    } else if (closer(candidate, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), closer);
      heap_.back() = candidate;
      std::push_heap(heap_.begin(), heap_.end(), closer);
    } else {
      return;
    }
    // The largest accumulated value whose distance is <= the k-th distance (the k-th is within
    // eps, so this is within eps's bound too).
    if (heap_.size() == k_) bound_ = accumulated_bound(heap_.front().distance, metric_);
  }
  // The neighbours, nearest first; the heap is spent until reset().
  const std::vector<Neighbour>& sorted() {
    std::sort_heap(heap_.begin(), heap_.end(), closer);
    return heap_;
  }

 private:
  std::size_t k_;
  Metric metric_;
  double eps_bound_;
  double bound_;
  std::vector<Neighbour> heap_;
};

}  // namespace simjoin
