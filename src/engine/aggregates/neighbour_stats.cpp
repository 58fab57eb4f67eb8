#include "engine/aggregates/neighbour_stats.h"

#include <cmath>
#include <optional>

#include "engine/aggregates/aggregate_backend.h"
#include "engine/choice/device_choice.h"
#include "engine/distance.h"
#include "engine/engine.h"
#include "engine/join/input_checks.h"
#include "engine/parallel/batch_pipeline.h"

namespace simjoin {

NeighbourStatsSink::NeighbourStatsSink(std::size_t points, StatsSide side, bool fold_both,
                                       const std::uint64_t* partner_ranks, KeepGoing keep_going,
                                       StatsFields fields, Progress progress)
    : fields_(fields),
      side_(side),
      fold_both_(fold_both),
      partner_ranks_(partner_ranks),
      keep_going_(std::move(keep_going)),
      progress_(std::move(progress)) {
  if (fields_ == StatsFields::CountsOnly)
    counts_.assign(points, 0);
  else if (fields_ == StatsFields::All)
    folded_.assign(points, Folded{0, std::nan(""), std::nan(""), kNoPartner});
}

void NeighbourStatsSink::fold(std::uint32_t point, std::uint32_t partner, double distance) {
  if (fields_ != StatsFields::All) {
    if (fields_ == StatsFields::CountsOnly) ++counts_[point];
    return;
  }
  Folded& f = folded_[point];
  if (f.count++ == 0) {
    f = Folded{1, distance, distance, partner};
    return;
  }
  if (distance < f.min_distance) {
    f.min_distance = distance;
    f.nearest = partner;
  } else if (distance == f.min_distance) {
    const std::uint64_t rank = rank_of(partner), held_rank = rank_of(f.nearest);
    if (rank < held_rank || (rank == held_rank && partner < f.nearest)) f.nearest = partner;
  }
  if (distance > f.max_distance) f.max_distance = distance;
}

bool NeighbourStatsSink::consume(const PairBatch& batch) {
  const bool left_side = side_ == StatsSide::Left;
  const bool fold_left = fold_both_ || left_side, fold_right = fold_both_ || !left_side;
  if (fields_ == StatsFields::PairsOnly) {
    pairs_ += batch.size;
    return true;
  }
  if (fields_ == StatsFields::CountsOnly) {
    std::uint64_t* counts = counts_.data();
    if (fold_left)
      for (std::size_t k = 0; k < batch.size; ++k) ++counts[batch.left[k]];
    if (fold_right)
      for (std::size_t k = 0; k < batch.size; ++k) ++counts[batch.right[k]];
    pairs_ += batch.size;
    return true;
  }
  for (std::size_t k = 0; k < batch.size; ++k) {
    const std::uint32_t l = batch.left[k], r = batch.right[k];
    if (fold_left) fold(l, r, batch.distance[k]);
    if (fold_right) fold(r, l, batch.distance[k]);
  }
  pairs_ += batch.size;
  return true;
}

NeighbourStats NeighbourStatsSink::finish() {
  NeighbourStats stats;
  if (fields_ != StatsFields::All) {
    stats.count = std::move(counts_);
    stats.pairs = pairs_;
    return stats;
  }
  const std::size_t n = folded_.size();
  stats.count.resize(n);
  stats.min_distance.resize(n);
  stats.max_distance.resize(n);
  stats.nearest.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    stats.count[i] = folded_[i].count;
    stats.min_distance[i] = folded_[i].min_distance;
    stats.max_distance[i] = folded_[i].max_distance;
    stats.nearest[i] = folded_[i].nearest;
  }
  stats.pairs = pairs_;
  folded_.clear();
  folded_.shrink_to_fit();
  return stats;
}

JoinStats run_with(const JoinRunner& runner, const PointSet& left, const PointSet* right,
                   const JoinSpec& spec, PairSink& sink) {
  return runner ? runner(left, right, spec, sink) : run_join(left, right, spec, sink);
}

namespace {

// The counts only on the CPU grid without pairs (count_on_cpu_grid), where it runs the grid.
std::optional<NeighbourStats> counts_on_grid(const PointSet& left, const PointSet* right,
                                             const JoinSpec& spec, StatsSide side,
                                             const KeepGoing& keep_going,
                                             const Progress& progress) {
  const bool self = right == nullptr;
  const PointSet& counted = (self || side == StatsSide::Left) ? left : *right;
  const PointSet* partners = self ? nullptr : (side == StatsSide::Left ? right : &left);
  NeighbourStats stats;
  std::optional<JoinStats> join =
      count_on_cpu_grid(counted, partners, spec, keep_going, &stats.count, progress);
  if (!join) return std::nullopt;
  stats.pairs = join->pairs;
  if (self && spec.self_pairs == SelfPairs::Unique) {
    // Each point with a finite coordinate vector counted itself (d(p, p) = 0), the others none.
    std::uint64_t counted_themselves = 0;
    for (std::uint64_t& count : stats.count) {
      if (count == 0) continue;
      --count;
      ++counted_themselves;
    }
    stats.pairs = (stats.pairs - counted_themselves) / 2;
  }
  stats.join = std::move(*join);
  return stats;
}

}  // namespace

NeighbourStats run_neighbour_stats(const PointSet& left, const PointSet* right,
                                   const JoinSpec& spec, StatsSide side,
                                   const std::uint64_t* partner_ranks,
                                   const KeepGoing& keep_going, const JoinRunner& runner,
                                   StatsFields fields, const Progress& progress) {
  const bool self = right == nullptr;
  if (self) side = StatsSide::Left;
  if (fields != StatsFields::All) partner_ranks = nullptr;  // only the nearest partner reads them
  if (!runner) {
    check_inputs(left, right);
    JoinSpec join_spec = spec;  // the join as it runs (a self-join in Unique mode), for Auto
    if (self) join_spec.self_pairs = SelfPairs::Unique;
    if (AggregateBackend* backend = aggregate_backend(left, right, join_spec))
      return backend->neighbour_stats(left, right, spec, side, partner_ranks, keep_going, fields);
    if (fields == StatsFields::CountsOnly && spec.device != Device::Gpu) {
      if (std::optional<NeighbourStats> counted =
              counts_on_grid(left, right, spec, side, keep_going, progress))
        return std::move(*counted);
    }
  }
  NeighbourStatsSink sink(side == StatsSide::Left ? left.n : right->n, side, self, partner_ranks,
                          keep_going, fields, progress);
  JoinSpec join_spec = spec;
  if (self) join_spec.self_pairs = SelfPairs::Unique;
  const JoinStats join = run_with(runner, left, right, join_spec, sink);
  std::uint64_t identities = 0;
  if (self && spec.self_pairs == SelfPairs::All && !join.stopped) {
    // The identity pairs (i, i) SQL's `a JOIN a` returns, decided as the join decides any pair.
    for (std::size_t i = 0; i < left.n; ++i) {
      const double d = exact_distance(left.point(i), left.point(i), left.dim, spec.metric);
      if (!(d <= spec.eps)) continue;
      sink.fold(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i), d);
      ++identities;
    }
  }
  NeighbourStats stats = sink.finish();
  if (self && spec.self_pairs == SelfPairs::All) stats.pairs = 2 * stats.pairs + identities;
  stats.join = join;
  return stats;
}

}  // namespace simjoin
