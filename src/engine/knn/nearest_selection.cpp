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

std::uint64_t NearestSelection::emit(std::size_t batch_pairs, std::uint64_t* batches,
                                     bool* stopped) {
  *stopped = false;
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

  const std::size_t capacity = batch_pairs ? batch_pairs : grouped.size();
  std::vector<std::uint32_t> out_left, out_right;
  std::vector<double> out_distance;
  std::uint64_t handed = 0;
  auto flush = [&] {
    if (out_left.empty()) return true;
    const PairBatch batch{out_left.data(), out_right.data(), out_distance.data(), out_left.size()};
    ++*batches;
    handed += batch.size;
    const bool more = downstream_.consume(batch) && downstream_.keep_going();
    out_left.clear();
    out_right.clear();
    out_distance.clear();
    return more;
  };
  for (std::size_t q = 0; q < n_left_; ++q) {
    const auto first = grouped.begin() + start[q], last = grouped.begin() + start[q + 1];
    const auto kept = first + std::min<std::size_t>(k_, last - first);
    std::partial_sort(first, kept, last, closer);
    for (auto n = first; n != kept; ++n) {
      out_left.push_back(static_cast<std::uint32_t>(q));
      out_right.push_back(n->index);
      out_distance.push_back(n->distance);
      if (out_left.size() == capacity && !flush()) {
        *stopped = true;
        return handed;
      }
    }
  }
  if (!flush()) *stopped = true;
  return handed;
}

}  // namespace simjoin
