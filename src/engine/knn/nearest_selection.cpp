#include "engine/knn/nearest_selection.h"

#include <algorithm>
#include <numeric>

#include "engine/knn/neighbour_heap.h"

namespace simjoin {

bool NearestSelection::consume(const PairBatch& batch) {
  if (left_ids_)
    for (std::size_t p = 0; p < batch.size; ++p) left_.push_back(left_ids_[batch.left[p]]);
  else
    left_.insert(left_.end(), batch.left, batch.left + batch.size);
  right_.insert(right_.end(), batch.right, batch.right + batch.size);
  distance_.insert(distance_.end(), batch.distance, batch.distance + batch.size);
  return downstream_.keep_going();
}

bool PairHandOver::finish() {
  if (left_.empty()) return true;
  ++batches_;
  pairs_ += left_.size();
  const bool more =
      sink_.consume(PairBatch{left_.data(), right_.data(), distance_.data(), left_.size()}) &&
      sink_.keep_going();
  left_.clear();
  right_.clear();
  distance_.clear();
  return more;
}

bool NearestSelection::emit(PairHandOver& out) {
  // Group the pairs by query (a counting sort), then order each group.
  std::vector<std::size_t> start(n_left_ + 1, 0);
  for (std::uint32_t q : left_) ++start[q + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<Neighbour> grouped(left_.size());
  {
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (std::size_t p = 0; p < left_.size(); ++p)
      grouped[next[left_[p]]++] = Neighbour{distance_[p], right_[p]};
  }
  left_ = {};
  right_ = {};
  distance_ = {};
  for (std::size_t q = 0; q < n_left_; ++q) {
    const auto first = grouped.begin() + start[q], last = grouped.begin() + start[q + 1];
    const auto kept = first + std::min<std::size_t>(k_, last - first);
    std::partial_sort(first, kept, last, closer);
    for (auto n = first; n != kept; ++n)
      if (!out.add(static_cast<std::uint32_t>(q), n->index, n->distance)) return false;
  }
  return true;
}

}  // namespace simjoin
