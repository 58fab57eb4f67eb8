// Whether the installed contrib cube computes, on point cubes, bit for bit what simjoin computes
// (arithmetic_probe.h): its three distances and  cube_enlarge(a, r, n) @> b. Where it does, the
// custom scan decides cube's distance clause and that box clause on the engine's pairs itself
// instead of calling cube on every pair.
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

// Runs the probe (a few thousand calls of cube's functions, in a memory context of its own).
// Call inside cpp_guard: cube's errors come back as PgError.
bool cube_functions_match(const CubeFunctions& functions);

}  // namespace simjoin::pg::cs
