// choose_algorithm: the sampled work of each algorithm priced with linear models.
#include "engine/choice/algorithm_choice.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/choice/point_sample.h"
#include "engine/choice/tile_fraction.h"
#include "engine/join/float_brute_force.h"
#include "engine/join/szl_index.h"
#include "engine/join/szl_join.h"

namespace simjoin {
namespace {

constexpr std::size_t kSzlBuildSample = 4096;
// ... fewer in high dimensions, where a Z key costs 32 bits per dimension: at most this many
// point-dimensions (4,096 points up to 64-D; 334 at 784-D).
constexpr std::size_t kSzlBuildSampleCoords = 4096 * 64;
constexpr std::size_t kSzlProbeSample = 256;

// Whether a device with these speeds filters brute force's pairs in reduced precision: the
// GPU's tensor cores, the CPU's FP32 filter.
bool filters(std::size_t dim, Metric metric, const AlgorithmSpeeds& s) {
  return s.tensor_cores ? tensor_tiles_apply(metric, dim) : float_filter_applies(metric, dim);
}

// The share of brute force's pairs a device with these speeds tests.
double tested_share(const BruteWork& brute, std::size_t dim, Metric metric,
                    const AlgorithmSpeeds& s) {
  return s.tensor_cores && tensor_tiles_apply(metric, dim) ? brute.tile_fraction : 1.0;
}

double log2_at_least_1(double n) { return std::max(1.0, std::log2(std::max(n, 1.0))); }

double grid_seconds(const JoinWork& w, int threads, const AlgorithmSpeeds& s) {
  const double points = w.left_points + w.right_points;
  const double per_thread = w.candidates * (s.grid_candidate_ns +
                                            w.terms_per_candidate * s.grid_term_ns);
  return (points * (s.grid_point_ns + static_cast<double>(w.dim) * s.grid_point_dim_ns) +
          per_thread / threads) * 1e-9;
}

// The index is built a curve a thread: at most `curves` threads share it.
double szl_seconds(const SzlWork& w, double terms_per_candidate, int threads,
                   const AlgorithmSpeeds& s) {
  const double log_build = log2_at_least_1(w.build_points);
  const double index = w.curves * w.build_points *
                       (static_cast<double>(w.dim) * s.szl_key_ns + log_build * s.szl_sort_ns);
  const double join = w.probe_points * w.curves * log_build * s.szl_search_ns +
                      w.walked * (s.szl_walk_ns + terms_per_candidate * s.szl_walk_term_ns);
  return (index / std::min(static_cast<double>(threads), std::max(w.curves, 1.0)) +
          join / threads) * 1e-9;
}

// Brute force over `pairs` pairs with an estimated `matches` of them within eps.
double brute_seconds(const BruteWork& brute, std::size_t dim, Metric metric, int threads,
                     const AlgorithmSpeeds& s) {
  const double pairs = brute.pairs * tested_share(brute, dim, metric, s);
  const double matches = brute.matches;
  if (!filters(dim, metric, s))
    return pairs * (s.brute_pair_ns + static_cast<double>(dim) * s.brute_term_ns) / threads * 1e-9;
  const bool wide = dim > s.filtered_narrow_dim;
  const double pair_ns = wide ? s.filtered_wide_pair_ns : s.filtered_pair_ns;
  const double term_ns = wide ? s.filtered_wide_term_ns : s.filtered_term_ns;
  return (pairs * (pair_ns + static_cast<double>(dim) * term_ns) +
          (wide ? 0.0 : matches * s.filtered_match_ns)) /
         threads * 1e-9;
}

// The finite points of `points` as a contiguous set (owned by `coords`).
PointSet contiguous(const std::vector<const double*>& points, std::size_t dim,
                    std::vector<double>& coords) {
  coords.clear();
  for (const double* p : points) coords.insert(coords.end(), p, p + dim);
  return PointSet{coords.data(), points.size(), dim};
}

}  // namespace

double brute_force_pairs(const PointSet& left, const PointSet* right) {
  const double n = static_cast<double>(left.n);
  return right ? n * static_cast<double>(right->n) : n * (n + 1.0) / 2.0;
}

BruteWork brute_work(const PointSet& left, const PointSet* right, const SampledWork& sampled) {
  BruteWork brute;
  brute.pairs = brute_force_pairs(left, right);
  if (sampled.has_tiles) brute.tile_fraction = sampled.tile_fraction;
  // The grid's sampled pairs count a self-join's pairs both ways and its identities.
  const double pairs = sampled.has_grid ? sampled.grid.pairs : 0.0;
  brute.matches = right ? pairs : std::max(0.0, pairs - static_cast<double>(left.n)) / 2.0;
  return brute;
}

const AlgorithmSpeeds& cpu_algorithm_speeds() {
  // The CPU engine on the H200 machine's 16 cores (2026-11-29, scripts/device/service_check.sh
  // calibrate: the 15 sets of bench/calibration_sets.txt, 16 threads; docs/benchmarks/calibration.md).
  // The grid's constants fitted (non-negative least squares on relative error, with the join's
  // fixed cost: engine/choice/device_choice.cpp's cpu_join_ns) on its 11 runs, each then within
  // 0.83-1.14x of its time; the SZL's and brute force's are the constants fitted on a 2-core VM
  // with one thread (scripts/fit_algorithm_speeds.py) times their measured over estimated time on
  // those runs: the SZL 2.0-3.1x slower (x2.5), the FP32-filtered brute force 0.36-0.60 of it
  // (x0.47).
  static const AlgorithmSpeeds speeds{
      /*grid_point_ns=*/0.0, /*grid_point_dim_ns=*/7.16, /*grid_candidate_ns=*/3.15,
      /*grid_term_ns=*/0.838,
      /*szl_key_ns=*/43.0, /*szl_sort_ns=*/18.4, /*szl_search_ns=*/33.8, /*szl_walk_ns=*/14.6,
      /*szl_walk_term_ns=*/0.69,
      /*brute_pair_ns=*/1.26, /*brute_term_ns=*/0.0866,
      /*filtered_pair_ns=*/2.0, /*filtered_term_ns=*/0.034, /*filtered_match_ns=*/0.0,
      /*filtered_narrow_dim=*/std::numeric_limits<std::size_t>::max(),
      /*filtered_wide_pair_ns=*/2.0, /*filtered_wide_term_ns=*/0.034, /*tensor_cores=*/false};
  return speeds;
}

const AlgorithmSpeeds& gpu_algorithm_speeds() {
  // Fitted on an H100 (scripts/device/szl_check.sh calibrate: grid, SZL and brute force on 12
  // sets from 2-D to 784-D, then scripts/fit_algorithm_speeds.py --gpu; docs/benchmarks/szl.md):
  // the kernels' and transfers' phases, without the process's first CUDA work. The model picks
  // the fastest algorithm on all 12 sets; its absolute times are off by up to 5x on small
  // high-dimensional sets (brute force priced per dimension, where its distance checks stop
  // early), so only the ratios between algorithms are relied on.
  static const AlgorithmSpeeds speeds{
      /*grid_point_ns=*/0.0, /*grid_point_dim_ns=*/5.10, /*grid_candidate_ns=*/0.0,
      /*grid_term_ns=*/0.000594,
      /*szl_key_ns=*/0.644, /*szl_sort_ns=*/0.135, /*szl_search_ns=*/0.304, /*szl_walk_ns=*/0.0229,
      /*szl_walk_term_ns=*/0.00107,
      /*brute_pair_ns=*/0.00108, /*brute_term_ns=*/0.000125,
      // Brute force on tensor cores (Euclidean and cosine from 16 dimensions; its kernel time per
      // pair of a self-join's half; docs/benchmarks/tensor_cores.md). Up to 128 dimensions, the
      // kernel that filters on the accumulator registers (H200, 2026-11-29): fitted on
      // exponential sets, 2M points at 32-D (eps 0.05 and 0.08: 1,407 and 30.4M pairs),
      // 1M at 64-D and 500k at 128-D (5.65M and 101M pairs), each within 5% of its measured
      // kernel time; the result pairs' cost (3.9 ns each) is their exact test, queue and output.
      // Above, the kernel that stages the dot products (H100, 2026-11-27): fitted on 500k points
      // at 128-D and 768-D and 2M at 32-D, checked on 384-D (predicted 6.9, measured 6.8 ps).
      /*filtered_pair_ns=*/0.00055, /*filtered_term_ns=*/0.0000035, /*filtered_match_ns=*/3.9,
      /*filtered_narrow_dim=*/128,
      /*filtered_wide_pair_ns=*/0.0021, /*filtered_wide_term_ns=*/0.0000125,
      /*tensor_cores=*/true};
  return speeds;
}

const char* algorithm_name(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::Grid: return "grid";
    case Algorithm::Szl: return "szl";
    case Algorithm::BruteForce: return "brute-force";
    case Algorithm::Auto:
    default: return "auto";
  }
}

namespace {

// The SZL's work before sampling: its sizes, nothing walked (a lower bound of its cost).
SzlWork szl_shape(const PointSet& left, const PointSet* right) {
  const bool build_is_left = !right || left.n <= right->n;
  SzlWork work;
  work.build_points = static_cast<double>(build_is_left ? left.n : right->n);
  work.probe_points = static_cast<double>(right ? (build_is_left ? right->n : left.n) : left.n);
  work.dim = left.dim;
  work.curves = static_cast<double>(szl_default_curves(left.dim));
  return work;
}

}  // namespace

SzlWork estimate_szl_work(const PointSet& left, const PointSet* right, double eps) {
  const bool build_is_left = !right || left.n <= right->n;
  const PointSet& build = build_is_left ? left : *right;
  const PointSet& probe = right ? (build_is_left ? *right : left) : left;
  SzlWork work = szl_shape(left, right);

  std::vector<double> build_coords, probe_coords;
  const PointSet build_sample =
      contiguous(sample_points(build, std::max<std::size_t>(
                                          64, std::min(kSzlBuildSample,
                                                       kSzlBuildSampleCoords / std::max<std::size_t>(build.dim, 1)))),
                 build.dim, build_coords);
  if (build_sample.n == 0) return work;
  const SzlIndex index = build_szl_index(build_sample, 0, 1);
  // A self-join probes the sampled index's own points (with the half box).
  const std::vector<const double*> probes =
      sample_points(right ? probe : build_sample, kSzlProbeSample);
  if (probes.empty()) return work;
  double walked = 0.0;
  for (const double* a : probes) walked += static_cast<double>(szl_walk_length(index, a, eps, !right));
  const double build_ratio = work.build_points / static_cast<double>(build_sample.n);
  work.walked = walked / static_cast<double>(probes.size()) * build_ratio * work.probe_points;
  return work;
}

AlgorithmChoice cheapest_algorithm(const JoinWork* grid, const SzlWork* szl,
                                   const BruteWork& brute, std::size_t dim, Metric metric,
                                   int threads, const AlgorithmSpeeds& speeds) {
  threads = std::max(threads, 1);
  AlgorithmChoice choice;
  std::vector<std::pair<Algorithm, AlgorithmEstimate>> priced;
  if (grid && grid->indexed_dims > 0) {
    choice.grid_work = *grid;
    priced.push_back({Algorithm::Grid,
                      {"grid", grid->candidates, grid_seconds(*grid, threads, speeds)}});
  }
  if (szl) {
    const double terms = grid ? grid->terms_per_candidate : static_cast<double>(dim);
    priced.push_back({Algorithm::Szl,
                      {"szl", szl->walked, szl_seconds(*szl, terms, threads, speeds)}});
  }
  priced.push_back({Algorithm::BruteForce,
                    {"brute-force", brute.pairs * tested_share(brute, dim, metric, speeds),
                     brute_seconds(brute, dim, metric, threads, speeds)}});
  // Cheapest first; stable, so that ties keep grid, szl, brute force in that order.
  std::stable_sort(priced.begin(), priced.end(), [](const auto& a, const auto& b) {
    return a.second.seconds < b.second.seconds;
  });
  choice.algorithm = priced.front().first;
  for (const auto& entry : priced) choice.estimates.push_back(entry.second);
  return choice;
}

bool szl_may_be_cheapest(const PointSet& left, const PointSet* right, const JoinWork& grid,
                         Metric metric, int threads, const AlgorithmSpeeds& speeds) {
  // The SZL joins cosine only as Euclidean on unit vectors (engine/join/cosine_join.h), where
  // this runs again.
  if (metric == Metric::Cosine || left.dim > kSzlMaxPricedDim) return false;
  threads = std::max(threads, 1);
  const double lower_bound =
      szl_seconds(szl_shape(left, right), grid.terms_per_candidate, threads, speeds);
  SampledWork unpruned;
  unpruned.grid = grid;
  unpruned.has_grid = true;
  const double brute =
      brute_seconds(brute_work(left, right, unpruned), left.dim, metric, threads, speeds);
  return lower_bound < brute &&
         (grid.indexed_dims == 0 || lower_bound < grid_seconds(grid, threads, speeds));
}

SampledWork sample_work(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                        std::initializer_list<PricedDevice> devices) {
  SampledWork sampled;
  if (carried_grid_work(left, right, spec)) {
    sampled = spec.sampled;
  } else {
    JoinSpec grid_spec = spec;
    grid_spec.algorithm = Algorithm::Grid;
    sampled.grid = estimate_join_work(left, right, grid_spec);
    sampled.has_grid = true;
  }
  if (!sampled.has_szl) {
    for (const PricedDevice& device : devices) {
      if (!device.runs_szl || !szl_may_be_cheapest(left, right, sampled.grid, spec.metric,
                                                   device.threads, *device.speeds))
        continue;
      sampled.szl = estimate_szl_work(left, right, spec.eps);
      sampled.has_szl = true;
      break;
    }
  }
  if (!sampled.has_tiles && tensor_tiles_apply(spec.metric, left.dim)) {
    for (const PricedDevice& device : devices) {
      if (!device.speeds->tensor_cores) continue;
      sampled.tile_fraction = estimate_tile_fraction(left, right, spec);
      sampled.has_tiles = true;
      break;
    }
  }
  return sampled;
}

AlgorithmChoice choose_algorithm(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                                 int threads, bool szl_supported, const AlgorithmSpeeds& speeds) {
  const double pairs =
      static_cast<double>(left.n) * static_cast<double>(right ? right->n : left.n);
  if (!std::isfinite(spec.eps) || spec.eps < 0.0 || pairs <= kBruteForceMaxPairs ||
      left.dim == 0) {
    return AlgorithmChoice{};  // brute force, nothing priced
  }
  const SampledWork sampled =
      sample_work(left, right, spec, {{&speeds, threads, szl_supported}});
  const bool szl = szl_supported && sampled.has_szl &&
                   szl_may_be_cheapest(left, right, sampled.grid, spec.metric, threads, speeds);
  return cheapest_algorithm(&sampled.grid, szl ? &sampled.szl : nullptr,
                            brute_work(left, right, sampled), left.dim, spec.metric, threads,
                            speeds);
}

}  // namespace simjoin
