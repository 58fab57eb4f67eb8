#include "engine/bounds/geodetic_bound.h"

#include <cmath>

namespace simjoin {

void geodetic_unit_vector(double lon_degrees, double lat_degrees, double out[3]) {
  constexpr double kRadians = M_PI / 180.0;
  const double lon = lon_degrees * kRadians, lat = lat_degrees * kRadians;
  const double cos_lat = std::cos(lat);
  out[0] = cos_lat * std::cos(lon);
  out[1] = cos_lat * std::sin(lon);
  out[2] = std::sin(lat);
}

double ellipsoid_min_radius(double a, double m0) {
  if (!(a > 0) || !(m0 > 0) || !std::isfinite(a) || !std::isfinite(m0)) return std::nan("");
  const double b = std::sqrt(m0 * a);  // m0 = b^2 / a
  const double radius = b <= a ? m0 : a * a / b;
  return radius * (1.0 - 1e-7);
}

double geodetic_min_radius_from_arcs(double equator, double meridian, double delta_degrees) {
  const double delta = delta_degrees * (M_PI / 180.0);
  if (!(delta > 0)) return std::nan("");
  return ellipsoid_min_radius(equator / delta, meridian / delta);
}

double geodetic_candidate_bound(double d, double min_radius) {
  if (std::isnan(d) || d < 0 || !(min_radius > 0)) return std::nan("");
  const double bound = d / min_radius * (1.0 + 1e-9) + 1e-12;
  return bound < 3.0 ? bound : 3.0;
}

}  // namespace simjoin
