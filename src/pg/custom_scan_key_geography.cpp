// Keys of PostGIS's geography distances (ST_DWithin, ST_Distance <= d, <-> <= d): a point
// (longitude, latitude in degrees) becomes the unit vector of its normal, joined by the engine as
// Euclidean within geodetic_candidate_bound (src/engine/geodetic_bound.h); PostGIS decides every
// candidate. Non-point and empty geographies, and coordinates out of range, are wild.
#include "custom_scan_keys.h"

#include "geodetic_bound.h"

extern "C" {
#include "fmgr.h"
#include "utils/lsyscache.h"
}

#include <cmath>

namespace simjoin::pg::cs {

namespace {

Oid geography_type = InvalidOid;
Oid distance_function = InvalidOid;  // st_distance(geography, geography, boolean)

// The spheroids' smallest radii of curvature measured in this session, by SRID.
struct SridRadius {
  int32 srid;
  double radius;
};
constexpr int kRadiusCache = 16;
SridRadius radii[kRadiusCache];
int radius_count = 0;

// WGS84's b^2 / a, for a planning estimate before any key's SRID is known.
constexpr double kWgs84MinRadius = 6335439.327;

// The smallest principal radius of curvature of the spheroid PostGIS uses for `srid`: two short
// geodesics measured by PostGIS's own ST_Distance (use_spheroid = true), as
// geodetic_min_radius_from_arcs expects them. NaN when PostGIS is not found.
double measure_min_radius(int32 srid) {
  if (!OidIsValid(geography_type) || !OidIsValid(distance_function)) return std::nan("");
  Oid input, ioparam;
  getTypeInputInfo(geography_type, &input, &ioparam);
  auto point = [&](double lon, double lat) {
    return OidInputFunctionCall(input, psprintf("SRID=%d;POINT(%.17g %.17g)", srid, lon, lat),
                                ioparam, -1);
  };
  auto distance = [&](Datum a, Datum b) {
    return DatumGetFloat8(OidFunctionCall3(distance_function, a, b, BoolGetDatum(true)));
  };
  constexpr double kDelta = 0.01;  // degrees
  const double equator = distance(point(0, 0), point(kDelta, 0));
  const double meridian = distance(point(0, -kDelta / 2), point(0, kDelta / 2));
  return geodetic_min_radius_from_arcs(equator, meridian, kDelta);
}

double min_radius(int32 srid) {
  for (int i = 0; i < radius_count; ++i)
    if (radii[i].srid == srid) return radii[i].radius;
  const double radius = measure_min_radius(srid);
  if (radius_count < kRadiusCache) radii[radius_count++] = SridRadius{srid, radius};
  return radius;
}

}  // namespace

int geography_point(Datum value, double* out, int32* srid) {
  const GeoShape p = parse_geometry(value, true);
  // PostGIS keeps geography coordinates in range; anything else is left to PostGIS.
  if (p.kind != GeoShape::Point || !(std::fabs(p.xmin) <= 180) || !(std::fabs(p.ymin) <= 90))
    return -1;
  *srid = p.srid;
  if (out) geodetic_unit_vector(p.xmin, p.ymin, out);
  return 3;
}

void set_geography_functions(Oid geography, Oid distance) {
  geography_type = geography;
  distance_function = distance;
  radius_count = 0;
}

double geography_bound(double eps, const KeyRef& ref) {
  return geodetic_candidate_bound(eps, ref.srid_set ? min_radius(ref.srid) : kWgs84MinRadius);
}

}  // namespace simjoin::pg::cs
