#include "engine/join/chunked_join.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "engine/distance.h"
#include "engine/join/chunk_split.h"
#include "engine/join/cosine_join.h"
#include "engine/join/input_checks.h"
#include "engine/parallel/batch_pipeline.h"
#include "engine/parallel/phase_clock.h"

namespace simjoin {
namespace {

// Wraps the caller's sink for one chunk pair at a time: translates the chunk join's pairs to input
// ids (as a self-join match when `self_match`, see engine/join/self_pairs.h) in a reused buffer and forwards
// them in batches of at most batch_pairs. Remembers when the caller's sink asked to stop.
class RemappingSink : public PairSink {
 public:
  RemappingSink(PairSink& out, std::size_t batch_pairs)
      : out_(out), batch_pairs_(std::max<std::size_t>(batch_pairs, 1)) {}

  void route(const Chunk& left, const Chunk& right, bool self_match, SelfPairs mode) {
    left_ids_ = left.ids;
    right_ids_ = right.ids;
    self_match_ = self_match;
    mode_ = mode;
  }

  // Remaps the batch in slices of at most batch_pairs (a mirrored slice then stays within that
  // size too): array loops, no per-pair call, the mirror handed over as a view with the id
  // arrays swapped.
  bool consume(const PairBatch& batch) override {
    const bool unique = self_match_ && mode_ == SelfPairs::Unique;
    const bool mirror = self_match_ && mode_ == SelfPairs::All;
    for (std::size_t from = 0; from < batch.size && !stopped_; from += batch_pairs_) {
      const std::size_t n = std::min(batch_pairs_, batch.size - from);
      buffer_.left.resize(n);
      buffer_.right.resize(n);
      buffer_.distance.assign(batch.distance + from, batch.distance + from + n);
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t a = left_ids_[batch.left[from + k]];
        const std::uint32_t b = right_ids_[batch.right[from + k]];
        buffer_.left[k] = unique ? std::min(a, b) : a;
        buffer_.right[k] = unique ? std::max(a, b) : b;
      }
      forward(buffer_.view());
      if (mirror) forward({buffer_.right.data(), buffer_.left.data(), buffer_.distance.data(), n});
    }
    return !stopped_;
  }

  bool keep_going() override {
    if (!out_.keep_going()) stopped_ = true;
    return !stopped_;
  }

  // The chunk's progress after the finished chunks' candidates (add_finished).
  void progress(std::uint64_t candidates_done) override { out_.progress(finished_ + candidates_done); }
  void add_finished(std::uint64_t candidates) {
    finished_ += candidates;
    out_.progress(finished_);
  }

  bool stopped() const { return stopped_; }
  std::uint64_t batches() const { return batches_; }
  std::uint64_t pairs() const { return pairs_; }

 private:
  void forward(const PairBatch& batch) {
    if (stopped_) return;
    ++batches_;
    pairs_ += batch.size;
    if (!out_.consume(batch)) stopped_ = true;
  }

  PairSink& out_;
  const std::size_t batch_pairs_;
  OwnedPairBatch buffer_;
  const std::uint32_t* left_ids_ = nullptr;
  const std::uint32_t* right_ids_ = nullptr;
  bool self_match_ = false;
  SelfPairs mode_ = SelfPairs::All;
  bool stopped_ = false;
  std::uint64_t finished_ = 0;
  std::uint64_t batches_ = 0;
  std::uint64_t pairs_ = 0;
};

void add_phase(JoinStats& stats, const std::string& name, double seconds) {
  for (auto& phase : stats.phase_seconds) {
    if (phase.first == name) {
      phase.second += seconds;
      return;
    }
  }
  stats.phase_seconds.emplace_back(name, seconds);
}

// Adds one chunk join's stats; `algorithms` collects the distinct inner algorithm names.
void add_chunk_stats(const JoinStats& inner, JoinStats& stats,
                     std::vector<std::string>& algorithms) {
  if (stats.device.empty()) stats.device = inner.device;
  if (std::find(algorithms.begin(), algorithms.end(), inner.algorithm) == algorithms.end()) {
    algorithms.push_back(inner.algorithm);
  }
  stats.indexed_dims = std::max(stats.indexed_dims, inner.indexed_dims);
  stats.candidates += inner.candidates;
  for (const auto& [name, seconds] : inner.phase_seconds) add_phase(stats, name, seconds);
}

}  // namespace

JoinStats run_chunked_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                           std::size_t chunk_points, const ChunkJoinFn& join_chunk,
                           PairSink& sink) {
  const bool nothing_matches = std::isnan(spec.eps) || spec.eps < 0.0 || left.n == 0 ||
                               (right && right->n == 0);
  const bool fits = left.n <= chunk_points && (!right || right->n <= chunk_points);
  if (chunk_points == 0 || fits || nothing_matches) return join_chunk(left, right, spec, sink);
  check_inputs(left, right);
  if (spec.metric == Metric::Cosine) {  // chunks of unit vectors, pruned as Euclidean
    const EuclideanJoinFn chunked = [&](const PointSet& l, const PointSet* r, const JoinSpec& s,
                                        PairSink& out) {
      return run_chunked_join(l, r, s, chunk_points, join_chunk, out);
    };
    return run_cosine_join(left, right, spec, chunked, sink);
  }

  JoinStats stats;
  PhaseClock clock(stats);
  // With eps = +inf nothing can be pruned and non-finite points still match: keep them all.
  const bool prune = std::isfinite(spec.eps) && left.dim > 0;
  const std::size_t split_dim = prune ? split_dimension(left, right) : 0;
  auto split = [&](const PointSet& set) {
    return prune ? split_sorted(set, split_dim, chunk_points) : split_in_order(set, chunk_points);
  };
  const ChunkedInput left_split = split(left);
  const ChunkedInput right_split = right ? split(*right) : ChunkedInput{};
  const std::vector<Chunk>& left_chunks = left_split.chunks;
  const std::vector<Chunk>& right_chunks = right ? right_split.chunks : left_split.chunks;
  const double bound = accumulated_bound(spec.eps, spec.metric);

  clock.mark("chunk");
  RemappingSink remap(sink, spec.batch_pairs);
  std::vector<std::string> algorithms;
  std::size_t ran = 0;
  // Self-join: chunk pairs (i, j), i <= j; (i, i) is a self-join of chunk i.
  auto run_chunk_pairs = [&] {
    for (std::size_t i = 0; i < left_chunks.size(); ++i) {
      for (std::size_t j = right ? 0 : i; j < right_chunks.size(); ++j) {
        const Chunk& a = left_chunks[i];
        const Chunk& b = right_chunks[j];
        if (prune && !chunks_may_match(a, b, spec.metric, bound)) continue;
        if (!sink.keep_going()) return false;
        const bool diagonal = !right && i == j;
        // A diagonal self-join with All already reports both orders and (i, i) itself.
        remap.route(a, b, !right && !(diagonal && spec.self_pairs == SelfPairs::All),
                    spec.self_pairs);
        const JoinStats inner = join_chunk(a.points, diagonal ? nullptr : &b.points, spec, remap);
        ++ran;
        add_chunk_stats(inner, stats, algorithms);
        remap.add_finished(inner.candidates);
        if (inner.stopped || remap.stopped()) return false;
      }
    }
    return true;
  };
  stats.stopped = !run_chunk_pairs();

  const std::size_t total = right ? left_chunks.size() * right_chunks.size()
                                  : left_chunks.size() * (left_chunks.size() + 1) / 2;
  std::string inner_algorithm;
  for (const std::string& name : algorithms) {
    inner_algorithm += (inner_algorithm.empty() ? "" : "/") + name;
  }
  stats.algorithm = (algorithms.empty() ? "none" : inner_algorithm) + ", chunked: " +
                    std::to_string(ran) + " of " + std::to_string(total) + " chunk pairs";
  stats.batches = remap.batches();
  stats.pairs = remap.pairs();
  return stats;
}

}  // namespace simjoin
