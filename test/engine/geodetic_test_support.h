// What the geodetic bound tests share: the WGS84 ellipsoid, chords between surface normals, the
// meridian arc integrated numerically and the angle between two normals.
#pragma once

#include <cmath>

#include "engine/bounds/geodetic_bound.h"

namespace simjoin::testing {

constexpr double kWgs84A = 6378137.0;
constexpr double kWgs84F = 1 / 298.257223563;
constexpr double kWgs84B = kWgs84A * (1 - kWgs84F);
constexpr double kRadians = M_PI / 180.0;

inline double chord(const double u[3], const double v[3]) {
  double sum = 0;
  for (int k = 0; k < 3; ++k) sum += (u[k] - v[k]) * (u[k] - v[k]);
  return std::sqrt(sum);
}

// The chord between the unit normals at two (longitude, latitude) points, degrees.
inline double chord_of(double lon1, double lat1, double lon2, double lat2) {
  double u[3], v[3];
  geodetic_unit_vector(lon1, lat1, u);
  geodetic_unit_vector(lon2, lat2, v);
  return chord(u, v);
}

// Length of the meridian from latitude lat1 to lat2 (degrees) on the ellipsoid (a, f): the
// integral of M(phi) = a (1 - e^2) / (1 - e^2 sin^2 phi)^(3/2), Simpson's rule (its error is far
// below the bounds' margins for these short arcs).
inline double meridian_arc(double a, double f, double lat1, double lat2) {
  const double e2 = f * (2 - f);
  const int n = 2000;
  const double h = (lat2 - lat1) * kRadians / n;
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double s = std::sin(lat1 * kRadians + i * h);
    const double m = a * (1 - e2) / std::pow(1 - e2 * s * s, 1.5);
    sum += m * (i == 0 || i == n ? 1 : (i % 2 ? 4 : 2));
  }
  return std::fabs(sum * h / 3);
}

// The angle between two unit vectors (atan2 form, as PostGIS computes it).
inline double normal_angle(const double u[3], const double v[3]) {
  const double cross = std::hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                                  u[0] * v[1] - u[1] * v[0]);
  return std::atan2(cross, u[0] * v[0] + u[1] * v[1] + u[2] * v[2]);
}

}  // namespace simjoin::testing
