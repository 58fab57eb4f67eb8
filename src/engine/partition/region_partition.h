// Regions of space for one join split over several workers (servers, GPUs), after Alsabti, Ranka
// and Singh, "An Efficient Parallel Algorithm for High Dimensional Similarity Join" (IPPS 1998):
// boxes cut at quantiles of a sample over one or two dimensions, each point at home in exactly
// one box and replicated to every other box within eps of it (the halo). A pair within eps is
// then found in its first point's home region, whose points plus halo hold its second point:
// each pair is owned by one region.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/types.h"

namespace simjoin {

// Quantiles of what: Points (PQ) gives each region as many sampled points; Work (PW) as much
// sampled join work, each sampled point weighted by its neighbours within eps (skew-proof).
enum class RegionSplit { Points, Work };

// A box over the partition's split dimensions: lower <= x < upper on each (an infinite bound is
// open: -inf and +inf bound nothing, so every point, infinities included, lies in one box).
struct RegionBox {
  std::vector<double> lower;
  std::vector<double> upper;
};

class RegionPartition {
 public:
  RegionPartition() = default;
  // `dims`: the split dimensions (indices into a point); `boxes`: one per region, tiling space.
  RegionPartition(Metric metric, double eps, std::vector<std::size_t> dims,
                  std::vector<RegionBox> boxes);

  std::size_t regions() const { return boxes_.size(); }
  Metric metric() const { return metric_; }
  double eps() const { return eps_; }
  const std::vector<std::size_t>& dims() const { return dims_; }
  const std::vector<RegionBox>& boxes() const { return boxes_; }

  // The region whose box holds the point (cosine: its direction); region 0 for a point no box
  // holds (a NaN in a split dimension, a zero vector's cosine), which matches nothing.
  std::size_t home(const double* point, std::size_t dim) const;

  // *regions = the home region, then every other region a partner within eps may lie in: boxes
  // within eps of the point in the metric (cosine: the engine's chord of eps on unit vectors,
  // cosine_candidate_radius), with a margin for rounding. Only the home region for a point that
  // can match nothing (a NaN coordinate, or an infinite one with a finite eps).
  void reach(const double* point, std::size_t dim, std::vector<std::size_t>* regions) const;

 private:
  // The point in the partition's space (cosine: its unit vector) at the split dimensions; false
  // when it has no place there (no direction, for cosine).
  bool split_coordinates(const double* point, std::size_t dim, double* out) const;
  // The region whose box holds split coordinates x (0 when none does: a NaN).
  std::size_t box_of(const double* x) const;

  Metric metric_ = Metric::Euclidean;
  double eps_ = 0.0;
  std::vector<std::size_t> dims_;
  std::vector<RegionBox> boxes_;
};

struct RegionPlanOptions {
  std::size_t regions = 1;
  RegionSplit split = RegionSplit::Work;
  Metric metric = Metric::Euclidean;
  double eps = 0.0;
  std::size_t split_dims = 0;  // 1 or 2; 0: one for up to 3 regions, else two (where dim >= 2)
};

// Cuts space into options.regions boxes by weighted quantiles of a sample of `points` (k-d
// style: each cut halves the remaining regions, in the split dimension where the box's sampled
// points spread most). Deterministic for the same points and options. Throws Error on zero
// regions or points of dimension 0.
RegionPartition plan_regions(const PointSet& points, const RegionPlanOptions& options);

// The weights of PW for `sample` (points of the partition's space): 1 plus each point's
// neighbours within `reach` among an evenly spaced subsample, scaled to `population` points.
std::vector<double> work_weights(const std::vector<const double*>& sample, std::size_t dim,
                                 Metric metric, double reach, std::size_t population);

}  // namespace simjoin
