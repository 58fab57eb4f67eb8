// Whether other extensions' installed operators compute, on the values the engine reads from
// them, what simjoin computes (engine/bounds/arithmetic_probe.h): contrib cube's three distances and
// cube_enlarge(a, r, n) @> b on point cubes; PostGIS's ST_DWithin on 2-D points. Where they do,
// the custom scan decides those clauses on the engine's pairs itself instead of calling the
// extension's functions on every pair.
#pragma once

extern "C" {
#include "postgres.h"
}

namespace simjoin::pg::cs {

// The cube functions, found by name and type in cube's schema (InvalidOid: absent).
struct CubeFunctions {
  Oid distance[3];  // by Metric: cube_distance, distance_taxicab, distance_chebyshev
  Oid enlarge;      // cube_enlarge(cube, float8, int4)
  Oid contains;     // cube_contains(cube, cube): a @> b
  Oid contained;    // cube_contained(cube, cube): a <@ b
};

// PostGIS's functions (InvalidOid: absent).
struct PostgisFunctions {
  Oid make_point;   // st_makepoint(float8, float8)
  Oid dwithin;      // st_dwithin(geometry, geometry, float8)
  Oid distance;     // st_distance(geometry, geometry)
  Oid knn_distance;  // the function of geometry <-> geometry
};

// Each runs its probe: a few thousand calls of the extension's functions, in a memory context
// of its own. Call inside cpp_guard: the extension's errors come back as PgError.
bool cube_functions_match(const CubeFunctions& functions);
bool postgis_dwithin_matches(const PostgisFunctions& functions);
// Whether `distance` (ST_Distance or <->'s function) of two 2-D points is simjoin's Euclidean
// distance bit for bit.
bool postgis_distance_matches(const PostgisFunctions& functions, Oid distance);
// Whether PostgreSQL's point <-> point is planar_point_distance (engine/bounds/planar_hypot.h)
// bit for bit.
bool point_distance_matches();

}  // namespace simjoin::pg::cs
