// The exact k-nearest-neighbour join by a distance the engine does not compute but bounds (the
// geodesic on PostGIS's spheroid, measured by PostGIS): per left point, the engine's k' nearest
// right points by its own metric are measured, and the k nearest of those by the measure are the
// answer once the k'-th engine distance lies beyond the reach of the k-th measure (every point
// left out is then farther by the measure); the other left points are searched again with four
// times as many candidates, until every point is certain.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "engine/knn/knn_join.h"

namespace simjoin {

struct KnnMeasure {
  // The measure from left point i to right points js[0, n): out[0, n). NaN: never a neighbour.
  // Called on the calling thread, as a sink is.
  std::function<void(std::size_t i, const std::uint32_t* js, std::size_t n, double* out)> measure;
  // The engine distance (the KnnSpec's metric) within which every pair at measure <= d lies:
  // non-decreasing in d; +infinity or NaN where it bounds nothing.
  std::function<double(double d)> reach;
};

// The engine's kNN join the search runs its rounds on (run_knn_join, or the backend's routing).
using KnnRunner = std::function<JoinStats(const PointSet& left, const PointSet* right,
                                          const KnnSpec& spec, PairSink& sink)>;

// For every left point i, the right points j with measure(i, j) <= spec.eps ordered by
// (measure, j), the first spec.k of them, streamed to `sink` as pairs (i, j, measure) as
// run_knn_join streams its own (a point's pairs in order; points in no particular order).
// spec.metric is the engine's metric of the coordinates; spec.eps is in the measure's units
// (+infinity: no limit). right == nullptr: left joined with itself (spec.include_self). Stops
// when the sink asks (stats.stopped). Throws Error for inputs run_knn_join rejects.
JoinStats run_measured_knn(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                           const KnnMeasure& measure, const KnnRunner& runner, PairSink& sink);

}  // namespace simjoin
