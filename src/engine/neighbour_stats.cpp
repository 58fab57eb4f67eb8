#include "neighbour_stats.h"

#include <cmath>

#include "distance.h"
#include "engine.h"

namespace simjoin {

NeighbourStatsSink::NeighbourStatsSink(std::size_t points, StatsSide side, bool fold_both,
                                       const std::uint64_t* partner_ranks)
    : side_(side), fold_both_(fold_both), partner_ranks_(partner_ranks) {
  stats_.count.assign(points, 0);
  stats_.min_distance.assign(points, std::nan(""));
  stats_.max_distance.assign(points, std::nan(""));
  stats_.nearest.assign(points, kNoPartner);
}

void NeighbourStatsSink::fold(std::uint32_t point, std::uint32_t partner, double distance) {
  if (stats_.count[point]++ == 0) {
    stats_.min_distance[point] = distance;
    stats_.max_distance[point] = distance;
    stats_.nearest[point] = partner;
    return;
  }
  double& least = stats_.min_distance[point];
  if (distance < least) {
    least = distance;
    stats_.nearest[point] = partner;
  } else if (distance == least) {
    const std::uint32_t held = stats_.nearest[point];
    const std::uint64_t rank = rank_of(partner), held_rank = rank_of(held);
    if (rank < held_rank || (rank == held_rank && partner < held)) stats_.nearest[point] = partner;
  }
  if (distance > stats_.max_distance[point]) stats_.max_distance[point] = distance;
}

bool NeighbourStatsSink::consume(const PairBatch& batch) {
  const bool left_side = side_ == StatsSide::Left;
  for (std::size_t k = 0; k < batch.size; ++k) {
    const std::uint32_t l = batch.left[k], r = batch.right[k];
    if (fold_both_ || left_side) fold(l, r, batch.distance[k]);
    if (fold_both_ || !left_side) fold(r, l, batch.distance[k]);
  }
  stats_.pairs += batch.size;
  return true;
}

NeighbourStats NeighbourStatsSink::finish() { return std::move(stats_); }

NeighbourStats run_neighbour_stats(const PointSet& left, const PointSet* right,
                                   const JoinSpec& spec, StatsSide side,
                                   const std::uint64_t* partner_ranks) {
  const bool self = right == nullptr;
  if (self) side = StatsSide::Left;
  NeighbourStatsSink sink(side == StatsSide::Left ? left.n : right->n, side, self, partner_ranks);
  JoinSpec join_spec = spec;
  if (self) join_spec.self_pairs = SelfPairs::Unique;
  const JoinStats join = run_join(left, right, join_spec, sink);
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
