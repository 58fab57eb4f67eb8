// The exact k-nearest-neighbour join: per left point, its k nearest right points within eps.
#pragma once

#include <cstddef>

#include "engine/pair_sink.h"
#include "engine/types.h"

namespace simjoin {

// How the neighbours are searched (the result is the same):
//   Auto: SortedProjection for dim <= kKnnProjectionMaxDim (not cosine), else BruteForce.
//   SortedProjection: the right points sorted on their widest dimension, searched outward from
//     each query until that dimension's term alone exceeds the current k-th distance.
//   BruteForce: every right point, in blocks, each with the early exit at the k-th distance.
enum class KnnAlgorithm { Auto, SortedProjection, BruteForce };

constexpr std::size_t kKnnProjectionMaxDim = 8;

struct KnnSpec {
  std::size_t k = 1;
  double eps = 0.0;  // +infinity: no limit
  Metric metric = Metric::Euclidean;
  // Self-join only (right == nullptr): false skips the pair (i, i).
  bool include_self = true;
  KnnAlgorithm algorithm = KnnAlgorithm::Auto;
  // Cpu: this process's engine. Gpu: the installed GPU backend where it takes the join
  // (JoinBackend::runs_knn), else the CPU; an error without a usable GPU. Auto: the GPU backend
  // where one is installed, usable and takes the join, else the CPU.
  Device device = Device::Cpu;
  int threads = 0;  // 0: hardware concurrency
  std::size_t batch_pairs = 1u << 16;
};

// For every left point i, the right points j with d(i, j) <= eps (exact_distance of distance.h;
// a NaN distance is never within), ordered by (distance, j), the first k of them; streamed to
// `sink` on the calling thread as pairs (i, j, distance). A point's pairs arrive in that order
// (one worker writes them, in sequence), possibly split over batches with other points' pairs
// between them; points come in no particular order. Ties at the k-th distance go to the smaller
// index: a caller that wants SQL's "smaller key" gives the right points in key order.
// right == nullptr: left joined with itself (include_self). k == 0 or eps < 0: no pairs.
// The sink's keep_going is polled while the workers run (stats.stopped). Throws Error for
// inputs run_join rejects.
JoinStats run_knn_join(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                       PairSink& sink);

// The joins the GPU's kNN join takes (tensor cores, a per-query top-k in a warp's registers):
// Euclidean or cosine distance, k from 1 to kGpuKnnMaxK. The one test, for the GPU backend and
// for a backend routing a job to the GPU service alike.
constexpr std::size_t kGpuKnnMaxK = 32;
bool gpu_takes_knn(const KnnSpec& spec);

// simjoin.device = auto's choice for a kNN join the GPU takes: the GPU where the CPU engine would
// scan (more than kKnnProjectionMaxDim dimensions, or cosine) and the scan's work (left x right x
// dim) makes a job of the service worth its fixed cost; in few dimensions the CPU's sorted
// projection visits few candidates a query.
bool knn_prefers_gpu(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                     int cpu_threads);

}  // namespace simjoin
