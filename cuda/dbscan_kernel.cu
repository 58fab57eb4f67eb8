// DBSCAN on the device (gpu_aggregates.h), after Prokopenko, Lebrun-Grandie and Arndt's FDBSCAN
// ("Fast tree-based algorithms for DBSCAN on GPUs"): one index, two traversals of its producer with device folds (pair_fold.cuh), no pair written anywhere:
//   1. Count (skipped for min_points <= 1): each Unique pair counts for both points; a finite
//      point is core when count + 1 (itself) >= min_points;
//   2. Link: core-core pairs unite their sets in a lock-free union-find whose roots are each set's
//      smallest point, core / non-core pairs keep the non-core point's smallest core neighbour;
//      then every point is pointed at its root.
// The host numbers the clusters exactly as run_dbscan does (by each cluster's smallest point,
// border points included), from the roots, the core flags and the border points' core neighbours.
#include <chrono>
#include <limits>
#include <vector>

#include "cuda_stream.h"
#include "device_buffer.h"
#include "engine/aggregates/dbscan_numbering.h"
#include "engine/engine.h"
#include "fold_pass.cuh"
#include "gpu_aggregates.h"
#include "gpu_device.cuh"
#include "producer_join.cuh"

namespace simjoin::gpu {
namespace {

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

__global__ void init_forest(std::uint32_t* __restrict__ parent, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) parent[i] = i;
}

// core[i] (1 where point i matches itself) stays 1 only with count + 1 >= min_points neighbours.
__global__ void mark_cores(const unsigned long long* __restrict__ count, std::uint32_t n,
                           unsigned long long min_points, std::uint8_t* __restrict__ core) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && core[i] && count[i] + 1 < min_points) core[i] = 0;
}

// After the linking pass (no hook runs any more): every point's parent becomes its root. No path
// halving here: a halving store could overwrite a root written by another thread with an ancestor
// that is not; each thread writes only its own slot, and only a root.
__global__ void flatten_forest(std::uint32_t* parent, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t root = i, next;
  while ((next = __ldcg(parent + root)) != root) root = next;
  parent[i] = root;
}

// Device bytes besides the join: count, core flag, parent and smallest core neighbour per point.
std::size_t dbscan_bytes(std::size_t n) {
  return n * (sizeof(std::uint64_t) + sizeof(std::uint8_t) + 2 * sizeof(std::uint32_t));
}

// The engine's numbering (engine/aggregates/dbscan_numbering.h) over the device's core flags and flattened forest.
void number_clusters(const std::vector<std::uint8_t>& core, const std::vector<std::uint32_t>& root,
                     const std::vector<std::uint32_t>& border_core, DbscanResult& result) {
  for (std::size_t i = 0; i < core.size(); ++i)
    if (core[i]) result.kind[i] = PointKind::Core;
  number_dbscan_clusters(result, border_core, core.size(),
                         [&root](std::uint32_t member) { return root[member]; });
}

}  // namespace

DbscanResult dbscan(const PointSet& points, const JoinSpec& spec, std::uint64_t min_points,
                    const KeepGoing& keep_going) {
  const std::size_t n = points.n;
  JoinSpec join_spec = spec;
  join_spec.self_pairs = SelfPairs::Unique;
  // Cosine pairs are linked on the host (their identities are not folded on the device).
  ProducerPlan plan = plan_producer_join(points, nullptr, join_spec, dbscan_bytes(n), false);
  if (!plan.fits) {
    // The host union-find over the GPU join with the algorithm planned (a runner keeps
    // run_dbscan from coming back here).
    JoinSpec host = spec;
    host.algorithm = plan.spec.algorithm;
    DbscanResult result =
        run_dbscan(points, host, min_points, keep_going,
                   [](const PointSet& l, const PointSet* r, const JoinSpec& s, PairSink& sink) {
                     return run_join(l, r, s, sink);
                   });
    add_choice(min_points > 1 ? result.counting : result.linking, std::move(plan));
    return result;
  }
  use_device();
  DbscanResult result;
  result.kind.assign(n, PointKind::Noise);
  // The points that match themselves: core candidates.
  std::vector<std::uint8_t> self_match(n, 0);
  for (std::uint32_t i : self_matching_ids(points, spec)) self_match[i] = 1;
  CudaStream stream;
  DeviceBuffer<unsigned long long> count(min_points > 1 ? n : 0);
  DeviceBuffer<std::uint8_t> core(n);
  DeviceBuffer<std::uint32_t> parent(n), border_core(n);
  const StreamDrain drain(stream.get());  // after the buffers: nothing in flight frees them
  if (n > 0) {
    CUDA_CHECK(cudaMemcpyAsync(core.data(), self_match.data(), core.bytes(),
                               cudaMemcpyHostToDevice, stream.get()));
    CUDA_CHECK(cudaMemsetAsync(count.data(), 0, count.bytes(), stream.get()));
    CUDA_CHECK(cudaMemsetAsync(border_core.data(), 0xff, border_core.bytes(), stream.get()));
    init_forest<<<blocks_for(n), 256, 0, stream.get()>>>(parent.data(), static_cast<std::uint32_t>(n));
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  PairFold fold;
  fold.fold_left = fold.fold_right = true;
  fold.count = count.data();
  fold.core = core.data();
  fold.parent = parent.data();
  fold.border_core = border_core.data();
  ControlSink control(keep_going);
  bool counted = false;
  const ProducerConsumer consume = [&](const PairProducer& producer, JoinStats& stats) {
    std::uint64_t pairs = 0;
    if (min_points > 1) {
      fold.kind = FoldKind::Count;
      if (!run_fold_pass(producer, fold, control, "fold-count", stats, &pairs)) return false;
      mark_cores<<<blocks_for(n), 256, 0, stream.get()>>>(count.data(), static_cast<std::uint32_t>(n),
                                                           min_points, core.data());
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      // The counting join's stats so far; the linking pass reports its own.
      stats.pairs = pairs;
      result.counting = stats;
      stats.phase_seconds.clear();
      stats.candidates = stats.batches = 0;
      counted = true;
    }
    fold.kind = FoldKind::Link;
    if (!run_fold_pass(producer, fold, control, "fold-link", stats, &pairs)) return false;
    stats.pairs = pairs;
    flatten_forest<<<blocks_for(n), 256, 0, stream.get()>>>(parent.data(), static_cast<std::uint32_t>(n));
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    return true;
  };
  const JoinStats joined = run_producer_join(points, nullptr, std::move(plan), control, consume);
  if (min_points > 1 && !counted) {
    result.counting = joined;  // stopped while counting, or nothing to count
    if (joined.stopped) return result;
  }
  result.linking = joined;
  if (joined.stopped) return result;

  const auto start = std::chrono::steady_clock::now();
  number_clusters(to_host(core, n), to_host(parent, n), to_host(border_core, n), result);
  result.linking.phase_seconds.emplace_back(
      "number", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return result;
}

}  // namespace simjoin::gpu
