// The key forms of the SimilarityJoin custom scan, shared by the form registry
// (pg/scan/keys/forms.cpp), the dispatch over the kinds (pg/scan/keys/keys.cpp) and the kinds'
// readers, one file each:
//   pg/scan/keys/array.cpp     real[] / float8[] (simjoin's own distances)
//   pg/scan/keys/cube.cpp      contrib cube
//   pg/scan/keys/point.cpp     PostgreSQL's point
//   pg/scan/keys/pgvector.cpp  pgvector's vector
//   pg/scan/keys/postgis.cpp   PostGIS's geometry
//   pg/scan/keys/geography.cpp PostGIS's geography (unit normals), and its spheroids' radii
// A reader writes a key's coordinates to out (unless it is null) and returns its dimension, or -1
// when the engine cannot represent the key faithfully (a wild key); want_dim >= 0 requires that
// dimension.
#pragma once

#include "pg/scan/internal.h"

#include <cmath>

namespace simjoin::pg::cs {

// Coordinates beyond this magnitude could overflow the engine's sums of squares: wild.
constexpr double kHuge = 1e150;

inline bool coordinate_ok(double x) { return std::isfinite(x) && std::fabs(x) <= kHuge; }

// pg/scan/keys/keys.cpp
const char* varlena_data(Datum value, Size* size);

// pg/scan/keys/array.cpp
int array_point(Datum value, double* out, int want_dim);

// pg/scan/keys/cube.cpp
int cube_point(Datum value, double* out, int want_dim);

// pg/scan/keys/point.cpp
int builtin_point(Datum value, double* out);

// pg/scan/keys/pgvector.cpp: *zero (unless null) tells whether the vector is zero.
int pgvector_point(Datum value, double* out, int want_dim, bool cosine, bool* zero);

// pg/scan/keys/postgis.cpp: a geometry as the engine may take it: a 2-D point (its box is the
// point), the box of a linear geometry's vertices, EMPTY, or anything else (wild).
struct GeoShape {
  enum Kind { Other, Empty, Point, Box } kind;
  int32 srid;
  double xmin, ymin, xmax, ymax;
};

// geodetic: a geography's serialization (a geometry's otherwise; the other is wild).
// point_limit: a point's largest coordinate magnitude (beyond it the point is Other); the
// engine's DBSCAN takes any finite point, the custom scan's sums of squares stop at kHuge.
GeoShape parse_geometry(Datum value, bool geodetic = false, double point_limit = kHuge);

// pg/scan/keys/geography.cpp: a geography point's unit normal (3 coordinates) and SRID.
int geography_point(Datum value, double* out, int32* srid);
// PostGIS's geography type and ST_Distance(geography, geography, boolean), found with the forms
// (InvalidOid: absent); forgets the radii measured with the previous ones.
void set_geography_functions(Oid geography, Oid distance);
// PostGIS's geography type, st_dwithin(geography, geography, float8, boolean) and
// st_distance(geography, geography, boolean), found with the forms (pg/scan/keys/forms.cpp;
// InvalidOid where PostGIS is absent).
struct GeographyFunctions {
  Oid type = InvalidOid, dwithin = InvalidOid, distance = InvalidOid;
};
GeographyFunctions postgis_geography_functions();
// The smallest and largest radii of curvature of the spheroid of `srid`, measured with the
// distance function of set_geography_functions and cached per SRID (NaN where they cannot be
// measured).
void geography_radii(int32 srid, double* min_radius, double* max_radius);
// The Euclidean bound on unit normals for ST_DWithin / ST_Distance <= eps on keys of ref's SRID
// (engine/bounds/geodetic_bound.h); the spheroid's smallest radius of curvature is measured once per SRID
// with PostGIS's own ST_Distance (WGS84's for a planning estimate, before any SRID is known).
double geography_bound(double eps, const KeyRef& ref);
// The chord on unit normals within which an engine pair surely satisfies the clause
// (engine/bounds/certain_bound.h), from the SRID's largest radius of curvature measured likewise; negative
// when nothing is certain (no SRID yet).
double geography_certain_bound(double eps, const KeyRef& ref);
// Whether the clause's use_spheroid (if any) is a non-NULL constant, so that a pair within the
// certain bound satisfies it whatever the mode.
bool geography_clause_certain(Expr* clause);
// The expected share of the candidates that PostGIS still decides (WGS84, for the plan's cost).
double geography_recheck_share();

}  // namespace simjoin::pg::cs
