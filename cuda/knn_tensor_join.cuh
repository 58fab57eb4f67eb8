// The exact k-nearest-neighbour join on tensor cores (Euclidean and cosine distance, k <= 32):
//  1. per query, a few dozen candidates of smallest FP16 distance (knn_tensor_kernel.cuh), and
//     their exact distances: the k nearest picks, and U = min(k-th of them, eps), an upper bound
//     of the query's k-th nearest distance within eps (any k candidates give one);
//  2. a query is settled when the float filter's proven bound (tensor_filter.cuh), taken with
//     the largest terms of all candidates, rules out every unpicked candidate within U (all of
//     them have an FP16 distance at least the largest picked): its answer is its nearest picks;
//  3. the others are gathered and joined again on tensor cores with their own radius U
//     (tensor_join_kernel.cuh with row_bound), every pair within it decided exactly, and each
//     query's k nearest of those chosen on the host (engine/knn/nearest_selection.h).
// The result is run_knn_join's (engine/knn/knn_join.h), to the bit. Without an eps limit,
// inputs with an infinite coordinate go to the CPU engine (partners at an infinite distance
// count there, ranked by index).
#pragma once

#include "engine/knn/knn_join.h"
#include "engine/pair_sink.h"
#include "engine/types.h"

namespace simjoin::gpu {

// run_knn_join's contract on the device, for the joins gpu::runs_knn (gpu_backend.h) takes; pairs arrive once the device is done, the settled
// queries first. Throws simjoin::Error on CUDA failures (device memory freed).
JoinStats run_knn_tensor_join(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                              PairSink& sink);

}  // namespace simjoin::gpu
