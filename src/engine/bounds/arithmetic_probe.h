// Probes whether another implementation of simjoin's arithmetic (a PostgreSQL type's operator,
// compiled elsewhere) computes bit for bit what simjoin computes: exact_distance (distance.h) for
// a metric, in_enlarged_box (engine/bounds/enlarged_box.h) for the box test. Where it does, the engine's pairs
// need no recheck with that operator.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/types.h"

namespace simjoin {

// The same formula compiled differently rounds differently: a fused multiply-add (compilers
// contract  s += d * d  on targets with FMA unless told not to), another summation order
// (vectorized or reassociated sums), extended or single precision. The probe inputs are chosen
// so that each of these differs from simjoin on many of them: coordinates over a wide range of
// magnitudes and dimensions (1 to 100, cube's limit), differences from the unit in the last
// place to the coordinates' own size, and box tests at exactly the box's rounded bounds, one
// unit in the last place on either side, and at the midpoint of negative enlargements. One
// disagreement and the implementation is not trusted. (test/engine/arithmetic_probe_test.cpp
// checks that each of those variants is caught.)

constexpr std::size_t kProbeMaxDim = 100;

// The other implementation: its distance of a and b (dim coordinates each), and its box test.
// context is passed through. A callback may throw; the exception leaves the probe unchanged.
using ForeignDistance = double (*)(const double* a, const double* b, std::size_t dim,
                                   void* context);
using ForeignBoxTest = bool (*)(const double* a, const double* b, std::size_t dim, double r,
                                void* context);

// The other implementation's predicate  dist(a, b) <= eps  (PostGIS's ST_DWithin, say).
using ForeignWithin = bool (*)(const double* a, const double* b, std::size_t dim, double eps,
                               void* context);

// Whether foreign returns exact_distance(a, b, dim, metric) bit for bit on every probe input.
bool distance_agrees(Metric metric, ForeignDistance foreign, void* context);
// The same on probe inputs of one dimension only (PostGIS's ST_Distance on 2-D points), as many.
bool distance_agrees_at(Metric metric, std::size_t dim, ForeignDistance foreign, void* context);
// Whether foreign returns reference's distance bit for bit on the same kind of probe inputs of
// one dimension (seed picks them): another arithmetic simjoin reproduces (planar_hypot.h).
bool distance_agrees_with(std::size_t dim, ForeignDistance reference, void* reference_context,
                          ForeignDistance foreign, void* context, std::uint64_t seed);
// Whether foreign decides  dist(a, b) <= eps  as exact_distance does on every probe input of
// dimension dim, at eps = the distance itself (true) and the next double below it (false): where
// it does, its distance is simjoin's on those inputs.
bool within_agrees(Metric metric, std::size_t dim, ForeignWithin foreign, void* context);
// Whether foreign returns in_enlarged_box(a, b, dim, r) on every probe input.
bool box_test_agrees(ForeignBoxTest foreign, void* context);

}  // namespace simjoin
