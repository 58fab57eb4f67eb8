#include "engine/join/chunk_split.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "engine/bounded_distance.h"
#include "engine/choice/point_sample.h"
#include "engine/join/finite_points.h"

namespace simjoin {
namespace {

// Cuts `n` contiguous points (their ids already in out.ids) into chunks of at most chunk_points.
void cut_chunks(const double* coords, std::size_t n, std::size_t dim, std::size_t chunk_points,
                bool with_boxes, ChunkedInput& out) {
  for (std::size_t first = 0; first < n; first += chunk_points) {
    Chunk chunk;
    chunk.points = PointSet{coords + first * dim, std::min(chunk_points, n - first), dim};
    chunk.ids = out.ids.data() + first;
    if (with_boxes) {
      chunk.lo.assign(chunk.points.point(0), chunk.points.point(0) + dim);
      chunk.hi = chunk.lo;
      for (std::size_t k = 1; k < chunk.points.n; ++k) {
        const double* p = chunk.points.point(k);
        for (std::size_t j = 0; j < dim; ++j) {
          chunk.lo[j] = std::min(chunk.lo[j], p[j]);
          chunk.hi[j] = std::max(chunk.hi[j], p[j]);
        }
      }
    }
    out.chunks.push_back(std::move(chunk));
  }
}

// Orders [first, last) so that consecutive runs of chunk_points entries are the chunks of the
// sorted order (each run's entries precede the next run's; a run itself stays unsorted): recursive
// selection, O(n log(chunks)) instead of a full sort.
template <typename It>
void select_chunks(It first, It last, std::size_t chunk_points) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (n <= chunk_points) return;
  const std::size_t chunks = (n + chunk_points - 1) / chunk_points;
  const It middle = first + static_cast<std::ptrdiff_t>(chunks / 2 * chunk_points);
  std::nth_element(first, middle, last);
  select_chunks(first, middle, chunk_points);
  select_chunks(middle, last, chunk_points);
}

}  // namespace

std::size_t split_dimension(const PointSet& left, const PointSet* right) {
  const std::vector<double> variance = sampled_variances(left, right);
  std::size_t best = 0;
  for (std::size_t j = 1; j < variance.size(); ++j) {
    if (variance[j] > variance[best] || std::isnan(variance[best])) best = j;
  }
  return best;
}

ChunkedInput split_sorted(const PointSet& set, std::size_t split_dim, std::size_t chunk_points) {
  std::vector<std::pair<double, std::uint32_t>> order;  // (split coordinate, index)
  order.reserve(set.n);
  for (std::size_t i = 0; i < set.n; ++i) {
    const double* p = set.point(i);
    if (!is_finite_point(p, set.dim)) continue;
    order.emplace_back(p[split_dim], static_cast<std::uint32_t>(i));
  }
  select_chunks(order.begin(), order.end(), chunk_points);

  ChunkedInput out;
  out.coords.resize(order.size() * set.dim);
  out.ids.resize(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    out.ids[k] = order[k].second;
    std::copy_n(set.point(order[k].second), set.dim, out.coords.data() + k * set.dim);
  }
  cut_chunks(out.coords.data(), out.ids.size(), set.dim, chunk_points, true, out);
  return out;
}

ChunkedInput split_in_order(const PointSet& set, std::size_t chunk_points) {
  ChunkedInput out;
  out.ids.resize(set.n);
  std::iota(out.ids.begin(), out.ids.end(), 0u);
  cut_chunks(set.coords, set.n, set.dim, chunk_points, false, out);
  return out;
}

// Exactness. Let g = fl(B.lo_j - A.hi_j) > 0 for chunks A, B (finite points only) and a in A,
// b in B. Since a_j <= A.hi_j, b_j >= B.lo_j and fl(x - y) is monotone in x and in -y,
// |fl(a_j - b_j)| = fl(b_j - a_j) >= g, so the engine's term for dimension j (diff * diff or
// |diff|, rounding is monotone) is >= term(g). The accumulated value is a round-to-nearest sum of
// non-negative terms (fl(s + t) >= t for s >= 0) or their maximum, so it is >= term(g) too:
// term(g) > bound proves that no pair of A x B matches. The same holds with A and B swapped.
bool chunks_may_match(const Chunk& a, const Chunk& b, Metric metric, double bound) {
  return with_metric(metric, [&](auto tag) {
    constexpr Metric M = decltype(tag)::value;
    for (std::size_t j = 0; j < a.lo.size(); ++j) {
      double gap;
      if (b.lo[j] > a.hi[j]) {
        gap = b.lo[j] - a.hi[j];
      } else if (a.lo[j] > b.hi[j]) {
        gap = a.lo[j] - b.hi[j];
      } else {
        continue;
      }
      if (dimension_term<M>(gap) > bound) return false;
    }
    return true;
  });
}

}  // namespace simjoin
