// The k-nearest-neighbour join's definition, for the CPU's and the GPU's tests: every partner
// of every left point, sorted by (distance, index), the first k; and the check of a sink's pairs
// against it (arrival order within a point, distances bit for bit).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "engine/distance.h"
#include "engine/knn/knn_join.h"
#include "test_support.h"

namespace simjoin::testing {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Per left point, its neighbours in order.
using Neighbours = std::map<std::uint32_t, std::vector<Pair>>;

// Every partner of every left point by distance(i, j), sorted by (distance, index), those
// within eps, the first k.
template <typename Distance>
Neighbours oracle_knn_by(std::size_t left_n, std::size_t right_n, bool self, const KnnSpec& spec,
                         const Distance& distance) {
  Neighbours result;
  for (std::uint32_t i = 0; i < left_n; ++i) {
    std::vector<Pair> partners;
    for (std::uint32_t j = 0; j < right_n; ++j) {
      if (self && !spec.include_self && i == j) continue;
      const double d = distance(i, j);
      if (d <= spec.eps) partners.push_back({i, j, d});
    }
    std::sort(partners.begin(), partners.end(), [](const Pair& a, const Pair& b) {
      return a.d < b.d || (a.d == b.d && a.r < b.r);
    });
    if (partners.size() > spec.k) partners.resize(spec.k);
    if (!partners.empty()) result[i] = partners;
  }
  return result;
}

inline Neighbours oracle_knn(const Points& left, const Points* right, const KnnSpec& spec) {
  const Points& other = right ? *right : left;
  return oracle_knn_by(left.n(), other.n(), right == nullptr, spec,
                       [&](std::uint32_t i, std::uint32_t j) {
                         return exact_distance(left.set().point(i), other.set().point(j),
                                               left.dim, spec.metric);
                       });
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Whether the sink's pairs are `expected`, each point's in order.
inline void expect_neighbours(const CollectingSink& sink, const JoinStats& stats,
                              const Neighbours& expected) {
  Neighbours got;
  for (const Pair& p : sink.pairs) got[p.l].push_back(p);  // arrival order within a point
  EXPECT_FALSE(stats.stopped);
  EXPECT_EQ(stats.pairs, sink.pairs.size());
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [i, want] : expected) {
    const std::vector<Pair>& have = got[i];
    ASSERT_EQ(have.size(), want.size()) << "left " << i;
    for (std::size_t r = 0; r < want.size(); ++r) {
      EXPECT_EQ(have[r].r, want[r].r) << "left " << i << " rank " << r + 1;
      EXPECT_TRUE(same_bits(have[r].d, want[r].d))
          << "left " << i << " rank " << r + 1 << ": " << have[r].d << " vs " << want[r].d;
    }
  }
}

inline KnnSpec knn_spec(std::size_t k, double eps = kInf, Metric metric = Metric::Euclidean) {
  KnnSpec spec;
  spec.k = k;
  spec.eps = eps;
  spec.metric = metric;
  return spec;
}

}  // namespace simjoin::testing
