// DBSCAN by definition (every pair's distance, core points by count, components by flooding)
// and the check of a DBSCAN result against it: the same core, border and noise points, the same
// partition of the core points, every border point in the cluster of its smallest-index core
// neighbour, ids numbered by each cluster's smallest point.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "engine/aggregates/dbscan.h"
#include "engine/distance.h"
#include "test_support.h"

namespace simjoin::testing {

struct OracleDbscan {
  std::vector<PointKind> kind;
  std::vector<int> component;                   // core points: a component number; else -1
  std::vector<std::vector<std::size_t>> cores;  // per point: its core neighbours (ascending)
};

// DBSCAN by definition: every pair's distance, core points by count, components by flooding.
inline OracleDbscan oracle_dbscan(const Points& points, double eps, Metric metric, std::uint64_t min_points) {
  const std::size_t n = points.n();
  std::vector<std::vector<std::size_t>> neighbours(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (exact_distance(points.set().point(i), points.set().point(j), points.dim, metric) <= eps) {
        neighbours[i].push_back(j);
      }
    }
  }
  OracleDbscan o;
  o.kind.assign(n, PointKind::Noise);
  for (std::size_t i = 0; i < n; ++i) {
    const bool self = exact_distance(points.set().point(i), points.set().point(i), points.dim,
                                     metric) <= eps;
    if (self && neighbours[i].size() >= min_points) o.kind[i] = PointKind::Core;
  }
  o.cores.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j : neighbours[i]) {
      if (o.kind[j] == PointKind::Core) o.cores[i].push_back(j);
    }
    if (o.kind[i] != PointKind::Core && !o.cores[i].empty()) o.kind[i] = PointKind::Border;
  }
  o.component.assign(n, -1);
  int components = 0;
  for (std::size_t seed = 0; seed < n; ++seed) {
    if (o.kind[seed] != PointKind::Core || o.component[seed] >= 0) continue;
    std::vector<std::size_t> stack{seed};
    o.component[seed] = components;
    while (!stack.empty()) {
      const std::size_t p = stack.back();
      stack.pop_back();
      for (std::size_t q : o.cores[p]) {
        if (o.component[q] < 0) {
          o.component[q] = components;
          stack.push_back(q);
        }
      }
    }
    ++components;
  }
  return o;
}

// Checks `got` (a DBSCAN of `points` within spec.eps under spec.metric) against the oracle.
inline void expect_dbscan_like_oracle(const DbscanResult& got, const Points& points,
                                      const JoinSpec& spec, std::uint64_t min_points) {
  const OracleDbscan want = oracle_dbscan(points, spec.eps, spec.metric, min_points);
  const std::size_t n = points.n();
  EXPECT_EQ(got.kind, want.kind);
  EXPECT_EQ(got.cluster.size(), n);
  if (got.kind != want.kind || got.cluster.size() != n) return;
  // The same partition of the core points: a bijection between cluster ids and components.
  std::map<std::int64_t, int> component_of_id;
  std::map<int, std::int64_t> id_of_component;
  std::int64_t next_id = 0;  // ids appear in increasing order, by smallest member
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t id = got.cluster[i];
    if (got.kind[i] == PointKind::Noise) {
      EXPECT_EQ(id, -1) << "noise point " << i;
      continue;
    }
    if (id == next_id) ++next_id;
    if (id < 0 || id >= next_id) {
      ADD_FAILURE() << "point " << i << " has id " << id << ", expected below " << next_id;
      return;
    }
    if (got.kind[i] == PointKind::Border) {
      // In the cluster of its smallest-index core neighbour (hence of one of them).
      const std::size_t chosen = want.cores[i].front();
      EXPECT_EQ(id, got.cluster[chosen]) << "border point " << i;
      continue;
    }
    const int component = want.component[i];
    const auto [c, c_new] = component_of_id.emplace(id, component);
    const auto [d, d_new] = id_of_component.emplace(component, id);
    EXPECT_EQ(c->second, component) << "cluster " << id << " joins two components at " << i;
    EXPECT_EQ(d->second, id) << "component " << component << " split at point " << i;
    if (c->second != component || d->second != id) return;
  }
  EXPECT_EQ(got.clusters, static_cast<std::size_t>(next_id));
}

// run_dbscan(points, spec, min_points) checked against the oracle.
inline DbscanResult expect_dbscan_matches(const Points& points, const JoinSpec& spec,
                                          std::uint64_t min_points) {
  DbscanResult got = run_dbscan(points.set(), spec, min_points);
  expect_dbscan_like_oracle(got, points, spec, min_points);
  return got;
}

}  // namespace simjoin::testing
