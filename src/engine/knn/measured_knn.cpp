#include "engine/knn/measured_knn.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "engine/knn/neighbour_heap.h"
#include "engine/parallel/batch_pipeline.h"

namespace simjoin {

namespace {

// Candidates a round keeps at once (engine distance and index: 12 bytes each): left points are
// searched in blocks of this many candidates over their queries.
constexpr std::size_t kRoundCandidates = std::size_t{1} << 22;

// The engine's candidates of each query of a block, in the order they arrive (nearest first).
class CandidateSink : public PairSink {
 public:
  CandidateSink(std::size_t queries, std::size_t per_query, PairSink& outer)
      : per_query_(per_query), index_(queries * per_query), distance_(queries * per_query),
        count_(queries, 0), outer_(outer) {}

  bool consume(const PairBatch& batch) override {
    for (std::size_t k = 0; k < batch.size; ++k) {
      const std::uint32_t q = batch.left[k];
      if (count_[q] == per_query_) throw Error("kNN join: more neighbours than asked for");
      const std::size_t slot = q * per_query_ + count_[q]++;
      index_[slot] = batch.right[k];
      distance_[slot] = batch.distance[k];
    }
    return outer_.keep_going();
  }
  bool keep_going() override { return outer_.keep_going(); }

  std::size_t count(std::size_t q) const { return count_[q]; }
  const std::uint32_t* index(std::size_t q) const { return &index_[q * per_query_]; }
  const double* distance(std::size_t q) const { return &distance_[q * per_query_]; }

 private:
  std::size_t per_query_;
  std::vector<std::uint32_t> index_;
  std::vector<double> distance_;
  std::vector<std::size_t> count_;
  PairSink& outer_;
};

// The certain answers, handed to the sink in batches.
class Output {
 public:
  Output(PairSink& sink, std::size_t batch_pairs)
      : sink_(sink), batch_pairs_(std::max<std::size_t>(batch_pairs, 1)) {}
  bool add(std::uint32_t i, std::uint32_t j, double d) {
    batch_.left.push_back(i);
    batch_.right.push_back(j);
    batch_.distance.push_back(d);
    return batch_.size() < batch_pairs_ || flush();
  }
  bool flush() {
    if (batch_.size() == 0) return true;
    const bool more = sink_.consume(batch_.view());
    pairs_ += batch_.size();
    batch_.clear();
    return more;
  }
  std::uint64_t pairs() const { return pairs_; }

 private:
  PairSink& sink_;
  std::size_t batch_pairs_;
  OwnedPairBatch batch_;
  std::uint64_t pairs_ = 0;
};

// Measures query i's candidates (index[0, n), nearest first by the engine's distance) in that
// order until its k nearest by the measure are certain: the next unmeasured candidate, and every
// point left out of them, lie beyond the reach of the k-th measure so far (eps while fewer than k
// are within it), so they are all farther. `complete`: the candidates are every point within the
// engine's eps. True with `best` holding the answer; false where the candidates do not settle it.
// A batch measures k candidates while fewer than k are held, then one at a time.
bool settle(std::uint32_t i, const std::uint32_t* index, const double* distance, std::size_t n,
            bool complete, bool skip_self, const KnnSpec& spec, const KnnMeasure& measure,
            NeighbourHeap& best, std::vector<std::uint32_t>& batch, std::vector<double>& values) {
  best.reset();
  std::size_t c = 0;
  for (;;) {
    const double kth = best.full() ? best.kth_distance() : spec.eps;
    while (c < n && skip_self && index[c] == i) ++c;
    bool settled = false;
    if (c == n)
      settled = complete || (n > 0 && distance[n - 1] > measure.reach(kth));
    else if (distance[c] > measure.reach(kth))
      settled = true;
    if (c == n || settled) return settled;
    batch.clear();
    const std::size_t wanted = best.full() ? 1 : std::min(spec.k, n - c);
    for (; c < n && batch.size() < wanted; ++c)
      if (!(skip_self && index[c] == i)) batch.push_back(index[c]);
    values.resize(batch.size());
    measure.measure(i, batch.data(), batch.size(), values.data());
    for (std::size_t b = 0; b < batch.size(); ++b)
      if (values[b] <= spec.eps) best.offer(values[b], batch[b]);
  }
}

}  // namespace

JoinStats run_measured_knn(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                           const KnnMeasure& measure, const KnnRunner& runner, PairSink& sink) {
  JoinStats stats;
  const PointSet& others = right ? *right : left;
  if (spec.k == 0 || !(spec.eps >= 0) || left.n == 0 || others.n == 0) return stats;
  const double engine_eps = std::isinf(spec.eps) ? spec.eps : measure.reach(spec.eps);
  if (std::isnan(engine_eps)) return stats;
  // A self-join runs its rounds as a join of subsets of left with left: the row itself is one
  // candidate more to ask for where it is not its own neighbour.
  const bool skip_self = right == nullptr && !spec.include_self;
  std::vector<std::uint32_t> pending(left.n);
  std::iota(pending.begin(), pending.end(), 0u);
  std::vector<double> coords;
  // (the heap's own eps bound is unused: the measure's values are compared with eps as they are)
  NeighbourHeap measured(spec.k, spec.eps, Metric::Euclidean);
  std::vector<std::uint32_t> candidates;
  std::vector<double> values;
  Output out(sink, spec.batch_pairs);
  const auto stop = [&] {
    stats.stopped = true;
    stats.pairs = out.pairs();
    return stats;
  };
  // The first round's candidates beyond k: on the spheroid the measure's order differs from the
  // chord's by under 1%, so a few more than k settle most points.
  std::size_t wanted = spec.k + spec.k / 2 + 2;
  while (!pending.empty()) {
    const std::size_t asked = std::min(wanted + (skip_self ? 1 : 0), others.n);
    const bool every_point = asked == others.n;
    const std::size_t block = std::max<std::size_t>(1, kRoundCandidates / asked);
    std::vector<std::uint32_t> unsettled;
    for (std::size_t first = 0; first < pending.size(); first += block) {
      const std::size_t queries = std::min(block, pending.size() - first);
      coords.resize(queries * left.dim);
      for (std::size_t q = 0; q < queries; ++q)
        std::copy_n(left.point(pending[first + q]), left.dim, coords.begin() + q * left.dim);
      const PointSet subset{coords.data(), queries, left.dim};
      KnnSpec round = spec;
      round.k = asked;
      round.eps = engine_eps;
      round.include_self = true;
      CandidateSink found(queries, asked, sink);
      const JoinStats engine = runner(subset, &others, round, found);
      stats.device = engine.device;
      stats.algorithm = engine.algorithm;
      stats.candidates += engine.candidates;
      ++stats.batches;
      if (engine.stopped || !sink.keep_going()) return stop();
      for (std::size_t q = 0; q < queries; ++q) {
        // (the measures may be slow calls: a cancel is polled between queries)
        if ((q & 255) == 255 && !sink.keep_going()) return stop();
        const std::uint32_t i = pending[first + q];
        const std::size_t n = found.count(q);
        // Every point within the engine's eps came (fewer than asked, or all of them).
        const bool complete = every_point || n < asked;
        if (!settle(i, found.index(q), found.distance(q), n, complete, skip_self, spec, measure,
                    measured, candidates, values)) {
          unsettled.push_back(i);
          continue;
        }
        for (const Neighbour& neighbour : measured.sorted())
          if (!out.add(i, neighbour.index, neighbour.distance)) return stop();
      }
    }
    pending.swap(unsettled);
    wanted = wanted > others.n / 4 ? others.n : wanted * 4;
  }
  stats.stopped = !out.flush();
  stats.pairs = out.pairs();
  return stats;
}

}  // namespace simjoin
