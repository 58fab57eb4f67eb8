// One candidate pair of a join on tensor cores (tensor_join_kernel.cuh), past the FP16 filter:
// decided by the exact test, then recorded by the pass that found it. Shared by the kernel that
// stages the dot products through shared memory and the one that keeps them in registers.
#pragma once

#include <cstdint>

#include "device_cosine.cuh"
#include "device_distance.cuh"
#include "kernel_dispatch.cuh"
#include "tensor_join_kernel.cuh"

namespace simjoin::gpu {

// Whether query q and candidate `match` are a pair: the exact bounded Euclidean distance
// (device_distance.cuh) or, in a cosine join, the cosine (device_cosine.cuh), within the join's
// bound or the query's row_bound; *distance is the pair's distance where it is one.
__device__ __forceinline__ bool decide_tensor_pair(const TensorJoinArgs& a, std::uint32_t q,
                                                   std::uint32_t match, double* distance) {
  const double* query = a.left + std::uint64_t(q) * a.dim;
  const double* candidate = a.right + std::uint64_t(match) * a.dim;
  if (a.cosine.left_norm) {
    *distance = cosine_from_scaled_device(query, a.cosine.left_norm[q], candidate,
                                          a.cosine.right_norm[match], a.dim);
    return *distance <= (a.row_bound ? a.row_bound[q] : a.cosine.eps);
  }
  const double bound = a.row_bound ? a.row_bound[q] : a.bound;
  const double exact = accumulate_bounded<Metric::Euclidean, 0>(query, candidate, a.dim, bound);
  if (!(exact <= bound)) return false;
  *distance = finish_distance_device<Metric::Euclidean>(exact);
  return true;
}

// Records the pair (left, right) found by query q: the fill pass writes it at q's next slot; the
// count pass adds it to *row_found (the block's count of q's pairs) and writes or folds it into
// the direct output.
template <bool FILL, bool FOLD>
__device__ __forceinline__ void record_tensor_pair(std::uint32_t q, std::uint32_t left,
                                                   std::uint32_t right, double distance,
                                                   std::uint32_t* row_found,
                                                   const std::uint64_t* __restrict__ offsets,
                                                   std::uint64_t base,
                                                   std::uint32_t* __restrict__ cursors,
                                                   const PairOutput& out,
                                                   const DirectOutput& direct) {
  if constexpr (FILL) {
    const std::uint64_t o = offsets[q] - base + atomicAdd(cursors + q, 1u);
    out.left[o] = left;
    out.right[o] = right;
    out.distance[o] = distance;
  } else {
    atomicAdd(row_found, 1u);
    if (direct.total) emit_direct<FOLD>(direct, left, right, distance);
  }
}

// Decides the FP16 rows q and match (in the rows' order: TensorJoinArgs::left_order) on their
// input rows and records a pair under query q, named by the input rows (a self-join's smaller
// first).
template <bool FILL, bool FOLD>
__device__ __forceinline__ void decide_and_record(const TensorJoinArgs& a, std::uint32_t q,
                                                  std::uint32_t match, std::uint32_t* row_found,
                                                  const std::uint64_t* __restrict__ offsets,
                                                  std::uint64_t base,
                                                  std::uint32_t* __restrict__ cursors,
                                                  const PairOutput& out,
                                                  const DirectOutput& direct) {
  std::uint32_t left = a.left_order ? a.left_order[q] : q;
  std::uint32_t right = a.right_order ? a.right_order[match] : match;
  double distance;
  if (!decide_tensor_pair(a, left, right, &distance)) return;
  if (a.self_join && left > right) {
    const std::uint32_t first = right;
    right = left;
    left = first;
  }
  record_tensor_pair<FILL, FOLD>(q, left, right, distance, row_found, offsets, base, cursors, out,
                                 direct);
}

}  // namespace simjoin::gpu
