// engine/bounds/geodetic_bound.h: unit normals joined within geodetic_candidate_bound(d, R) keep every pair of
// points at geodesic distance <= d, checked where the bound is tightest (meridian arcs at the
// equator, computed here by integrating the meridional radius of curvature) and on the sphere
// (PostGIS's sphere mode), with d set to each pair's own distance; a radius 1% too large loses
// pairs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "engine/bounds/geodetic_bound.h"
#include "geodetic_test_support.h"

namespace simjoin {
namespace {

using testing::chord;
using testing::chord_of;
using testing::kRadians;
using testing::kWgs84A;
using testing::kWgs84F;
using testing::meridian_arc;
using testing::normal_angle;

double wgs84_min_radius() {
  const double b = kWgs84A * (1 - kWgs84F);
  return ellipsoid_min_radius(kWgs84A, b * b / kWgs84A);
}

TEST(GeodeticUnitVector, PolesAntimeridianAndNorm) {
  double u[3];
  geodetic_unit_vector(12.5, 90, u);
  EXPECT_NEAR(u[2], 1.0, 1e-15);
  EXPECT_NEAR(std::hypot(u[0], u[1]), 0.0, 1e-15);
  // Points on either side of the antimeridian are close, whatever their longitudes' signs.
  EXPECT_NEAR(chord_of(179.99, 10, -179.99, 10), 0.02 * kRadians * std::cos(10 * kRadians), 1e-11);
  // Every longitude at a pole is the same point.
  EXPECT_LT(chord_of(0, -90, 137, -90), 1e-15);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> lon(-180, 180), lat(-90, 90);
  for (int i = 0; i < 1000; ++i) {
    geodetic_unit_vector(lon(rng), lat(rng), u);
    EXPECT_NEAR(u[0] * u[0] + u[1] * u[1] + u[2] * u[2], 1.0, 4e-16);
  }
}

TEST(EllipsoidMinRadius, OblateProlateSphereAndInvalid) {
  const double b = kWgs84A * (1 - kWgs84F);
  const double r = wgs84_min_radius();
  EXPECT_LE(r, b * b / kWgs84A);
  EXPECT_GT(r, b * b / kWgs84A * (1 - 2e-7));
  EXPECT_NEAR(r, 6335439.327, 1.0);
  // Prolate (b > a): the smallest radius is at the poles, a^2 / b.
  EXPECT_NEAR(ellipsoid_min_radius(6e6, 7e6 * 7e6 / 6e6), 6e6 * 6e6 / 7e6, 10.0);
  EXPECT_NEAR(ellipsoid_min_radius(6370997.0, 6370997.0), 6370997.0, 1.0);
  EXPECT_TRUE(std::isnan(ellipsoid_min_radius(0, 1)));
  EXPECT_TRUE(std::isnan(ellipsoid_min_radius(6e6, std::nan(""))));
  // From short arcs as a geodesic library measures them (delta 0.01 degrees).
  const double delta = 0.01;
  const double equator = kWgs84A * delta * kRadians;
  const double meridian = meridian_arc(kWgs84A, kWgs84F, -delta / 2, delta / 2);
  EXPECT_NEAR(geodetic_min_radius_from_arcs(equator, meridian, delta), r, 0.01);
}

TEST(GeodeticCandidateBound, NaNNegativeInfiniteAndCap) {
  const double r = wgs84_min_radius();
  EXPECT_TRUE(std::isnan(geodetic_candidate_bound(-1, r)));
  EXPECT_TRUE(std::isnan(geodetic_candidate_bound(std::nan(""), r)));
  EXPECT_TRUE(std::isnan(geodetic_candidate_bound(1000, 0)));
  EXPECT_EQ(geodetic_candidate_bound(std::numeric_limits<double>::infinity(), r), 3.0);
  EXPECT_EQ(geodetic_candidate_bound(2e7, r), 3.0);
  EXPECT_GT(geodetic_candidate_bound(0, r), 0.0);  // duplicates and d = 0
  EXPECT_LE(geodetic_candidate_bound(0, r), 1e-11);
}

// Where the bound is tightest: arcs of a meridian through the equator, whose normals turn
// fastest (1 / M at the equator). With d = each arc's own length the pair stays a candidate; a
// radius 1% too large loses such pairs.
TEST(GeodeticCandidateBound, KeepsMeridianArcsAtTheEquator) {
  const double r = wgs84_min_radius();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> centre(-0.5, 0.5), half(1e-6, 2.0), lon(-180, 180);
  int lost_with_larger_radius = 0;
  for (int i = 0; i < 2000; ++i) {
    const double c = centre(rng), h = half(rng), l = lon(rng);
    const double s = meridian_arc(kWgs84A, kWgs84F, c - h, c + h);
    const double distance = chord_of(l, c - h, l, c + h);
    EXPECT_LE(distance, geodetic_candidate_bound(s, r)) << c << " " << h;
    if (distance > geodetic_candidate_bound(s, r * 1.01)) ++lost_with_larger_radius;
  }
  EXPECT_GT(lost_with_larger_radius, 1000);
}

// Meridian arcs at every latitude and equator arcs: the bound holds, less tightly.
TEST(GeodeticCandidateBound, KeepsMeridianAndEquatorArcsEverywhere) {
  const double r = wgs84_min_radius();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> lat(-89, 89), step(0, 1), lon(-180, 180);
  for (int i = 0; i < 2000; ++i) {
    const double a = lat(rng), b = std::min(90.0, a + step(rng)), l = lon(rng);
    EXPECT_LE(chord_of(l, a, l, b), geodetic_candidate_bound(meridian_arc(kWgs84A, kWgs84F, a, b), r));
    const double dl = step(rng) * 30;
    EXPECT_LE(chord_of(l, 0, l + dl, 0), geodetic_candidate_bound(kWgs84A * dl * kRadians, r));
  }
}

// PostGIS's sphere mode: great-circle distance R_s * angle on a sphere of radius
// R_s = (2a + b) / 3 >= R, the angle between the same unit vectors (atan2 form, as PostGIS).
TEST(GeodeticCandidateBound, KeepsSphereDistances) {
  const double r = wgs84_min_radius();
  const double sphere = (2 * kWgs84A + kWgs84A * (1 - kWgs84F)) / 3;
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> lon(-180, 180), lat(-90, 90), near(-0.01, 0.01);
  for (int i = 0; i < 20000; ++i) {
    const double lon1 = lon(rng), lat1 = lat(rng);
    const bool close = i % 2 == 0;
    const double lon2 = close ? lon1 + near(rng) : lon(rng);
    const double lat2 = close ? std::max(-90.0, std::min(90.0, lat1 + near(rng))) : lat(rng);
    double u[3], v[3];
    geodetic_unit_vector(lon1, lat1, u);
    geodetic_unit_vector(lon2, lat2, v);
    const double angle = normal_angle(u, v);
    EXPECT_LE(chord(u, v), geodetic_candidate_bound(sphere * angle, r));
  }
}

}  // namespace
}  // namespace simjoin
