// The distance of two 2-D points as PostgreSQL 15 computes it for point <-> point (point_dt in
// geo_ops.c): the hypotenuse of the coordinates' differences by its own pg_hypot, x sqrt(1 +
// (y/x)^2) with x the larger magnitude, which rounds differently from sqrt(x^2 + y^2). The same
// operations in the same order (no fused multiply-add: the build compiles with
// -ffp-contract=off), so that the engine can decide  point <-> point <= eps  and fold the
// operator's value without calling it; the glue checks it against the server's own operator
// with distance_agrees_with (engine/bounds/arithmetic_probe.h) before trusting it.
#pragma once

#include <cmath>
#include <limits>

namespace simjoin {

inline double planar_hypot(double x, double y) {
  if (std::isinf(x) || std::isinf(y)) return std::numeric_limits<double>::infinity();
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
  x = std::fabs(x);
  y = std::fabs(y);
  if (x < y) {
    const double larger = y;
    y = x;
    x = larger;
  }
  if (y == 0.0) return x;
  const double yx = y / x;
  return x * std::sqrt(1.0 + yx * yx);
}

// point_dt(a, b) for a and b of two coordinates each (finite differences: PostgreSQL raises an
// overflow error where a difference is infinite, which no pair within a finite eps reaches).
inline double planar_point_distance(const double* a, const double* b) {
  return planar_hypot(a[0] - b[0], a[1] - b[1]);
}

}  // namespace simjoin
