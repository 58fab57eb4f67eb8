// Neighbour statistics on the device (gpu_aggregates.h): two traversals of the join's producer
// with device folds (pair_fold.cuh), no pair written anywhere:
//   1. Stats: per point of the aggregated side (both points of a self-join's Unique pair) the
//      count, and the smallest and largest distance as atomicMin / atomicMax on the bits;
//   2. Nearest: pairs at a point's final smallest distance offer the partner's order key to an
//      atomicMin. The key is the partner's position in (rank, index) order (a stable CUB radix
//      sort of the ranks by index), or its index without ranks: the CPU's tie rule exactly.
// A self-join in SelfPairs::All folds the identity pairs (i, i) of its finite points in both
// passes, as run_neighbour_stats adds them after its Unique join.
#include <cub/device/device_radix_sort.cuh>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cuda_stream.h"
#include "device_buffer.h"
#include "engine/engine.h"
#include "fold_pass.cuh"
#include "gpu_aggregates.h"
#include "gpu_device.cuh"
#include "producer_join.cuh"

namespace simjoin::gpu {
namespace {

using Clock = std::chrono::steady_clock;

__global__ void iota_ids(std::uint32_t* __restrict__ ids, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ids[i] = i;
}

__global__ void scatter_positions(const std::uint32_t* __restrict__ sorted_ids, std::uint32_t n,
                                  std::uint32_t* __restrict__ position) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) position[sorted_ids[k]] = k;
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

// Each partner's position in (rank, index) order (`order_key`), and the partners in that order
// (`by_order`), from the ranks on the host.
void rank_order(const std::uint64_t* ranks, std::uint32_t n, DeviceBuffer<std::uint32_t>& order_key,
                DeviceBuffer<std::uint32_t>& by_order, cudaStream_t stream) {
  DeviceBuffer<std::uint64_t> keys(n), sorted_keys(n);
  DeviceBuffer<std::uint32_t> ids(n);
  order_key.resize(n);
  by_order.resize(n);
  if (n == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(keys.data(), ranks, keys.bytes(), cudaMemcpyHostToDevice, stream));
  iota_ids<<<blocks_for(n), 256, 0, stream>>>(ids.data(), n);
  CUDA_CHECK_LAUNCH();
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.data(), sorted_keys.data(),
                                             ids.data(), by_order.data(), n, 0, 64, stream));
  DeviceBuffer<std::uint8_t> temp(temp_bytes);
  // Stable: equal ranks keep index order.
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys.data(),
                                             sorted_keys.data(), ids.data(), by_order.data(), n, 0,
                                             64, stream));
  scatter_positions<<<blocks_for(n), 256, 0, stream>>>(by_order.data(), n, order_key.data());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the host ranks and the temporaries
}

// Device bytes besides the join: the per-point arrays `fields` folds into and, with ranks, the
// order keys, the partners by order and the sort's keys, ids and temporary storage.
std::size_t aggregate_bytes(std::size_t points, std::size_t partners, bool ranks,
                            StatsFields fields) {
  if (fields == StatsFields::PairsOnly) return 0;
  if (fields == StatsFields::CountsOnly) return points * sizeof(std::uint64_t);
  return points * (3 * sizeof(std::uint64_t) + sizeof(std::uint32_t)) +
         (ranks ? partners * (2 * sizeof(std::uint32_t) + 4 * sizeof(std::uint64_t) +
                              2 * sizeof(std::uint32_t))
                : 0);
}

}  // namespace

NeighbourStats neighbour_stats(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                               StatsSide side, const std::uint64_t* partner_ranks,
                               const KeepGoing& keep_going, StatsFields fields) {
  const bool self = right == nullptr;
  if (self) side = StatsSide::Left;
  const std::size_t n = side == StatsSide::Left ? left.n : right->n;
  const std::size_t partners = self ? left.n : (side == StatsSide::Left ? right->n : left.n);
  // run_neighbour_stats passes partner ranks only with StatsFields::All.
  const bool all = fields == StatsFields::All, per_point = fields != StatsFields::PairsOnly;
  JoinSpec join_spec = spec;
  if (self) join_spec.self_pairs = SelfPairs::Unique;
  // A cosine pair's distance is not folded on the device (min, max, nearest: StatsFields::All).
  const std::size_t aggregates = aggregate_bytes(n, partners, partner_ranks, fields);
  ProducerPlan plan = plan_producer_join(left, right, join_spec, aggregates, !all);
  if (!plan.fits) {
    // The host fold over the GPU join with the algorithm planned (a runner keeps
    // run_neighbour_stats from coming back here).
    JoinSpec host = spec;
    host.algorithm = plan.spec.algorithm;
    NeighbourStats stats =
        run_neighbour_stats(left, right, host, side, partner_ranks, keep_going,
                            [](const PointSet& l, const PointSet* r, const JoinSpec& s,
                               PairSink& sink) { return run_join(l, r, s, sink); },
                            fields);
    add_choice(stats.join, std::move(plan));
    return stats;
  }
  CudaStream stream;
  const std::size_t stats_n = all ? n : 0;
  DeviceBuffer<unsigned long long> count(per_point ? n : 0), min_bits(stats_n), max_bits(stats_n);
  DeviceBuffer<std::uint32_t> nearest(stats_n), order_key, by_order, identity_ids;
  const StreamDrain drain(stream.get());  // after the buffers: nothing in flight frees them
  CUDA_CHECK(cudaMemsetAsync(count.data(), 0, count.bytes(), stream.get()));
  CUDA_CHECK(cudaMemsetAsync(min_bits.data(), 0xff, min_bits.bytes(), stream.get()));
  CUDA_CHECK(cudaMemsetAsync(max_bits.data(), 0, max_bits.bytes(), stream.get()));
  CUDA_CHECK(cudaMemsetAsync(nearest.data(), 0xff, nearest.bytes(), stream.get()));
  if (partner_ranks)
    rank_order(partner_ranks, static_cast<std::uint32_t>(partners), order_key, by_order,
               stream.get());
  // SelfPairs::All: the identity pairs (p, p) with d(p, p) <= eps, decided as the CPU engine
  // decides them; without per-point arrays only their number.
  const bool identities = self && spec.self_pairs == SelfPairs::All && spec.eps >= 0.0;
  const std::vector<std::uint32_t> ids =
      identities ? self_matching_ids(left, spec) : std::vector<std::uint32_t>();
  if (per_point) identity_ids.resize(ids.size());
  if (identity_ids.size() > 0)
    CUDA_CHECK(cudaMemcpyAsync(identity_ids.data(), ids.data(), identity_ids.bytes(),
                               cudaMemcpyHostToDevice, stream.get()));
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));  // the pageable copy, before other streams read

  PairFold fold;
  // Pairs only: a Count pass that folds into no point; the pass counts the pairs all the same.
  fold.fold_left = per_point && (self || side == StatsSide::Left);
  fold.fold_right = per_point && (self || side == StatsSide::Right);
  fold.count = count.data();
  fold.min_bits = min_bits.data();
  fold.max_bits = max_bits.data();
  fold.nearest = nearest.data();
  fold.order_key = partner_ranks ? order_key.data() : nullptr;
  const std::uint32_t identity_count = static_cast<std::uint32_t>(ids.size());
  std::uint64_t pairs = 0;
  ControlSink control(keep_going);
  const std::vector<FoldKind> passes =
      all ? std::vector<FoldKind>{FoldKind::Stats, FoldKind::Nearest}
          : std::vector<FoldKind>{FoldKind::Count};
  const ProducerConsumer consume = [&](const PairProducer& producer, JoinStats& stats) {
    std::uint64_t nearest_pairs = 0;
    for (FoldKind kind : passes) {
      fold.kind = kind;
      const char* phase = kind == FoldKind::Nearest ? "fold-nearest"
                          : kind == FoldKind::Stats ? "fold-stats"
                                                    : "fold-count";
      if (!run_fold_pass(producer, fold, control, phase, stats,
                         kind == FoldKind::Nearest ? &nearest_pairs : &pairs))
        return false;
      if (per_point) fold_identities(fold, identity_ids.data(), identity_count, stream.get());
      CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    }
    return true;
  };
  NeighbourStats result;
  result.join = run_producer_join(left, right, std::move(plan), control, consume);
  result.join.pairs = pairs;
  if (result.join.stopped) return result;

  const auto start = Clock::now();
  result.pairs = self && spec.self_pairs == SelfPairs::All ? 2 * pairs + identity_count : pairs;
  if (per_point) {
    const std::vector<unsigned long long> counts = to_host(count, n);
    result.count.assign(counts.begin(), counts.end());
  }
  if (all) {
    const std::vector<unsigned long long> low = to_host(min_bits, n), high = to_host(max_bits, n);
    result.nearest = to_host(nearest, n);
    const std::vector<std::uint32_t> partner_of = partner_ranks ? to_host(by_order, partners)
                                                                 : std::vector<std::uint32_t>();
    result.min_distance.assign(n, std::nan(""));
    result.max_distance.assign(n, std::nan(""));
    for (std::size_t i = 0; i < n; ++i) {
      if (result.count[i] == 0) {
        result.nearest[i] = kNoPartner;
        continue;
      }
      std::memcpy(&result.min_distance[i], &low[i], sizeof(double));
      std::memcpy(&result.max_distance[i], &high[i], sizeof(double));
      if (partner_ranks) result.nearest[i] = partner_of[result.nearest[i]];
    }
  }
  result.join.phase_seconds.emplace_back(
      "download", std::chrono::duration<double>(Clock::now() - start).count());
  return result;
}

}  // namespace simjoin::gpu
