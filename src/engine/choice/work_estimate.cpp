// estimate_join_work: the grid's sampled work (engine/join/grid_plan.h) on samples of the inputs, as unit
// vectors within the candidate radius for cosine.
#include "engine/choice/work_estimate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

#include "engine/choice/point_sample.h"
#include "engine/cosine.h"
#include "engine/join/grid_plan.h"

namespace simjoin {
namespace {

constexpr std::size_t kProbeSample = 256;
constexpr std::size_t kBuildSample = 2048;

// The sampled points as unit vectors (cosine joins run on them), each source point once (a
// self-join's samples share points); points without a direction go.
struct UnitSamples {
  std::vector<double> values;
  std::unordered_map<const double*, std::size_t> offset;  // source point -> its unit vector
  std::vector<const double*> of(const std::vector<const double*>& points) const {
    std::vector<const double*> units;
    for (const double* p : points) {
      const auto found = offset.find(p);
      if (found != offset.end()) units.push_back(&values[found->second]);
    }
    return units;
  }
};

UnitSamples unit_vectors(const GridSamples& samples) {
  UnitSamples units;
  std::vector<double> scaled(samples.dim), unit(samples.dim);
  for (const auto* side : {&samples.probe, &samples.built}) {
    for (const double* p : *side) {
      if (units.offset.count(p)) continue;
      if (std::isnan(cosine_prepare(p, samples.dim, scaled.data(), unit.data()))) continue;
      units.offset.emplace(p, units.values.size());
      units.values.insert(units.values.end(), unit.begin(), unit.end());
    }
  }
  return units;
}

// Result pairs among the samples' pairs that are within `radius` in every indexed dimension,
// scaled to the full inputs, and the mean number of dimension terms a distance check of such a
// pair reads before it can stop (the engine stops once the partial distance exceeds the bound,
// summing dimensions by decreasing variance); probes are taken in order until kPairTermBudget
// terms.
constexpr double kPairTermBudget = 1e6;
void sample_pairs_and_terms(const GridSamples& samples, const std::vector<int>& order, int k,
                            double radius, Metric metric, JoinWork* work) {
  const double bound = metric == Metric::Euclidean ? radius * radius : radius;
  double within = 0.0, terms = 0.0, checked = 0.0;
  std::size_t probes = 0;
  for (const double* p : samples.probe) {
    if (terms > kPairTermBudget) break;
    ++probes;
    for (const double* b : samples.built) {
      if (samples.self && p == b) continue;
      int i = 0;
      while (i < k && std::fabs(p[order[i]] - b[order[i]]) <= radius) ++i;
      if (i < k) continue;
      double partial = 0.0;
      std::size_t read = 0;
      while (read < samples.dim && partial <= bound) {
        const double diff = std::fabs(p[order[read]] - b[order[read]]);
        partial = metric == Metric::Euclidean   ? partial + diff * diff
                  : metric == Metric::Manhattan ? partial + diff
                                                : std::max(partial, diff);
        ++read;
      }
      terms += static_cast<double>(read);
      checked += 1.0;
      if (partial <= bound) within += 1.0;
    }
  }
  if (probes == 0) return;
  work->pairs = within * samples.probe_n / static_cast<double>(probes) * samples.build_n /
                    static_cast<double>(samples.built.size()) +
                (samples.self ? samples.probe_n : 0.0);
  work->terms_per_candidate = checked > 0.0 ? terms / checked : 1.0;
}

JoinWork brute_force_work(JoinWork work) {
  work.candidates = work.left_points * work.right_points;
  work.indexed_dims = 0;
  work.terms_per_candidate = static_cast<double>(work.dim);
  return work;
}

}  // namespace

JoinWork estimate_join_work(const PointSet& left, const PointSet* right, const JoinSpec& spec) {
  JoinWork work;
  work.left_points = static_cast<double>(left.n);
  work.right_points = static_cast<double>(right ? right->n : left.n);
  work.dim = left.dim;
  const bool cosine = spec.metric == Metric::Cosine;
  const double radius = cosine ? cosine_candidate_radius(spec.eps, left.dim) : spec.eps;
  if (spec.algorithm == Algorithm::BruteForce || !(radius >= 0.0) || std::isinf(radius) ||
      left.dim == 0 || left.n == 0 || work.right_points == 0.0) {
    return brute_force_work(work);
  }

  GridSamples samples;
  samples.probe = sample_points(left, kProbeSample);
  samples.built = sample_points(right ? *right : left, kBuildSample);
  samples.probe_n = work.left_points;
  samples.build_n = work.right_points;
  samples.dim = left.dim;
  samples.self = right == nullptr;
  UnitSamples units;
  if (cosine) {
    units = unit_vectors(samples);
    samples.probe = units.of(samples.probe);
    samples.built = units.of(samples.built);
  }
  if (samples.probe.empty() || samples.built.empty()) return brute_force_work(work);

  // The grid on the samples: origin at their lowest values, dimensions indexed as plan_grid
  // orders them (by the samples' variance).
  std::vector<const double*> both = samples.probe;
  both.insert(both.end(), samples.built.begin(), samples.built.end());
  std::vector<double> origin(left.dim, std::numeric_limits<double>::infinity());
  for (const double* p : both)
    for (std::size_t j = 0; j < left.dim; ++j) origin[j] = std::min(origin[j], p[j]);
  const std::vector<int> order = dimensions_by_variance(sample_variances(both, left.dim));
  const int k_max = static_cast<int>(std::min<std::size_t>(kMaxChosenK, left.dim));
  const double width = narrowest_cell_width(radius);
  const GridWork best = cheapest_grid_work(sampled_grid_work(samples, origin, width, order, k_max, spec.threads));
  if (!std::isfinite(best.cost)) return brute_force_work(work);
  work.candidates = best.candidates;
  work.indexed_dims = best.k;
  sample_pairs_and_terms(samples, order, best.k, radius, cosine ? Metric::Euclidean : spec.metric,
                         &work);
  return work;
}

const JoinWork* carried_grid_work(const PointSet& left, const PointSet* right,
                                  const JoinSpec& spec) {
  const JoinWork& carried = spec.sampled.grid;
  const bool same_inputs = carried.dim == left.dim &&
                           carried.left_points == static_cast<double>(left.n) &&
                           carried.right_points == static_cast<double>(right ? right->n : left.n);
  return spec.sampled.has_grid && same_inputs ? &carried : nullptr;
}

JoinWork sampled_or_estimated_work(const PointSet& left, const PointSet* right,
                                   const JoinSpec& spec) {
  const JoinWork* carried = carried_grid_work(left, right, spec);
  return carried ? *carried : estimate_join_work(left, right, spec);
}

}  // namespace simjoin
