#include "engine/join/cosine_join.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/cosine.h"
#include "engine/join/input_checks.h"
#include "engine/parallel/batch_pipeline.h"
#include "engine/parallel/phase_clock.h"
#include "engine/parallel/worker_thread.h"

namespace simjoin {

double cosine_candidate_radius(double eps, std::size_t dim) {
  if (std::isnan(eps) || eps < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(eps)) return eps;
  // u = 2^-53. The computed d is within (2 dim + 8) u of 1 - cos (dot product, two norms, a
  // product, a quotient, a difference); the computed unit vectors are within (dim + 3) u of the
  // true ones, and the engine's sum of squares within (dim + 1) u of its value. The margin is
  // eight times the largest of those, plus room for the subnormal tails of scaled coordinates.
  const double u = std::ldexp(1.0, -53);
  const double n = static_cast<double>(dim);
  const double margin = 8.0 * (2.0 * n + 8.0) * u + 1e-290;
  double radius = (std::sqrt(2.0 * (eps + margin * (1.0 + eps))) + margin) * (1.0 + margin);
  // Rounding of the three lines above is covered by a few steps up.
  for (int i = 0; i < 4; ++i) radius = std::nextafter(radius, HUGE_VAL);
  return radius;
}

namespace {

// One side's points as the cosine join needs them: a' (cosine.h) and |a'| to decide candidates
// exactly, and the unit vectors a'/|a'| for the Euclidean join.
struct CosineSide {
  std::size_t n = 0;
  std::size_t dim = 0;
  std::vector<double> scaled;
  std::vector<double> norm;
  std::vector<double> unit;
  PointSet unit_set() const { return PointSet{unit.data(), n, dim}; }
  const double* scaled_point(std::uint32_t i) const { return scaled.data() + i * dim; }
};

CosineSide prepare_side(const PointSet& points, int threads) {
  CosineSide side;
  side.n = points.n;
  side.dim = points.dim;
  side.scaled.resize(points.n * points.dim);
  side.norm.resize(points.n);
  side.unit.resize(points.n * points.dim);
  const std::size_t dim = points.dim;
  parallel_for_ranges(points.n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      side.norm[i] = cosine_prepare(points.point(i), dim, side.scaled.data() + i * dim,
                                    side.unit.data() + i * dim);
  });
  return side;
}

// Between the Euclidean join and the caller's sink: keeps the candidates within eps of cosine
// distance and hands them on with that distance.
class CosineRefineSink : public PairSink {
 public:
  CosineRefineSink(const CosineSide& left, const CosineSide& right, double eps, PairSink& out)
      : left_(left), right_(right), eps_(eps), out_(out) {}

  bool consume(const PairBatch& batch) override {
    kept_left_.clear();
    kept_right_.clear();
    kept_distance_.clear();
    for (std::size_t k = 0; k < batch.size; ++k) {
      const std::uint32_t i = batch.left[k], j = batch.right[k];
      const double d = cosine_from_scaled(left_.scaled_point(i), left_.norm[i],
                                          right_.scaled_point(j), right_.norm[j], left_.dim);
      if (!(d <= eps_)) continue;
      kept_left_.push_back(i);
      kept_right_.push_back(j);
      kept_distance_.push_back(d);
    }
    if (kept_left_.empty()) return true;
    pairs_ += kept_left_.size();
    ++batches_;
    return out_.consume(PairBatch{kept_left_.data(), kept_right_.data(), kept_distance_.data(),
                                  kept_left_.size()});
  }
  bool keep_going() override { return out_.keep_going(); }
  void progress(std::uint64_t candidates_done) override { out_.progress(candidates_done); }

  std::uint64_t pairs() const { return pairs_; }
  std::uint64_t batches() const { return batches_; }

 private:
  const CosineSide& left_;
  const CosineSide& right_;
  double eps_;
  PairSink& out_;
  std::vector<std::uint32_t> kept_left_, kept_right_;
  std::vector<double> kept_distance_;
  std::uint64_t pairs_ = 0, batches_ = 0;
};

}  // namespace

JoinStats run_cosine_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                          const EuclideanJoinFn& euclidean_join, PairSink& sink) {
  check_inputs(left, right);
  JoinStats normalize_stats;
  PhaseClock clock(normalize_stats);
  const int threads = resolve_thread_count(spec.threads);
  const CosineSide left_side = prepare_side(left, threads);
  const CosineSide right_side = right ? prepare_side(*right, threads) : CosineSide{};
  const CosineSide& other = right ? right_side : left_side;
  clock.mark("normalize");
  if (!sink.keep_going()) {
    normalize_stats.stopped = true;
    return normalize_stats;
  }

  JoinSpec unit_spec = spec;
  unit_spec.metric = Metric::Euclidean;
  unit_spec.eps = cosine_candidate_radius(spec.eps, left.dim);
  const PointSet left_units = left_side.unit_set();
  const PointSet right_units = other.unit_set();
  CosineRefineSink refine(left_side, other, spec.eps, sink);
  JoinStats stats =
      euclidean_join(left_units, right ? &right_units : nullptr, unit_spec, refine);
  stats.candidates += stats.pairs;  // each inner pair is one exact cosine evaluation
  stats.pairs = refine.pairs();
  stats.batches = refine.batches();
  if (stats.algorithm != "none") stats.algorithm += " on unit vectors";
  stats.phase_seconds.insert(stats.phase_seconds.begin(), normalize_stats.phase_seconds.begin(),
                             normalize_stats.phase_seconds.end());
  return stats;
}

}  // namespace simjoin
