// The device folds of the GPU aggregates (cuda/pair_fold.cuh) compiled on the host, with the CUDA
// atomics and loads they use emulated by GCC's atomic builtins, run from 8 threads at once
// against sequential folds: the lock-free union-find (roots = each set's smallest point, parents
// never above their children), the smallest core neighbour, and the Stats / Nearest / Count folds
// (count, smallest and largest distance, nearest partner by order key). Runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <utility>
#include <vector>

// ---- the CUDA calls of pair_fold.cuh, on the host ----
#ifndef __device__
#define __device__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif
template <typename T>
T __ldcg(const T* p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
// Yields now and then before the CAS (between a find and its hook), so that the other threads'
// hooks land in that window and the CAS fails as it does on the GPU.
inline unsigned atomicCAS(unsigned* p, unsigned expected, unsigned desired) {
  thread_local unsigned calls = 0;
  if (++calls % 3 == 0) std::this_thread::yield();
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
template <typename T>
T atomicMin(T* p, T v) {
  T old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v < old &&
         !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
template <typename T>
T atomicMax(T* p, T v) {
  T old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v > old &&
         !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
template <typename T>
T atomicAdd(T* p, T v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
inline long long __double_as_longlong(double d) {
  long long bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

#include "pair_fold.cuh"

namespace simjoin::gpu {
namespace {

struct Edge {
  std::uint32_t left, right;
  double distance;
};

// Random pairs l < r over n points; every third graph has a hot spot (half the pairs on 40
// points); distances from a few values (ties).
std::vector<Edge> random_edges(std::uint32_t n, std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Edge> edges(count);
  for (Edge& e : edges) {
    std::uint32_t a = rng() % n, b = rng() % n;
    if (seed % 3 == 0 && rng() % 2) a %= 40;
    if (a == b) b = (b + 1) % n;
    e = {std::min(a, b), std::max(a, b), 0.25 * (rng() % 5)};
  }
  return edges;
}

// fold_pair over every edge from 8 threads, each taking every 8th edge.
void fold_concurrently(const PairFold& fold, const std::vector<Edge>& edges) {
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t k = t; k < edges.size(); k += 8)
        fold_pair(fold, edges[k].left, edges[k].right, edges[k].distance);
    });
  for (std::thread& thread : threads) thread.join();
}

std::uint32_t sequential_root(std::vector<std::uint32_t>& parent, std::uint32_t x) {
  while (parent[x] != x) x = parent[x];
  return x;
}

TEST(PairFoldHost, LinkMatchesSequentialUnionFind) {
  for (unsigned seed = 0; seed < 60; ++seed) {
    std::mt19937 rng(seed);
    const std::uint32_t n = 500 + rng() % 3000;
    const std::vector<Edge> edges = random_edges(n, n * (1 + rng() % 4), seed);
    std::vector<std::uint8_t> core(n);
    for (std::uint8_t& c : core) c = rng() % 3 != 0;
    std::vector<std::uint32_t> parent(n), border(n, ~0u);
    std::iota(parent.begin(), parent.end(), 0u);
    PairFold fold;
    fold.kind = FoldKind::Link;
    fold.core = core.data();
    fold.parent = parent.data();
    fold.border_core = border.data();
    fold_concurrently(fold, edges);

    std::vector<std::uint32_t> want(n), want_border(n, ~0u);
    std::iota(want.begin(), want.end(), 0u);
    for (const Edge& e : edges) {
      if (core[e.left] && core[e.right]) {
        const std::uint32_t a = sequential_root(want, e.left), b = sequential_root(want, e.right);
        want[std::max(a, b)] = std::min(a, b);
      } else if (core[e.left]) {
        want_border[e.right] = std::min(want_border[e.right], e.left);
      } else if (core[e.right]) {
        want_border[e.left] = std::min(want_border[e.left], e.right);
      }
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      ASSERT_LE(parent[i], i) << "seed " << seed << ": a parent above its child at " << i;
      std::uint32_t root = i;
      while (parent[root] != root) root = parent[root];
      ASSERT_EQ(root, sequential_root(want, i)) << "seed " << seed << ", point " << i;
      ASSERT_EQ(border[i], want_border[i]) << "seed " << seed << ", point " << i;
    }
  }
}

TEST(PairFoldHost, StatsNearestAndCountMatchSequentialFolds) {
  for (unsigned seed = 0; seed < 60; ++seed) {
    std::mt19937 rng(seed + 1000);
    const std::uint32_t n = 300 + rng() % 2000;
    const std::vector<Edge> edges = random_edges(n, n * (1 + rng() % 6), seed);
    // Order keys: a permutation (the partners' positions in (rank, index) order).
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    const bool ranked = seed % 2 == 0;
    for (int sides = 1; sides <= 3; ++sides) {  // left, right, both
      std::vector<unsigned long long> count(n, 0), low(n, ~0ull), high(n, 0);
      std::vector<std::uint32_t> nearest(n, ~0u);
      PairFold fold;
      fold.fold_left = sides & 1;
      fold.fold_right = sides & 2;
      fold.count = count.data();
      fold.min_bits = low.data();
      fold.max_bits = high.data();
      fold.nearest = nearest.data();
      fold.order_key = ranked ? order.data() : nullptr;
      for (FoldKind kind : {FoldKind::Stats, FoldKind::Nearest}) {
        fold.kind = kind;
        fold_concurrently(fold, edges);
      }
      std::vector<unsigned long long> want_count(n, 0);
      std::vector<double> want_low(n), want_high(n);
      std::vector<std::uint32_t> want_nearest(n, ~0u);
      auto key = [&](std::uint32_t p) { return ranked ? order[p] : p; };
      auto fold_one = [&](std::uint32_t p, std::uint32_t partner, double d) {
        if (want_count[p]++ == 0) {
          want_low[p] = want_high[p] = d;
          want_nearest[p] = partner;
          return;
        }
        if (d < want_low[p] || (d == want_low[p] && key(partner) < key(want_nearest[p]))) {
          want_low[p] = d;
          want_nearest[p] = partner;
        }
        want_high[p] = std::max(want_high[p], d);
      };
      for (const Edge& e : edges) {
        if (fold.fold_left) fold_one(e.left, e.right, e.distance);
        if (fold.fold_right) fold_one(e.right, e.left, e.distance);
      }
      for (std::uint32_t i = 0; i < n; ++i) {
        ASSERT_EQ(count[i], want_count[i]) << "seed " << seed << ", point " << i;
        if (want_count[i] == 0) continue;
        double got_low, got_high;
        std::memcpy(&got_low, &low[i], sizeof got_low);
        std::memcpy(&got_high, &high[i], sizeof got_high);
        ASSERT_EQ(got_low, want_low[i]) << "seed " << seed << ", point " << i;
        ASSERT_EQ(got_high, want_high[i]) << "seed " << seed << ", point " << i;
        ASSERT_EQ(nearest[i], key(want_nearest[i])) << "seed " << seed << ", point " << i;
      }
      // Count: the count alone.
      std::vector<unsigned long long> counted(n, 0);
      PairFold counting = fold;
      counting.kind = FoldKind::Count;
      counting.count = counted.data();
      fold_concurrently(counting, edges);
      ASSERT_EQ(counted, want_count) << "seed " << seed;
    }
  }
}

TEST(PairFoldHost, NegativeZeroFoldsAsZero) {
  EXPECT_EQ(distance_key(-0.0), 0ull);
  EXPECT_EQ(distance_key(0.0), 0ull);
  EXPECT_LT(distance_key(0.5), distance_key(0.75));
  EXPECT_LT(distance_key(1e-310), distance_key(1e-300));  // subnormals order too
}

}  // namespace
}  // namespace simjoin::gpu
