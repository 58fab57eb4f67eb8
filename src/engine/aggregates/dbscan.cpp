#include "engine/aggregates/dbscan.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include "engine/aggregates/aggregate_backend.h"
#include "engine/aggregates/dbscan_grid.h"
#include "engine/aggregates/dbscan_numbering.h"
#include "engine/aggregates/neighbour_stats.h"
#include "engine/distance.h"
#include "engine/engine.h"
#include "engine/join/input_checks.h"
#include "engine/pair_sink.h"

namespace simjoin {
namespace {

constexpr std::uint32_t kNone = kNoBorderCore;  // no point index

// Disjoint sets over point indexes: union by rank, path compression.
class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : parent_(n), rank_(n, 0) {
    std::iota(parent_.begin(), parent_.end(), 0u);
  }
  std::uint32_t find(std::uint32_t x) {
    std::uint32_t root = x;
    while (parent_[root] != root) root = parent_[root];
    while (parent_[x] != root) {
      const std::uint32_t next = parent_[x];
      parent_[x] = root;
      x = next;
    }
    return root;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (rank_[a] < rank_[b]) std::swap(a, b);
    parent_[b] = a;
    if (rank_[a] == rank_[b]) ++rank_[a];
  }

 private:
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint8_t> rank_;
};

// The second pass: unions core-core pairs, keeps each non-core point's smallest core neighbour.
class LinkingSink : public PairSink {
 public:
  // `counted`: the first pass's candidates, before this pass's in the progress reported.
  LinkingSink(const std::vector<PointKind>& kind, UnionFind& sets,
              std::vector<std::uint32_t>& border_core, const KeepGoing& keep_going,
              const Progress& progress, std::uint64_t counted)
      : kind_(kind), sets_(sets), border_core_(border_core), keep_going_(keep_going),
        progress_(progress), counted_(counted) {}
  bool keep_going() override { return !keep_going_ || keep_going_(); }
  void progress(std::uint64_t candidates_done) override {
    if (progress_) progress_(counted_ + candidates_done);
  }
  bool consume(const PairBatch& batch) override {
    for (std::size_t k = 0; k < batch.size; ++k) {
      const std::uint32_t a = batch.left[k], b = batch.right[k];
      const bool a_core = kind_[a] == PointKind::Core, b_core = kind_[b] == PointKind::Core;
      if (a_core && b_core) {
        sets_.unite(a, b);
      } else if (a_core) {
        border_core_[b] = std::min(border_core_[b], a);
      } else if (b_core) {
        border_core_[a] = std::min(border_core_[a], b);
      }
    }
    return true;
  }

 private:
  const std::vector<PointKind>& kind_;
  UnionFind& sets_;
  std::vector<std::uint32_t>& border_core_;
  const KeepGoing& keep_going_;
  const Progress& progress_;
  std::uint64_t counted_;
};

}  // namespace

DbscanResult run_dbscan(const PointSet& points, const JoinSpec& spec, std::uint64_t min_points,
                        const KeepGoing& keep_going, const JoinRunner& runner,
                        const Progress& progress) {
  if (!runner) {
    check_inputs(points, nullptr);
    JoinSpec join_spec = spec;  // the joins as they run, for Auto
    join_spec.self_pairs = SelfPairs::Unique;
    if (AggregateBackend* backend = aggregate_backend(points, nullptr, join_spec))
      return backend->dbscan(points, spec, min_points, keep_going);
    // Low dimensions on the CPU: the grid DBSCAN (the same results, without enumerating pairs).
    if (spec.device != Device::Gpu) {
      if (std::optional<DbscanResult> grid =
              run_dbscan_grid(points, spec, min_points, keep_going, true, progress))
        return std::move(*grid);
    }
  }
  DbscanResult result;
  const std::size_t n = points.n;
  result.kind.assign(n, PointKind::Noise);
  JoinSpec join_spec = spec;
  join_spec.self_pairs = SelfPairs::All;
  // Without counts (min_points <= 1) every self-matching point is core.
  NeighbourStats counts;
  if (min_points > 1) {
    counts = run_neighbour_stats(points, nullptr, join_spec, StatsSide::Left, nullptr, keep_going,
                                 runner, StatsFields::CountsOnly, progress);
    result.counting = std::move(counts.join);
    if (result.counting.stopped) return result;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (matches_itself(points.point(i), points.dim, spec.metric, spec.eps) &&
        (min_points <= 1 || counts.count[i] >= min_points)) {
      result.kind[i] = PointKind::Core;
    }
  }

  UnionFind sets(n);
  std::vector<std::uint32_t> border_core(n, kNone);
  LinkingSink linking(result.kind, sets, border_core, keep_going, progress,
                      result.counting.candidates);
  join_spec.self_pairs = SelfPairs::Unique;
  result.linking = run_with(runner, points, nullptr, join_spec, linking);
  if (result.linking.stopped) return result;

  number_dbscan_clusters(result, border_core, n,
                         [&sets](std::uint32_t core) { return sets.find(core); });
  return result;
}

}  // namespace simjoin
