// Aggregates folded on the device while a join runs, without writing pairs: the count pass of a
// pair producer (pair_producer.cuh) calls fold_pair() for every pair it finds when
// DirectOutput::fold is set (emit_direct, kernel_dispatch.cuh), instead of storing the pair.
#pragma once

#ifdef __CUDACC__
#include <cuda_runtime.h>
#endif

#include <cstdint>

namespace simjoin::gpu {

// Every fold is a few atomics on per-point arrays of the aggregated side(s):
//   Stats    count (atomicAdd), smallest and largest distance (atomicMin / atomicMax on the bits:
//            non-negative doubles order like their uint64 bit patterns; -0.0 is folded as +0.0);
//   Nearest  a second traversal, after Stats: a pair whose distance equals the point's final
//            smallest distance offers its partner's order key (the partner's position in
//            (rank, index) order, or its index without ranks) to an atomicMin;
//   Count    count only (DBSCAN's core test);
//   Link     DBSCAN's linking: a core-core pair unites the two points' sets (lock-free union-find,
//            the larger root hooked under the smaller with atomicCAS, after Jaiganesh and
//            Burtscher, "A High-Performance Connected Components Implementation for GPUs", HPDC
//            2018); a core / non-core pair offers the core point to the other's smallest core
//            neighbour (atomicMin).
//
// Plain device code over a few CUDA atomics and loads: test/engine/pair_fold_host_test.cpp compiles
// it on the host (with those calls emulated) and runs the folds on threads.

enum class FoldKind : std::uint8_t { None, Stats, Nearest, Count, Link };

// By value in the kernels' parameters; the arrays are indexed by point ids of the aggregated side.
struct PairFold {
  FoldKind kind = FoldKind::None;
  bool fold_left = false;   // fold each pair (l, r) into l with partner r
  bool fold_right = false;  // ... and into r with partner l
  unsigned long long* count = nullptr;
  unsigned long long* min_bits = nullptr;  // initially ~0
  unsigned long long* max_bits = nullptr;  // initially 0
  std::uint32_t* nearest = nullptr;        // order keys; initially ~0
  const std::uint32_t* order_key = nullptr;  // per partner; null: the partner's index
  const std::uint8_t* core = nullptr;        // Link: per point
  std::uint32_t* parent = nullptr;           // Link: the union-find forest, parent[i] <= i
  std::uint32_t* border_core = nullptr;      // Link: smallest core neighbour; initially ~0
};

// The distance's bits as an ordered key (+0.0 for -0.0; distances of pairs are never NaN).
__device__ __forceinline__ unsigned long long distance_key(double distance) {
  return distance == 0.0 ? 0ull : static_cast<unsigned long long>(__double_as_longlong(distance));
}

// The root of x's set, halving the path on the way (each point then skips one ancestor; any
// ancestor is in the same set, so concurrent halving and hooking stay correct). Loads bypass L1
// (__ldcg): the forest changes under other blocks' atomics.
__device__ __forceinline__ std::uint32_t find_root(std::uint32_t* parent, std::uint32_t x) {
  std::uint32_t current = __ldcg(parent + x);
  if (current == x) return x;
  std::uint32_t previous = x, next;
  while (current > (next = __ldcg(parent + current))) {
    parent[previous] = next;  // a plain store of an ancestor: benign under races
    previous = current;
    current = next;
  }
  return current;
}

// Unites the sets of a and b: the larger root is hooked under the smaller one with atomicCAS,
// retried from what the CAS found until both sides reach the same root. Roots are then always
// their set's smallest member.
__device__ __forceinline__ void unite(std::uint32_t* parent, std::uint32_t a, std::uint32_t b) {
  std::uint32_t ra = find_root(parent, a), rb = find_root(parent, b);
  while (ra != rb) {
    if (ra < rb) {
      const std::uint32_t seen = atomicCAS(parent + rb, rb, ra);
      if (seen == rb) return;
      rb = seen;  // rb was hooked meanwhile: continue from its new parent
    } else {
      const std::uint32_t seen = atomicCAS(parent + ra, ra, rb);
      if (seen == ra) return;
      ra = seen;
    }
  }
}

// One pair seen from `point` (with `partner`) for the Stats, Nearest and Count folds.
__device__ __forceinline__ void fold_point(const PairFold& f, std::uint32_t point,
                                           std::uint32_t partner, unsigned long long key) {
  if (f.kind == FoldKind::Nearest) {
    if (key != __ldcg(f.min_bits + point)) return;
    const std::uint32_t order = f.order_key ? f.order_key[partner] : partner;
    if (order < __ldcg(f.nearest + point)) atomicMin(f.nearest + point, order);
    return;
  }
  atomicAdd(f.count + point, 1ull);
  if (f.kind != FoldKind::Stats) return;
  // The plain reads only skip atomics that cannot change anything (the values only move one way).
  if (key < __ldcg(f.min_bits + point)) atomicMin(f.min_bits + point, key);
  if (key > __ldcg(f.max_bits + point)) atomicMax(f.max_bits + point, key);
}

__device__ __forceinline__ void fold_pair(const PairFold& f, std::uint32_t left,
                                          std::uint32_t right, double distance) {
  if (f.kind == FoldKind::Link) {
    const bool left_core = f.core[left] != 0, right_core = f.core[right] != 0;
    if (left_core && right_core) {
      unite(f.parent, left, right);
    } else if (left_core) {
      if (left < __ldcg(f.border_core + right)) atomicMin(f.border_core + right, left);
    } else if (right_core) {
      if (right < __ldcg(f.border_core + left)) atomicMin(f.border_core + left, right);
    }
    return;
  }
  const unsigned long long key = distance_key(distance);
  if (f.fold_left) fold_point(f, left, right, key);
  if (f.fold_right) fold_point(f, right, left, key);
}

}  // namespace simjoin::gpu
