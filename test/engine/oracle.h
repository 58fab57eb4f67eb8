// The reference join: a plain double loop over exact_distance() <= eps, single-threaded, obviously
// correct. Shared by the CPU engine tests and the GPU backend tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "engine/distance.h"
#include "engine/types.h"

namespace simjoin::testing {

struct Pair {
  std::uint32_t l = 0;
  std::uint32_t r = 0;
  double d = 0.0;
  bool operator<(const Pair& o) const { return std::tie(l, r, d) < std::tie(o.l, o.r, o.d); }
  bool operator==(const Pair& o) const { return l == o.l && r == o.r && d == o.d; }
};

// All pairs of the join of left with right (nullptr: self-join per spec.self_pairs), sorted.
inline std::vector<Pair> oracle_join(const PointSet& left, const PointSet* right,
                                     const JoinSpec& spec) {
  std::vector<Pair> pairs;
  const PointSet& other = right ? *right : left;
  for (std::size_t i = 0; i < left.n; ++i) {
    for (std::size_t j = 0; j < other.n; ++j) {
      if (!right && spec.self_pairs == SelfPairs::Unique && j <= i) continue;
      const double d = exact_distance(left.point(i), other.point(j), left.dim, spec.metric);
      if (d <= spec.eps) {
        pairs.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), d});
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace simjoin::testing
