// engine/bounds/certain_bound.h: an engine pair within the certain bound satisfies the SQL predicate. Checked
// where the geodetic bound is tightest (meridian arcs near the poles, where the radius of
// curvature is a^2 / b: lengths integrated here), elsewhere on the ellipsoid, on PostGIS's
// sphere, and for points against PostgreSQL's pg_hypot (copied below); each with the distance
// bound set just below and just above each pair's own distance. A radius 1% too small, or no
// margin, accepts pairs beyond the bound.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "engine/bounds/certain_bound.h"
#include "engine/bounds/geodetic_bound.h"
#include "geodetic_test_support.h"

namespace simjoin {
namespace {

using testing::chord_of;
using testing::kRadians;
using testing::kWgs84A;
using testing::kWgs84B;
using testing::kWgs84F;
using testing::normal_angle;

// The meridian's length from latitude lat1 to lat2 (degrees) on WGS84.
double meridian_arc(double lat1, double lat2) {
  return testing::meridian_arc(kWgs84A, kWgs84F, lat1, lat2);
}

double wgs84_max_radius() { return ellipsoid_max_radius(kWgs84A, kWgs84B * kWgs84B / kWgs84A); }

// PostgreSQL 15's pg_hypot (src/backend/utils/adt/float.c), finite arguments.
double pg_hypot(double x, double y) {
  x = std::fabs(x);
  y = std::fabs(y);
  if (x < y) std::swap(x, y);
  if (y == 0.0) return x;
  const double yx = y / x;
  return x * std::sqrt(1.0 + yx * yx);
}

TEST(EllipsoidMaxRadius, OblateProlateFromArcsAndInvalid) {
  const double r = wgs84_max_radius();
  EXPECT_GE(r, kWgs84A * kWgs84A / kWgs84B);
  EXPECT_LT(r, kWgs84A * kWgs84A / kWgs84B * (1 + 2e-7));
  EXPECT_NEAR(r, 6399593.626, 1.0);
  EXPECT_NEAR(ellipsoid_max_radius(6e6, 7e6 * 7e6 / 6e6), 7e6 * 7e6 / 6e6, 10.0);  // prolate
  EXPECT_TRUE(std::isnan(ellipsoid_max_radius(0, 1)));
  EXPECT_TRUE(std::isnan(ellipsoid_max_radius(6e6, std::nan(""))));
  const double delta = 0.01;
  EXPECT_NEAR(geodetic_max_radius_from_arcs(kWgs84A * delta * kRadians,
                                            meridian_arc(-delta / 2, delta / 2), delta),
              r, 0.01);
}

TEST(GeodeticCertainBound, NothingCertainAndEverything) {
  const double r = wgs84_max_radius();
  EXPECT_LT(geodetic_certain_bound(std::nan(""), r), 0);
  EXPECT_LT(geodetic_certain_bound(-1, r), 0);
  EXPECT_LT(geodetic_certain_bound(0, r), 0);
  EXPECT_LT(geodetic_certain_bound(1e-7, r), 0);
  EXPECT_LT(geodetic_certain_bound(std::numeric_limits<double>::infinity(), r), 0);
  EXPECT_LT(geodetic_certain_bound(1000, 0), 0);
  EXPECT_LT(geodetic_certain_bound(1000, std::nan("")), 0);
  EXPECT_EQ(geodetic_certain_bound(M_PI * r * 1.001, r), 3.0);
  EXPECT_LT(geodetic_certain_bound(M_PI * r * 0.999, r), 2.0);
  // Always inside the candidate bound.
  for (double d : {1e-3, 1.0, 1e3, 1e6, 1e7})
    EXPECT_LT(geodetic_certain_bound(d, r), geodetic_candidate_bound(d, 6335439.0));
}

// Meridian arcs, tightest near the poles: with d just below an arc's length the pair is never
// certain; with d a little above, it is (the bound is of use). A radius 1% too small (R_min
// * 1.01) accepts arcs longer than d.
TEST(GeodeticCertainBound, MeridianArcsNearThePolesAndEverywhere) {
  const double r = wgs84_max_radius();
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> lat(-89.9, 89.9), polar(89.0, 89.99), step(1e-6, 0.5),
      lon(-180, 180);
  int accepted_above = 0, wrong_with_small_radius = 0;
  for (int i = 0; i < 4000; ++i) {
    const double a = i % 2 ? polar(rng) * (i % 4 == 1 ? 1 : -1) : lat(rng);
    const double b = std::max(-90.0, std::min(90.0, a + (a > 0 ? -1 : 1) * step(rng)));
    const double l = lon(rng);
    const double s = meridian_arc(std::min(a, b), std::max(a, b));
    const double c = chord_of(l, a, l, b);
    EXPECT_GT(c, geodetic_certain_bound(s * (1 - 1e-9), r)) << a << " " << b;
    EXPECT_GT(c, geodetic_certain_bound(s, r)) << a << " " << b;
    if (c <= geodetic_certain_bound(s * (1 + 1e-2), r)) ++accepted_above;
    if (c <= geodetic_certain_bound(s * (1 - 1e-9), 6335439.327 * 1.01)) ++wrong_with_small_radius;
  }
  EXPECT_GT(accepted_above, 3500);
  EXPECT_GT(wrong_with_small_radius, 500);
}

// Equator arcs (geodesics of length a * dlon) and PostGIS's sphere: R_s * angle, R_s = (2a + b) / 3.
TEST(GeodeticCertainBound, EquatorArcsAndSphere) {
  const double r = wgs84_max_radius();
  const double sphere = (2 * kWgs84A + kWgs84B) / 3;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> lon(-180, 180), lat(-90, 90), step(1e-6, 1), near(-0.01, 0.01);
  for (int i = 0; i < 20000; ++i) {
    const double l = lon(rng), dl = step(rng);
    EXPECT_GT(chord_of(l, 0, l + dl, 0), geodetic_certain_bound(kWgs84A * dl * kRadians, r));
    const double lon1 = lon(rng), lat1 = lat(rng);
    const bool close = i % 2 == 0;
    const double lon2 = close ? lon1 + near(rng) : lon(rng);
    const double lat2 = close ? std::max(-90.0, std::min(90.0, lat1 + near(rng))) : lat(rng);
    double u[3], v[3];
    geodetic_unit_vector(lon1, lat1, u);
    geodetic_unit_vector(lon2, lat2, v);
    const double angle = normal_angle(u, v);
    EXPECT_GT(chord_of(lon1, lat1, lon2, lat2), geodetic_certain_bound(sphere * angle, r));
  }
}

// Points: differences whose pg_hypot and sqrt(dx^2 + dy^2) differ in the last bits, r set to
// pg_hypot itself and one ulp below; no margin (r itself as the bound) accepts a pair that
// point_dt puts above r.
TEST(PlanarCertainBound, AgainstPgHypot) {
  EXPECT_LT(planar_certain_bound(std::nan("")), 0);
  EXPECT_LT(planar_certain_bound(-1), 0);
  EXPECT_LT(planar_certain_bound(0), 0);
  EXPECT_LT(planar_certain_bound(1e-200), 0);
  EXPECT_LT(planar_certain_bound(std::numeric_limits<double>::infinity()), 0);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(-1, 1), exponent(-100, 100);
  int differ = 0, wrong_without_margin = 0, accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    const double scale = std::pow(10.0, exponent(rng));
    const double dx = unit(rng) * scale, dy = unit(rng) * scale;
    const double engine = std::sqrt(dx * dx + dy * dy), exact = pg_hypot(dx, dy);
    if (engine != exact) ++differ;
    for (double r : {exact, std::nextafter(exact, 0.0), exact * (1 + 1e-12), exact * (1 + 2e-12)}) {
      if (engine <= planar_certain_bound(r)) {
        ++accepted;
        EXPECT_LE(exact, r) << dx << " " << dy;
      }
      if (engine <= r && exact > r) ++wrong_without_margin;
    }
  }
  EXPECT_GT(differ, 1000);
  EXPECT_GT(wrong_without_margin, 100);
  EXPECT_GT(accepted, 100000);
}

TEST(RecheckShare, RatioOfBounds) {
  EXPECT_EQ(recheck_share(-1, 1), 1.0);
  EXPECT_EQ(recheck_share(1, 1), 0.0);
  EXPECT_NEAR(recheck_share(0.99, 1), 1 - 0.99 * 0.99, 1e-15);
}

}  // namespace
}  // namespace simjoin
