// The low-dimensional kNN search: the right points sorted on one dimension (the widest), each
// query walked outward from its own coordinate there in both directions. A direction ends once the
// term of that dimension alone exceeds the query's bound: the accumulated distance of a point is
// never below one of its terms (non-negative terms, monotone rounding), and points farther along
// the sorted order have terms at least as large (subtraction is monotone), so none of them can
// enter. Exact with any bound, and a one-dimensional stand-in for a grid's widening rings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/bounded_distance.h"
#include "engine/knn/neighbour_heap.h"
#include "engine/types.h"

namespace simjoin {

constexpr std::size_t kNoSkip = std::numeric_limits<std::size_t>::max();

class SortedProjection {
 public:
  // Sorts the points of `right` without a NaN coordinate (a NaN never matches) on the dimension
  // of largest variance among the finite ones; copies them in that order (the walk reads them in
  // sequence).
  explicit SortedProjection(const PointSet& right);

  // Offers the query `a` every candidate that can enter `heap` (a NaN-free query); `skip`: the
  // right index not to offer (a self-join without the point itself) or kNoSkip. Returns the
  // candidates whose distance it computed.
  template <Metric M>
  std::size_t search(const double* a, std::size_t skip, NeighbourHeap& heap) const {
    const double q = a[axis_];
    std::size_t up = lower_bound(q), down = up;  // next: up, down - 1
    std::size_t evaluated = 0;
    bool up_open = true, down_open = true;
    for (;;) {
      double up_term = 0.0, down_term = 0.0;
      if (up_open) {
        up_open = up < value_.size();
        if (up_open) up_term = dimension_term<M>(q - value_[up]);
        if (up_term > heap.bound()) up_open = false;
      }
      if (down_open) {
        down_open = down > 0;
        if (down_open) down_term = dimension_term<M>(q - value_[down - 1]);
        if (down_term > heap.bound()) down_open = false;
      }
      if (!up_open && !down_open) return evaluated;
      const std::size_t at = up_open && !(down_open && down_term < up_term) ? up++ : --down;
      const std::uint32_t j = index_[at];
      if (j == skip) continue;
      ++evaluated;
      double accumulated;
      if (within_bound<M>(a, coords_.data() + at * dim_, dim_, heap.bound(), &accumulated))
        heap.offer(finish_distance(accumulated, M), j);
    }
  }

 private:
  std::size_t lower_bound(double q) const;

  std::size_t dim_ = 0;
  std::size_t axis_ = 0;
  std::vector<double> value_;           // coordinate axis_ of each point, ascending
  std::vector<std::uint32_t> index_;    // the point's index in the right input
  std::vector<double> coords_;          // the points in this order, row-major
};

}  // namespace simjoin
