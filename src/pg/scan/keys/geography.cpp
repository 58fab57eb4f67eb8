// Keys of PostGIS's geography distances (ST_DWithin, ST_Distance <= d, <-> <= d): a point
// (longitude, latitude in degrees) becomes the unit vector of its normal, joined by the engine as
// Euclidean within geodetic_candidate_bound (src/engine/bounds/geodetic_bound.h); PostGIS decides the
// candidates beyond geodetic_certain_bound (src/engine/bounds/certain_bound.h), those within it satisfy
// the clause for sure. Non-point and empty geographies, and coordinates out of range, are wild.
#include "pg/scan/keys/keys.h"

#include "engine/bounds/certain_bound.h"
#include "engine/bounds/geodetic_bound.h"

extern "C" {
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
}

#include <cmath>

namespace simjoin::pg::cs {

namespace {

Oid geography_type = InvalidOid;
Oid distance_function = InvalidOid;  // st_distance(geography, geography, boolean)

// The spheroids' smallest and largest radii of curvature measured in this session, by SRID.
struct SridRadius {
  int32 srid;
  double min_radius;
  double max_radius;
};
constexpr int kRadiusCache = 16;
SridRadius radii[kRadiusCache];
int radius_count = 0;

// WGS84's b^2 / a and a^2 / b, for a planning estimate before any key's SRID is known.
constexpr double kWgs84MinRadius = 6335439.327;
constexpr double kWgs84MaxRadius = 6399593.626;

// The smallest and largest principal radii of curvature of the spheroid PostGIS uses for `srid`:
// two short geodesics measured by PostGIS's own ST_Distance (use_spheroid = true), as
// geodetic_min_radius_from_arcs and geodetic_max_radius_from_arcs expect them. NaN when PostGIS
// is not found.
SridRadius measure_radii(int32 srid) {
  SridRadius r{srid, std::nan(""), std::nan("")};
  if (!OidIsValid(geography_type) || !OidIsValid(distance_function)) return r;
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
  r.min_radius = geodetic_min_radius_from_arcs(equator, meridian, kDelta);
  r.max_radius = geodetic_max_radius_from_arcs(equator, meridian, kDelta);
  return r;
}

SridRadius srid_radii(int32 srid) {
  for (int i = 0; i < radius_count; ++i)
    if (radii[i].srid == srid) return radii[i];
  const SridRadius r = measure_radii(srid);
  if (radius_count < kRadiusCache) radii[radius_count++] = r;
  return r;
}

// Whether a boolean argument of the clause's calls (use_spheroid) is anything but a non-NULL
// constant: a NULL one makes the clause NULL for every pair, so no pair is certain.
bool has_unknown_boolean_argument(Node* node, void*) {
  if (node == nullptr) return false;
  List* args = IsA(node, FuncExpr) ? reinterpret_cast<FuncExpr*>(node)->args
               : IsA(node, OpExpr) ? reinterpret_cast<OpExpr*>(node)->args
                                   : NIL;
  ListCell* lc;
  foreach (lc, args) {
    Node* arg = static_cast<Node*>(lfirst(lc));
    if (exprType(arg) == BOOLOID && !(IsA(arg, Const) && !reinterpret_cast<Const*>(arg)->constisnull))
      return true;
  }
  return expression_tree_walker(
      node,
      reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(has_unknown_boolean_argument)),
      nullptr);
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

void geography_radii(int32 srid, double* min_radius, double* max_radius) {
  const SridRadius r = srid_radii(srid);
  *min_radius = r.min_radius;
  *max_radius = r.max_radius;
}

double geography_bound(double eps, const KeyRef& ref) {
  return geodetic_candidate_bound(eps, ref.srid_set ? srid_radii(ref.srid).min_radius
                                                    : kWgs84MinRadius);
}

double geography_certain_bound(double eps, const KeyRef& ref) {
  if (!ref.srid_set) return -1;
  return geodetic_certain_bound(eps, srid_radii(ref.srid).max_radius);
}

bool geography_clause_certain(Expr* clause) {
  return !has_unknown_boolean_argument(reinterpret_cast<Node*>(clause), nullptr);
}

double geography_recheck_share() {
  constexpr double kTypical = 1000;  // metres: the share hardly depends on d
  return recheck_share(geodetic_certain_bound(kTypical, kWgs84MaxRadius),
                       geodetic_candidate_bound(kTypical, kWgs84MinRadius));
}

}  // namespace simjoin::pg::cs
