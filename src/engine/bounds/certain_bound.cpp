#include "engine/bounds/certain_bound.h"

#include <cmath>

namespace simjoin {

double ellipsoid_max_radius(double a, double m0) {
  if (!(a > 0) || !(m0 > 0) || !std::isfinite(a) || !std::isfinite(m0)) return std::nan("");
  const double b = std::sqrt(m0 * a);  // m0 = b^2 / a
  const double radius = b <= a ? a * a / b : m0;
  return radius * (1.0 + 1e-7);
}

double geodetic_max_radius_from_arcs(double equator, double meridian, double delta_degrees) {
  const double delta = delta_degrees * (M_PI / 180.0);
  if (!(delta > 0)) return std::nan("");
  return ellipsoid_max_radius(equator / delta, meridian / delta);
}

double geodetic_certain_bound(double d, double max_radius) {
  if (!std::isfinite(d) || !(max_radius > 0) || !std::isfinite(max_radius)) return -1;
  const double within = d * (1.0 - 1e-9) - 1e-7;
  if (!(within >= 1e-7)) return -1;
  const double theta = within / max_radius;
  if (theta >= M_PI) return 3.0;  // every pair (chords are at most 2): no geodesic is longer
  return 2.0 * std::sin(theta / 2) * (1.0 - 1e-12) - 4e-15;
}

double planar_certain_bound(double r) {
  const double bound = r * (1.0 - 1e-12);
  return std::isfinite(bound) && bound >= 1e-150 ? bound : -1;
}

double recheck_share(double certain_bound, double candidate_bound) {
  if (!(certain_bound > 0)) return 1;
  if (!(candidate_bound > certain_bound)) return 0;
  const double ratio = certain_bound / candidate_bound;
  return 1.0 - ratio * ratio;
}

}  // namespace simjoin
