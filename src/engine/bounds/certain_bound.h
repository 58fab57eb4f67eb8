// "Certain accept" bounds for the forms whose operator the engine cannot reproduce bit for bit
// (PostGIS geography distances, PostgreSQL's point <-> point): an engine distance within the
// certain bound satisfies the SQL predicate for sure; only pairs between it and the candidate
// bound go to the operator. Negative where nothing is certain. Proofs: docs/EXACTNESS.md,
// "Certain bounds".
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
