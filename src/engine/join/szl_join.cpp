#include "engine/join/szl_join.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/bounded_distance.h"
#include "engine/join/finite_points.h"
#include "engine/join/self_pairs.h"

namespace simjoin {
namespace {

constexpr std::size_t kStopCheckEvery = 4096;  // walked positions between stop checks
// The walk visits points in curve order, scattered in memory: their coordinates are fetched this
// many positions ahead.
constexpr std::size_t kPrefetchAhead = 8;

// Quantized corners of the search box of point `a`: every point b with |b_j - a_j| < radius in
// every dimension (and, for `half`, b_0 >= a_0) has low <= quantized(b) <= high. The corners are
// rounded outwards by one step, so that the box holds the real one.
void search_box(const SzlIndex& index, const double* a, double radius, bool half,
                std::uint32_t* low, std::uint32_t* high) {
  for (std::size_t j = 0; j < index.dim(); ++j) {
    const double lo = half && j == 0 ? a[j] : std::nextafter(a[j] - radius, -HUGE_VAL);
    const double hi = std::nextafter(a[j] + radius, HUGE_VAL);
    low[j] = index.quantize(j, lo);
    high[j] = index.quantize(j, hi);
  }
}

// MININTERVAL: the shortest of the curves' intervals for the box [low, high], and its curve.
struct ChosenInterval {
  std::size_t curve = 0;
  CurveInterval interval;
};
ChosenInterval min_interval(const SzlIndex& index, const std::uint32_t* low,
                            const std::uint32_t* high) {
  ChosenInterval best;
  for (std::size_t j = 0; j < index.curves; ++j) {
    const CurveInterval interval = curve_interval(index, j, low, high);
    if (j == 0 || interval.size() < best.interval.size()) best = {j, interval};
    if (best.interval.size() == 0) break;
  }
  return best;
}

// WALKINTERVALS for probe point `a`: tests the build points of its shortest interval that
// `wanted(id)` accepts; report(id, distance) returns false to stop. Returns false when stopped.
template <Metric M, typename Wanted, typename Report>
bool walk_interval(const SzlIndex& index, const double* a, bool half, double radius,
                   double bound, std::vector<std::uint32_t>& corners, BatchWriter& out,
                   const Wanted& wanted, const Report& report) {
  const std::size_t dim = index.dim();
  search_box(index, a, radius, half, corners.data(), corners.data() + dim);
  const ChosenInterval chosen = min_interval(index, corners.data(), corners.data() + dim);
  const std::uint32_t* ids = index.curve(chosen.curve);
  double accumulated;
  for (std::size_t k = chosen.interval.first; k < chosen.interval.last; ++k) {
    if ((k - chosen.interval.first) % kStopCheckEvery == kStopCheckEvery - 1 && out.stopped()) {
      return false;
    }
    if (k + kPrefetchAhead < chosen.interval.last) {
      __builtin_prefetch(index.points.point(ids[k + kPrefetchAhead]));
    }
    const std::uint32_t id = ids[k];
    if (!wanted(id)) continue;
    ++out.candidates;
    if (within_bound<M>(a, index.points.point(id), dim, bound, &accumulated) &&
        !report(id, finish_distance(accumulated, M))) {
      return false;
    }
  }
  return true;
}

// Runs visit(position, corners, out) for positions [0, count) in work units.
template <typename Visit>
PipelineResult run_probe_units(std::size_t count, std::size_t dim, const JoinParams& params,
                               PairSink& sink, const Visit& visit) {
  const std::size_t unit_points = items_per_unit(count, params.threads, 16, 1024);
  const std::size_t units = (count + unit_points - 1) / unit_points;
  auto work = [&](std::size_t unit, BatchWriter& out) {
    std::vector<std::uint32_t> corners(2 * dim);
    const std::size_t last = std::min(count, (unit + 1) * unit_points);
    for (std::size_t p = unit * unit_points; p < last; ++p) {
      if (out.stopped() || !visit(p, corners, out)) return;
    }
  };
  return run_batch_pipeline(units, params.threads, params.batch_pairs, work, sink);
}

template <Metric M>
PipelineResult self_join(const SzlIndex& index, double eps, const JoinParams& params,
                         PairSink& sink) {
  const double radius = szl_box_radius(eps);
  const SelfPairs mode = params.self_pairs;
  const std::uint32_t* probe_order = index.curve(0);  // Z order: neighbours probe together
  auto visit = [&](std::size_t position, std::vector<std::uint32_t>& corners, BatchWriter& out) {
    const std::uint32_t id = probe_order[position];
    const double* a = index.points.point(id);
    if (mode == SelfPairs::All && !out.add(id, id, 0.0)) return false;
    // The pair {a, b} belongs to the point first in (first coordinate, id) order.
    const auto later = [&](std::uint32_t other) {
      const double b0 = index.points.point(other)[0];
      return b0 > a[0] || (b0 == a[0] && other > id);
    };
    const auto report = [&](std::uint32_t other, double distance) {
      return emit_self_match(out, id, other, distance, mode);
    };
    return walk_interval<M>(index, a, true, radius, params.bound, corners, out, later, report);
  };
  return run_probe_units(index.listed, index.dim(), params, sink, visit);
}

template <Metric M>
PipelineResult two_input_join(const SzlIndex& build, const PointSet& probe, bool build_is_left,
                              double eps, const JoinParams& params, PairSink& sink) {
  const double radius = szl_box_radius(eps);
  auto visit = [&](std::size_t position, std::vector<std::uint32_t>& corners, BatchWriter& out) {
    const double* a = probe.point(position);
    if (!is_finite_point(a, probe.dim)) return true;
    const std::uint32_t id = static_cast<std::uint32_t>(position);
    const auto any = [](std::uint32_t) { return true; };
    const auto report = [&](std::uint32_t other, double distance) {
      return build_is_left ? out.add(other, id, distance) : out.add(id, other, distance);
    };
    return walk_interval<M>(build, a, false, radius, params.bound, corners, out, any, report);
  };
  return run_probe_units(probe.n, probe.dim, params, sink, visit);
}

}  // namespace

double szl_box_radius(double eps) { return eps * (1.0 + 1e-12) + 1e-150; }

std::size_t szl_walk_length(const SzlIndex& index, const double* a, double eps, bool half) {
  std::vector<std::uint32_t> corners(2 * index.dim());
  search_box(index, a, szl_box_radius(eps), half, corners.data(), corners.data() + index.dim());
  return min_interval(index, corners.data(), corners.data() + index.dim()).interval.size();
}

PipelineResult szl_self_join(const SzlIndex& index, double eps, const JoinParams& params,
                             PairSink& sink) {
  return with_metric(params.metric, [&](auto tag) {
    return self_join<decltype(tag)::value>(index, eps, params, sink);
  });
}

PipelineResult szl_two_input_join(const SzlIndex& build, const PointSet& probe,
                                  bool build_is_left, double eps, const JoinParams& params,
                                  PairSink& sink) {
  return with_metric(params.metric, [&](auto tag) {
    return two_input_join<decltype(tag)::value>(build, probe, build_is_left, eps, params, sink);
  });
}

}  // namespace simjoin
