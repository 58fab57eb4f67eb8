// plan_grid: REORDER by variance, the cell width and its rounding analysis, and the choice of k.
#include "engine/join/grid_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>

#include "engine/choice/point_sample.h"
#include "engine/join/finite_points.h"
#include "engine/parallel/batch_pipeline.h"
#include "engine/parallel/worker_thread.h"

namespace simjoin {
namespace {

// Cell width rounding analysis. Let v(x) = fl(fl(x - origin) / w) be the value truncated by
// grid_cell (x >= origin, so truncation is floor and v >= 0). Two roundings give
// |v(x) - (x - origin) / w| <= 2.0001 u v with u = 2^-53, and v <= 2^30 (kMaxCellsPerDim), so the
// error is below 2^-21 per point. Two points within eps by the contract of distance.h differ by at
// most E = eps (1 + 3u) + 2e-162 in every dimension: each dimension's term is at most the
// accumulated value, fl(a - b) is within u of a - b, the Euclidean bound t has sqrt(t) <= eps(1+u),
// and a squared difference below ~2e-162 may underflow to 0 (the 2e-162). With
// w >= max(eps (1 + kWidthMargin), kMinCellWidth), E / w <= 1 - 9e-6, so
// |v(a) - v(b)| <= 1 - 9e-6 + 2^-20 < 1 and the cells differ by at most one.
constexpr double kWidthMargin = 1e-5;
constexpr double kMinCellWidth = 1e-150;
constexpr double kMaxCellsPerDim = 1073741824.0;  // 2^30: keeps v small, see above
constexpr double kMaxKeySpace = 4611686018427387904.0;  // 2^62: linear cell keys fit in 64 bits
constexpr std::size_t kCostProbeSample = 256;
constexpr std::size_t kCostBuildSample = 4096;
constexpr double kLookupCost = 15.0;  // one stencil cell lookup, in units of a distance term

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  double width() const { return hi - lo; }  // not finite: the dimension cannot be indexed
};

// Min and max per dimension over the finite points of both inputs.
std::vector<Range> finite_ranges(const PointSet& left, const PointSet* right, int threads) {
  std::vector<Range> ranges(left.dim);
  std::mutex merge;
  auto scan = [&](const PointSet& set) {
    parallel_for_ranges(set.n, threads, [&](std::size_t begin, std::size_t end) {
      std::vector<Range> part(set.dim);
      for (std::size_t i = begin; i < end; ++i) {
        const double* p = set.point(i);
        if (!is_finite_point(p, set.dim)) continue;
        for (std::size_t j = 0; j < set.dim; ++j) {
          part[j].lo = std::min(part[j].lo, p[j]);
          part[j].hi = std::max(part[j].hi, p[j]);
        }
      }
      const std::lock_guard<std::mutex> lock(merge);
      for (std::size_t j = 0; j < set.dim; ++j) {
        ranges[j].lo = std::min(ranges[j].lo, part[j].lo);
        ranges[j].hi = std::max(ranges[j].hi, part[j].hi);
      }
    });
  };
  scan(left);
  if (right) scan(*right);
  return ranges;
}

// The cell width when the first k dimensions of `order` are indexed.
double cell_width_for(double eps, const std::vector<Range>& ranges, const std::vector<int>& order,
                      int k) {
  double width = narrowest_cell_width(eps);
  for (int i = 0; i < k; ++i) width = std::max(width, ranges[order[i]].width() / kMaxCellsPerDim);
  return width;
}

double cell_count(const Range& range, double width) {
  return std::floor(range.width() / width) + 1.0;
}

// The largest k <= limit whose linear cell keys fit in 64 bits.
int cap_k_for_key_space(double eps, const std::vector<Range>& ranges,
                        const std::vector<int>& order, int limit) {
  for (int k = limit; k > 0; --k) {
    const double width = cell_width_for(eps, ranges, order, k);
    double key_space = 1.0;
    for (int i = 0; i < k; ++i) key_space *= cell_count(ranges[order[i]], width) + 1.0;
    if (key_space <= kMaxKeySpace) return k;
  }
  return 0;
}

// Chooses k in [1, k_max] minimizing the grid's sampled work (sampled_grid_work).
int choose_k(const PointSet& left, const PointSet* right, double eps,
             const std::vector<Range>& ranges, const std::vector<int>& order, int k_max,
             int threads) {
  if (k_max <= 1) return k_max;
  const PointSet& build = right ? *right : left;
  const std::vector<const double*> probe = sample_points(left, kCostProbeSample);
  const std::vector<const double*> built = sample_points(build, kCostBuildSample);
  if (probe.empty() || built.empty()) return 1;
  std::vector<double> origin(left.dim, 0.0);
  for (std::size_t j = 0; j < left.dim; ++j) {
    if (std::isfinite(ranges[j].lo)) origin[j] = ranges[j].lo;
  }
  const GridSamples samples{probe, built, static_cast<double>(left.n),
                            static_cast<double>(build.n), left.dim, right == nullptr};
  return cheapest_grid_work(sampled_grid_work(samples, origin,
                                              cell_width_for(eps, ranges, order, k_max), order,
                                              k_max, threads))
      .k;
}

}  // namespace

std::vector<GridWork> sampled_grid_work(const GridSamples& samples,
                                        const std::vector<double>& origin, double width,
                                        const std::vector<int>& order, int k_max, int threads) {
  const auto& probe = samples.probe;
  const auto& built = samples.built;
  std::vector<GridWork> work;
  if (probe.empty() || built.empty() || k_max < 1) return work;
  auto cells_of = [&](const std::vector<const double*>& points) {
    std::vector<std::int64_t> cells(points.size() * k_max);
    for (std::size_t p = 0; p < points.size(); ++p) {
      for (int i = 0; i < k_max; ++i) {
        const double v = std::floor((points[p][order[i]] - origin[order[i]]) / width);
        cells[p * k_max + i] = static_cast<std::int64_t>(std::clamp(v, -kMaxKeySpace, kMaxKeySpace));
      }
    }
    return cells;
  };
  const std::vector<std::int64_t> probe_cells = cells_of(probe);
  const std::vector<std::int64_t> build_cells = cells_of(built);

  // Pairs by adjacent-prefix length, per part of the probe sample, then added up.
  const std::size_t parts = std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(resolve_thread_count(threads)), probe.size() / 64));
  std::vector<std::vector<double>> part_prefix(parts, std::vector<double>(k_max + 1, 0.0));
  parallel_for_parts(parts, [&](std::size_t part) {
    std::vector<double>& counted = part_prefix[part];
    for (std::size_t p = part_begin(probe.size(), parts, part);
         p < part_begin(probe.size(), parts, part + 1); ++p) {
      for (std::size_t b = 0; b < built.size(); ++b) {
        if (samples.self && probe[p] == built[b]) continue;
        int prefix = 0;
        while (prefix < k_max && std::llabs(probe_cells[p * k_max + prefix] -
                                            build_cells[b * k_max + prefix]) <= 1) {
          ++prefix;
        }
        counted[prefix] += 1.0;
      }
    }
  });
  std::vector<double> adjacent_prefix(k_max + 1, 0.0);
  for (const std::vector<double>& counted : part_prefix)
    for (int k = 0; k <= k_max; ++k) adjacent_prefix[k] += counted[k];

  const double pair_scale = samples.probe_n / static_cast<double>(probe.size()) *
                            samples.build_n / static_cast<double>(built.size()) *
                            (samples.self ? 0.5 : 1.0);
  const double own_pairs = samples.self ? samples.probe_n : 0.0;
  double candidates = 0.0;
  for (int k = k_max; k >= 1; --k) candidates += adjacent_prefix[k];  // prefix >= 1
  for (int k = 1; k <= k_max; ++k) {
    std::vector<std::vector<std::int64_t>> distinct;
    distinct.reserve(probe.size());
    for (std::size_t p = 0; p < probe.size(); ++p) {
      distinct.emplace_back(probe_cells.begin() + p * k_max, probe_cells.begin() + p * k_max + k);
    }
    std::sort(distinct.begin(), distinct.end());
    const double cells_in_sample = static_cast<double>(
        std::unique(distinct.begin(), distinct.end()) - distinct.begin());
    const double probe_cell_estimate = std::min(
        samples.probe_n, cells_in_sample * samples.probe_n / static_cast<double>(probe.size()));
    const double distance_cost = 1.0 + static_cast<double>(samples.dim) / 8.0;
    GridWork w;
    w.k = k;
    w.candidates = candidates * pair_scale + own_pairs;
    w.probe_cells = probe_cell_estimate;
    w.cost = w.candidates * distance_cost + probe_cell_estimate * std::pow(3.0, k) * kLookupCost;
    work.push_back(w);
    candidates -= adjacent_prefix[k];  // pairs adjacent in exactly k dims drop out at k + 1
  }
  return work;
}

double narrowest_cell_width(double eps) {
  return std::max(eps * (1.0 + kWidthMargin), kMinCellWidth);
}

std::vector<int> dimensions_by_variance(const std::vector<double>& variance) {
  std::vector<int> order(variance.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return variance[a] > variance[b]; });
  return order;
}

GridWork cheapest_grid_work(const std::vector<GridWork>& work) {
  GridWork best;
  best.k = 1;
  best.cost = std::numeric_limits<double>::infinity();
  for (const GridWork& w : work) {
    if (w.cost < best.cost) best = w;
  }
  return best;
}

GridPlan plan_grid(const PointSet& left, const PointSet* right, double eps, Metric /*metric*/,
                   int requested_k, int threads) {
  if (!(eps >= 0.0) || std::isinf(eps)) throw Error("plan_grid needs a finite eps >= 0");
  const std::size_t dim = left.dim;
  const std::vector<Range> ranges = finite_ranges(left, right, resolve_thread_count(threads));

  // REORDER: decreasing variance on a sample of both inputs; dimensions whose range overflows
  // (cannot be gridded) go last and are never indexed.
  std::vector<double> variance = sampled_variances(left, right);
  int indexable = 0;
  for (std::size_t j = 0; j < dim; ++j) {
    if (std::isfinite(ranges[j].width()) && std::isfinite(variance[j])) {
      ++indexable;
    } else {
      variance[j] = -1.0;
    }
  }

  GridPlan plan;
  plan.order = dimensions_by_variance(variance);

  const int k_limit = requested_k > 0 ? std::min(requested_k, indexable)
                                      : std::min(kMaxChosenK, indexable);
  const int k_max = cap_k_for_key_space(eps, ranges, plan.order, k_limit);
  plan.k = requested_k > 0 ? k_max : choose_k(left, right, eps, ranges, plan.order, k_max, threads);
  plan.cell_width = cell_width_for(eps, ranges, plan.order, plan.k);
  for (int i = 0; i < plan.k; ++i) {
    const Range& range = ranges[plan.order[i]];
    plan.origin.push_back(range.lo);
    plan.cells.push_back(grid_cell(plan, i, range.hi) + 1);
  }
  return plan;
}

}  // namespace simjoin
