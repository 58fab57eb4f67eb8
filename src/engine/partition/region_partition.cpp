#include "engine/partition/region_partition.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/choice/point_sample.h"
#include "engine/cosine.h"
#include "engine/distance.h"

namespace simjoin {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Samples: quantiles from up to this many points; PW's neighbour counts from a subsample whose
// distance work stays near kWeightBudget coordinate differences.
constexpr std::size_t kQuantileSample = 16384;
constexpr double kWeightBudget = 2e8;
constexpr std::size_t kMinWeightSample = 128;
constexpr std::size_t kMaxWeightSample = 1024;

// How far apart, per the metric, two points within eps may be in the partition's space: eps, or
// for cosine the distance between their unit vectors that the engine's cosine join proves
// (cosine_candidate_radius). NaN: nothing matches.
double partition_reach(Metric metric, double eps, std::size_t dim) {
  if (!(eps >= 0.0)) return std::nan("");
  return metric == Metric::Cosine ? cosine_candidate_radius(eps, dim) : eps;
}

// The unit vector of `point` into unit (the cosine's direction, as the engine's cosine join
// computes it); false without one. `scaled`: dim doubles of scratch.
bool unit_vector(const double* point, std::size_t dim, double* scaled, double* unit) {
  return !std::isnan(cosine_prepare(point, dim, scaled, unit));
}

// The gap between a point and a box along one split dimension (0 inside).
double box_gap(double x, double lower, double upper) {
  if (x < lower) return lower - x;
  if (x > upper) return x - upper;
  return 0.0;
}

// Cuts boxes recursively: the points of one box (indices into coords), its bounds, its regions.
class Cutter {
 public:
  Cutter(const std::vector<std::vector<double>>& coords, const std::vector<double>& weights,
         std::vector<RegionBox>* boxes)
      : coords_(coords), weights_(weights), boxes_(boxes) {}

  void cut(std::vector<std::size_t> members, RegionBox box, std::size_t regions) {
    if (regions <= 1) {
      boxes_->push_back(std::move(box));
      return;
    }
    const std::size_t below_regions = regions / 2;
    double total = 0.0;
    for (std::size_t m : members) total += weights_[m];
    const double target = total * static_cast<double>(below_regions) / regions;

    std::size_t axis = widest_axis(members);
    double cut_at = std::nan("");
    for (std::size_t tries = 0; tries < coords_.size() && std::isnan(cut_at); ++tries) {
      cut_at = quantile_cut(&members, axis, target);
      if (std::isnan(cut_at)) axis = (axis + 1) % coords_.size();
    }
    if (std::isnan(cut_at)) cut_at = empty_cut(box, axis);  // every member at one place

    std::vector<std::size_t> below, above;
    for (std::size_t m : members) (coords_[axis][m] < cut_at ? below : above).push_back(m);
    RegionBox below_box = box, above_box = std::move(box);
    below_box.upper[axis] = std::min(below_box.upper[axis], cut_at);
    above_box.lower[axis] = std::max(above_box.lower[axis], cut_at);
    cut(std::move(below), std::move(below_box), below_regions);
    cut(std::move(above), std::move(above_box), regions - below_regions);
  }

 private:
  // The split dimension where the members spread most (the first on ties or without members).
  std::size_t widest_axis(const std::vector<std::size_t>& members) const {
    std::size_t best = 0;
    double best_spread = -1.0;
    for (std::size_t a = 0; a < coords_.size(); ++a) {
      double lo = kInfinity, hi = -kInfinity;
      for (std::size_t m : members) {
        lo = std::min(lo, coords_[a][m]);
        hi = std::max(hi, coords_[a][m]);
      }
      const double spread = members.empty() ? 0.0 : hi - lo;
      if (spread > best_spread) best = a, best_spread = spread;
    }
    return best;
  }

  // The cut along `axis` between two distinct member values whose weight below comes nearest
  // `target`: their midpoint (or the upper value where no double lies between). NaN when all
  // members share one value there. Sorts *members by that coordinate.
  double quantile_cut(std::vector<std::size_t>* members, std::size_t axis, double target) const {
    const std::vector<double>& x = coords_[axis];
    std::stable_sort(members->begin(), members->end(),
                     [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    double below = 0.0, best_miss = kInfinity, cut_at = std::nan("");
    for (std::size_t i = 0; i + 1 < members->size(); ++i) {
      below += weights_[(*members)[i]];
      const double lo = x[(*members)[i]], hi = x[(*members)[i + 1]];
      if (!(lo < hi)) continue;
      const double miss = std::fabs(below - target);
      if (miss < best_miss) {
        best_miss = miss;
        const double mid = lo + (hi - lo) / 2.0;
        cut_at = (mid > lo && mid < hi) ? mid : hi;
      }
    }
    return cut_at;
  }

  // A cut for a box whose members cannot be told apart: at its lower bound (the region below
  // empty), else at its upper bound (the region above empty), else at -inf (the one below).
  double empty_cut(const RegionBox& box, std::size_t axis) const {
    if (std::isfinite(box.lower[axis])) return box.lower[axis];
    if (std::isfinite(box.upper[axis])) return box.upper[axis];
    return -kInfinity;  // below: (-inf, -inf), empty
  }

  const std::vector<std::vector<double>>& coords_;  // [split axis][member]
  const std::vector<double>& weights_;
  std::vector<RegionBox>* boxes_;
};

}  // namespace

RegionPartition::RegionPartition(Metric metric, double eps, std::vector<std::size_t> dims,
                                 std::vector<RegionBox> boxes)
    : metric_(metric), eps_(eps), dims_(std::move(dims)), boxes_(std::move(boxes)) {}

bool RegionPartition::split_coordinates(const double* point, std::size_t dim, double* out) const {
  if (metric_ != Metric::Cosine) {
    for (std::size_t a = 0; a < dims_.size(); ++a) out[a] = point[dims_[a]];
    return true;
  }
  std::vector<double> scaled(dim), unit(dim);
  if (!unit_vector(point, dim, scaled.data(), unit.data())) return false;
  for (std::size_t a = 0; a < dims_.size(); ++a) out[a] = unit[dims_[a]];
  return true;
}

std::size_t RegionPartition::box_of(const double* x) const {
  for (std::size_t r = 0; r < boxes_.size(); ++r) {
    bool inside = true;
    for (std::size_t a = 0; a < dims_.size() && inside; ++a) {
      const double lo = boxes_[r].lower[a], hi = boxes_[r].upper[a];
      inside = (x[a] >= lo || lo == -kInfinity) && (x[a] < hi || hi == kInfinity);
    }
    if (inside) return r;
  }
  return 0;
}

std::size_t RegionPartition::home(const double* point, std::size_t dim) const {
  std::vector<double> x(dims_.size());
  return split_coordinates(point, dim, x.data()) ? box_of(x.data()) : 0;
}

void RegionPartition::reach(const double* point, std::size_t dim,
                            std::vector<std::size_t>* regions) const {
  regions->clear();
  std::vector<double> x(dims_.size());
  const bool placed = split_coordinates(point, dim, x.data());
  const std::size_t home_region = placed ? box_of(x.data()) : 0;
  regions->push_back(home_region);
  const double width = partition_reach(metric_, eps_, dim);
  if (!placed || !(width >= 0.0)) return;
  // A NaN coordinate never matches; an infinite one only within an infinite eps.
  for (std::size_t j = 0; j < dim; ++j) {
    if (std::isnan(point[j]) || (std::isinf(point[j]) && width != kInfinity)) return;
  }
  // Rounding in the pair's distance and in the gap: a relative margin far above both, and an
  // absolute one for squares that underflow (a difference below 1e-162 squares to 0, so such
  // points can be at distance 0). Harmless: a point too many in a halo is never paired twice,
  // pairs belong to their first point's home.
  const double allowed = width * (1.0 + 1e-9) + 1e-150;
  for (std::size_t r = 0; r < boxes_.size(); ++r) {
    if (r == home_region) continue;
    double gap = 0.0;
    for (std::size_t a = 0; a < dims_.size(); ++a) {
      const double g = box_gap(x[a], boxes_[r].lower[a], boxes_[r].upper[a]);
      if (metric_ == Metric::Manhattan) gap += g;
      else if (metric_ == Metric::Chebyshev) gap = std::max(gap, g);
      else gap += g * g;
    }
    if (metric_ == Metric::Euclidean || metric_ == Metric::Cosine) gap = std::sqrt(gap);
    if (width == kInfinity || gap <= allowed) regions->push_back(r);
  }
}

std::vector<double> work_weights(const std::vector<const double*>& sample, std::size_t dim,
                                 Metric metric, double reach, std::size_t population) {
  std::vector<double> weights(sample.size(), 1.0);
  if (sample.empty() || !(reach >= 0.0)) return weights;
  const double budget =
      kWeightBudget / (static_cast<double>(sample.size()) * std::max<std::size_t>(dim, 1));
  const std::size_t count = std::min(
      sample.size(), std::clamp<std::size_t>(static_cast<std::size_t>(budget), kMinWeightSample,
                                             kMaxWeightSample));
  const double scale = static_cast<double>(std::max(population, sample.size())) / count;
  const Metric joined = metric == Metric::Cosine ? Metric::Euclidean : metric;
  for (std::size_t i = 0; i < sample.size(); ++i) {
    std::size_t neighbours = 0;
    for (std::size_t k = 0; k < count; ++k) {
      const double* other = sample[k * sample.size() / count];
      neighbours += exact_distance(sample[i], other, dim, joined) <= reach;
    }
    weights[i] += scale * neighbours;
  }
  return weights;
}

RegionPartition plan_regions(const PointSet& points, const RegionPlanOptions& options) {
  if (options.regions == 0) throw Error("a partition needs at least one region");
  if (points.dim == 0) throw Error("a partition needs points of at least one dimension");
  const std::size_t dim = points.dim;

  // The sample in the partition's space (cosine: unit vectors).
  std::vector<const double*> sample = sample_points(points, kQuantileSample);
  std::vector<double> units;
  if (options.metric == Metric::Cosine) {
    units.resize(sample.size() * dim);
    std::vector<double> scaled(dim);
    std::size_t kept = 0;
    for (const double* p : sample) kept += unit_vector(p, dim, scaled.data(), &units[kept * dim]);
    sample.resize(kept);
    for (std::size_t i = 0; i < kept; ++i) sample[i] = &units[i * dim];
  }

  // Split dimensions: those of largest variance on the sample.
  const std::size_t wanted = options.split_dims ? options.split_dims
                                                : (options.regions >= 4 ? 2 : 1);
  const std::size_t axes = std::min(std::max<std::size_t>(wanted, 1), dim);
  const std::vector<double> variances = sample_variances(sample, dim);
  std::vector<std::size_t> order(dim);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return variances[a] > variances[b]; });
  std::vector<std::size_t> dims(order.begin(), order.begin() + axes);
  std::sort(dims.begin(), dims.end());

  const std::vector<double> weights =
      options.split == RegionSplit::Work
          ? work_weights(sample, dim, options.metric,
                         partition_reach(options.metric, options.eps, dim), points.n)
          : std::vector<double>(sample.size(), 1.0);
  std::vector<std::vector<double>> coords(axes, std::vector<double>(sample.size()));
  for (std::size_t a = 0; a < axes; ++a)
    for (std::size_t i = 0; i < sample.size(); ++i) coords[a][i] = sample[i][dims[a]];

  std::vector<RegionBox> boxes;
  std::vector<std::size_t> members(sample.size());
  std::iota(members.begin(), members.end(), 0);
  RegionBox everything{std::vector<double>(axes, -kInfinity), std::vector<double>(axes, kInfinity)};
  Cutter(coords, weights, &boxes).cut(std::move(members), std::move(everything), options.regions);
  return RegionPartition(options.metric, options.eps, std::move(dims), std::move(boxes));
}

}  // namespace simjoin
