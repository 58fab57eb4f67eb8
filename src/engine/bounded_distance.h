// The match test with early exit (SHORTC, Gowanlock and Karsin, DaMoN 2019): exactly `accumulate_distance(a, b) <= bound`
// of distance.h, but it stops as soon as a partial value exceeds the bound. That is allowed because
// the partial values never decrease (non-negative terms, monotone rounding), so a partial value above
// the bound implies a final one above it (or NaN, which fails the test too).
#pragma once

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "engine/distance.h"

namespace simjoin {

// The term one dimension contributes to the accumulated value (before summing / taking the max).
template <Metric M>
inline double dimension_term(double diff) {
  if constexpr (M == Metric::Euclidean) {
    return diff * diff;
  } else {
    return std::fabs(diff);
  }
}

// True iff accumulate_distance(a, b, dim, M) <= bound; then *accumulated holds that exact value.
// The operations and their order are those of accumulate_distance, so the value is bit-identical.
template <Metric M>
inline bool within_bound(const double* a, const double* b, std::size_t dim, double bound,
                         double* accumulated) {
  constexpr std::size_t kCheckEvery = 4;  // dimensions between early-exit checks
  double acc = 0.0;
  std::size_t j = 0;
  while (j < dim) {
    const std::size_t block_end = j + kCheckEvery < dim ? j + kCheckEvery : dim;
    for (; j < block_end; ++j) {
      const double term = dimension_term<M>(a[j] - b[j]);
      if constexpr (M == Metric::Chebyshev) {
        if (std::isnan(term)) return false;
        if (term > acc) acc = term;
      } else {
        acc += term;
      }
    }
    if (acc > bound) return false;
  }
  if (!(acc <= bound)) return false;  // NaN
  *accumulated = acc;
  return true;
}

template <Metric M>
using MetricTag = std::integral_constant<Metric, M>;

// Calls f(MetricTag<metric>{}) so that the hot loops are compiled once per metric; in f,
// `decltype(tag)::value` is the metric as a constant expression.
template <typename F>
inline decltype(auto) with_metric(Metric metric, F&& f) {
  switch (metric) {
    case Metric::Manhattan:
      return f(MetricTag<Metric::Manhattan>{});
    case Metric::Chebyshev:
      return f(MetricTag<Metric::Chebyshev>{});
    case Metric::Euclidean:
    default:
      return f(MetricTag<Metric::Euclidean>{});
  }
}

}  // namespace simjoin
