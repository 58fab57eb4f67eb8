// Aggregates of an epsilon join computed while it runs, without storing pairs: per point of one
// side, how many partners it has within eps, the smallest and largest distance to them and the
// partner at the smallest distance; plus the join's pair count.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "engine/pair_sink.h"
#include "engine/parallel/filled_vector.h"
#include "engine/types.h"

namespace simjoin {

// Exact: counts are the pairs run_join reports, distances the doubles it reports.
//
// Partners of a point are the points of the other side it pairs with. A self-join
// (right == nullptr) reports, per JoinSpec::self_pairs:
//   All    (SQL's `FROM t a JOIN t b ON d <= eps`): every point's partners, itself included when
//          d(p, p) <= eps (a finite point with eps >= 0; NaN or infinite coordinates never match
//          themselves); `pairs` counts ordered pairs, (i, i) included.
//   Unique: every point's partners other than itself; `pairs` counts unordered pairs {i, j}.
// Both run the join in Unique mode (each pair once) and fold it into both points; All adds the
// identity pairs afterwards. The side argument is ignored in a self-join (it is symmetric).
//
// The nearest partner: the one at the smallest distance; ties go to the smaller rank
// (`partner_ranks[j]` for partner j, e.g. the position of j's SQL key in key order; nullptr: the
// partner's index), equal ranks to the smaller index.
//
// The sink folds on the calling thread (PairSink's contract): one pass over each batch, a few
// array updates per pair, far cheaper than finding the pair (simjoin_bench --stats measures both).

enum class StatsSide { Left, Right };

// What the fold computes: every field; the counts only (min_distance, max_distance and nearest
// then come back empty: a count per pair folds in a fraction of the time, its array a quarter of
// the memory); or the join's pair count only (`pairs`; every per-point array empty: count(*)).
enum class StatsFields { All, CountsOnly, PairsOnly };

// Polled like PairSink::keep_going (query cancel); false stops the join, whose partial aggregates
// the caller then discards (JoinStats::stopped). Empty: never stops.
using KeepGoing = std::function<bool()>;

// Called now and then on the calling thread with the candidate pairs (distance evaluations)
// finished so far, never decreasing: a progress report. Empty: none.
using Progress = std::function<void(std::uint64_t candidates_done)>;

// How the aggregates run their joins; empty: run_join. The PostgreSQL glue passes its own route
// (the GPU service or this backend's leased CPU threads).
using JoinRunner =
    std::function<JoinStats(const PointSet&, const PointSet*, const JoinSpec&, PairSink&)>;

// `nearest` of a point without partners.
constexpr std::uint32_t kNoPartner = std::numeric_limits<std::uint32_t>::max();

struct NeighbourStats {
  FilledVector<std::uint64_t> count;   // partners of each point of the side
  std::vector<double> min_distance;    // NaN where count == 0
  std::vector<double> max_distance;    // NaN where count == 0
  std::vector<std::uint32_t> nearest;  // the partner at min_distance; kNoPartner where count == 0
  std::uint64_t pairs = 0;             // the join's pairs (see the self-join modes above)
  JoinStats join;                      // what run_join reported
};

// Folds pairs into per-point aggregates. `points`: the size of the side folded; `fold_both`: a
// self-join in Unique mode, each pair (a, b) counts for a and for b; `partner_ranks` may be null.
class NeighbourStatsSink : public PairSink {
 public:
  NeighbourStatsSink(std::size_t points, StatsSide side, bool fold_both,
                     const std::uint64_t* partner_ranks, KeepGoing keep_going = {},
                     StatsFields fields = StatsFields::All, Progress progress = {});
  bool consume(const PairBatch& batch) override;
  bool keep_going() override { return !keep_going_ || keep_going_(); }
  void progress(std::uint64_t candidates_done) override {
    if (progress_) progress_(candidates_done);
  }
  // One pair seen from `point` (does not count it in `pairs`).
  void fold(std::uint32_t point, std::uint32_t partner, double distance);
  // The aggregates (NaN / kNoPartner where a point has no partner); the sink is spent.
  NeighbourStats finish();

 private:
  std::uint64_t rank_of(std::uint32_t partner) const {
    return partner_ranks_ ? partner_ranks_[partner] : partner;
  }
  // One point's aggregates together: a fold touches one cache line, not four arrays.
  struct alignas(32) Folded {
    std::uint64_t count;
    double min_distance;
    double max_distance;
    std::uint32_t nearest;
  };
  StatsFields fields_;
  std::vector<Folded> folded_;         // StatsFields::All
  FilledVector<std::uint64_t> counts_;  // StatsFields::CountsOnly
  std::uint64_t pairs_ = 0;
  StatsSide side_;
  bool fold_both_;
  const std::uint64_t* partner_ranks_;
  KeepGoing keep_going_;
  Progress progress_;
};

// Runs run_join(left, right, spec) into a NeighbourStatsSink for `side` (left points' partners
// are right points and vice versa). `partner_ranks`: one rank per point of the other side (in a
// self-join, per point), or nullptr. Throws what run_join throws; `keep_going` may stop it.
// `runner` runs the join (empty: run_join); `fields`: what the caller reads; `progress`: the
// candidates done, now and then (the CPU engine's folds; a GPU backend reports none).
NeighbourStats run_neighbour_stats(const PointSet& left, const PointSet* right,
                                   const JoinSpec& spec, StatsSide side = StatsSide::Left,
                                   const std::uint64_t* partner_ranks = nullptr,
                                   const KeepGoing& keep_going = {},
                                   const JoinRunner& runner = {},
                                   StatsFields fields = StatsFields::All,
                                   const Progress& progress = {});

// runner(left, right, spec, sink), or run_join when runner is empty.
JoinStats run_with(const JoinRunner& runner, const PointSet& left, const PointSet* right,
                   const JoinSpec& spec, PairSink& sink);

}  // namespace simjoin
