// "Certain accept" bounds for the forms whose operator the engine cannot reproduce bit for bit
// (PostGIS geography distances, PostgreSQL's point <-> point): an engine pair whose distance, as
// the engine computed it (the PairBatch distance: the Euclidean distance of the joined vectors),
// is within the certain bound satisfies the SQL predicate for sure, so only the pairs between the
// certain bound and the candidate bound go to the operator. Both bounds are negative where
// nothing is certain (every candidate is then rechecked).
//
// Geography. The surface normals of PostGIS's geodetic coordinates are geodetic_unit_vector's
// (engine/bounds/geodetic_bound.h). On a convex surface whose principal radii of curvature lie in
// [R_min, R_max], take the curve whose unit normal follows the great circle between the two
// points' normals n1, n2 (the Gauss map of a strictly convex surface is invertible): its tangent
// dx and the normal's change dn satisfy |dx| <= R_max |dn| (the inverse of the shape operator has
// norm R_max), so its length is at most R_max * angle(n1, n2), and the geodesic, the shortest
// curve, is no longer. PostGIS's sphere mode measures R_s * angle with R_s = (2a + b) / 3 <=
// R_max = a^2 / b (oblate). So angle * R_max <= d implies both distances <= d. The angle is
// 2 asin(chord / 2) >= chord: with chord <= 2 sin(theta / 2), theta = d' / R_max, the angle is at
// most theta. d' leaves, below d, a relative 1e-9 (GeographicLib's and Vincenty's errors are
// nanometres: 1e-15 relative) and 1e-7 m absolute (ST_Distance and <-> round to 1e-8 m, PostGIS
// ticket #2168), and the chord bound a relative 1e-12 and 4e-15 absolute (the rounding of the
// unit vectors, of sin and cos, and of the engine's chord: a few 1e-16 each on unit vectors).
//
// Points. PostgreSQL's point_dt is pg_hypot(x1 - x2, y1 - y2) (float.c: x * sqrt(1 + (y/x)^2)
// with |x| >= |y|), the engine's sqrt(dx^2 + dy^2) of the same differences (the same doubles up
// to sign): each is within a few ulps (1e-15 relative) of the true hypotenuse of dx, dy, as long
// as dx^2 + dy^2 neither under- nor overflows. So an engine distance <= r (1 - 1e-12) gives
// point_dt <= r (and < r), where that bound is at least 1e-150 (dx^2 + dy^2 >= 1e-300 then,
// far from the subnormals) and finite.
#pragma once

namespace simjoin {

// The largest principal radius of curvature of the ellipsoid of revolution with equatorial
// radius a and meridional radius of curvature at the equator m0 = b^2 / a (both > 0, finite):
// a^2 / b for an oblate one (at the poles), b^2 / a for a prolate one (the meridian at the
// equator); raised by a relative 1e-7, more than the error of a and m0 measured from a library's
// short geodesics (geodetic_min_radius_from_arcs). NaN if a or m0 is not valid.
double ellipsoid_max_radius(double a, double m0);

// ellipsoid_max_radius from the two short geodesics geodetic_min_radius_from_arcs takes
// (engine/bounds/geodetic_bound.h), measured by the library that decides the pairs.
double geodetic_max_radius_from_arcs(double equator, double meridian, double delta_degrees);

// The chord between unit normals within which the geodesic distance (either PostGIS mode) is
// surely <= d, and < d (see above), on an ellipsoid whose largest radius of curvature is
// max_radius (ellipsoid_max_radius); 3 (every pair) from d = pi max_radius on. Negative when
// nothing is certain: d NaN, infinite or below 2e-7 m, max_radius not positive and finite.
double geodetic_certain_bound(double d, double max_radius);

// The engine distance of two points within which point_dt <= r, and < r, for sure (see above).
// Negative when nothing is certain: r NaN, infinite or below 1e-150.
double planar_certain_bound(double r);

// The expected share of candidates (pairs within candidate_bound) that lie beyond certain_bound,
// for points spread evenly over a surface (a pair's count grows as the bound squared): what the
// operator still decides. 1 where nothing is certain.
double recheck_share(double certain_bound, double candidate_bound);

}  // namespace simjoin
