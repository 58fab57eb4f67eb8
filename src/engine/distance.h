// The exact distance: the single definition that the SQL operators, the CPU engine and the GPU
// refinement step all follow, so that every path returns the same pairs.
#pragma once

#include <cmath>
#include <cstddef>

#include "engine/cosine.h"
#include "engine/types.h"

namespace simjoin {

// Accumulated form of the distance before the final step: for Euclidean the sum of squared
// differences (dimensions in stored order, no fused multiply-add), for Manhattan the sum of
// absolute differences, for Chebyshev the maximum absolute difference.
inline double accumulate_distance(const double* a, const double* b, std::size_t dim,
                                  Metric metric) {
  double acc = 0.0;
  switch (metric) {
    case Metric::Euclidean:
      for (std::size_t j = 0; j < dim; ++j) {
        const double diff = a[j] - b[j];
        acc += diff * diff;
      }
      return acc;
    case Metric::Manhattan:
      for (std::size_t j = 0; j < dim; ++j) acc += std::fabs(a[j] - b[j]);
      return acc;
    case Metric::Chebyshev:
      for (std::size_t j = 0; j < dim; ++j) {
        const double diff = std::fabs(a[j] - b[j]);
        if (std::isnan(diff)) return diff;  // NaN propagates: it never matches
        if (diff > acc) acc = diff;
      }
      return acc;
    case Metric::Cosine:  // not a sum over dimensions: exact_distance computes it
      break;
  }
  return std::nan("");
}

inline double finish_distance(double accumulated, Metric metric) {
  return metric == Metric::Euclidean ? std::sqrt(accumulated) : accumulated;
}

inline double exact_distance(const double* a, const double* b, std::size_t dim, Metric metric) {
  if (metric == Metric::Cosine) return cosine_distance(a, b, dim);
  return finish_distance(accumulate_distance(a, b, dim, metric), metric);
}

// Whether exact_distance(p, p) <= eps. A point's cosine distance to itself, 1 - s / sqrt(s)^2
// with s >= 1/4 the sum of its scaled squares (cosine.h), lies within a few units of 2^-53 of 0:
// from eps >= 2^-48 on, every point with a direction matches itself, without its sums.
inline bool matches_itself(const double* p, std::size_t dim, Metric metric, double eps) {
  if (metric == Metric::Cosine && eps >= 0x1p-48)
    return cosine_scale_exponent(p, dim) != kNoDirection;
  return exact_distance(p, p, dim, metric) <= eps;
}

// The bound on the accumulated value equivalent to `distance <= eps`: for Euclidean the largest
// double t with sqrt(t) <= eps (sqrt is monotone, so sqrt(s) <= eps iff s <= t), otherwise eps.
// This lets the engines compare partial sums without a square root and stop early once a partial
// sum exceeds it (partial sums of non-negative terms never decrease). NaN when nothing matches.
double accumulated_bound(double eps, Metric metric);

}  // namespace simjoin
