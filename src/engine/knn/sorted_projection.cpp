#include "engine/knn/sorted_projection.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace simjoin {

namespace {

// The dimension of largest variance over the finite coordinates (the first on ties).
std::size_t widest_dimension(const PointSet& points) {
  std::size_t best = 0;
  double best_variance = -1.0;
  for (std::size_t d = 0; d < points.dim; ++d) {
    double sum = 0.0, sum_squares = 0.0, n = 0.0;
    for (std::size_t i = 0; i < points.n; ++i) {
      const double x = points.point(i)[d];
      if (!std::isfinite(x)) continue;
      sum += x;
      sum_squares += x * x;
      n += 1.0;
    }
    const double variance = n > 0.0 ? sum_squares / n - (sum / n) * (sum / n) : 0.0;
    if (variance > best_variance) {
      best_variance = variance;
      best = d;
    }
  }
  return best;
}

}  // namespace

SortedProjection::SortedProjection(const PointSet& right)
    : dim_(right.dim), axis_(widest_dimension(right)) {
  std::vector<std::uint32_t> order;
  order.reserve(right.n);
  for (std::size_t i = 0; i < right.n; ++i) {
    const double* p = right.point(i);
    if (std::none_of(p, p + dim_, [](double x) { return std::isnan(x); }))
      order.push_back(static_cast<std::uint32_t>(i));
  }
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return right.point(a)[axis_] < right.point(b)[axis_];
  });
  value_.resize(order.size());
  coords_.resize(order.size() * dim_);
  for (std::size_t at = 0; at < order.size(); ++at) {
    const double* p = right.point(order[at]);
    value_[at] = p[axis_];
    std::copy(p, p + dim_, coords_.begin() + at * dim_);
  }
  index_ = std::move(order);
}

std::size_t SortedProjection::lower_bound(double q) const {
  return static_cast<std::size_t>(std::lower_bound(value_.begin(), value_.end(), q) -
                                  value_.begin());
}

}  // namespace simjoin
