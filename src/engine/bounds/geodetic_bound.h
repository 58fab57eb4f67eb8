// Candidates for a distance on an ellipsoid of revolution (PostGIS geography: geodesic distance
// on the spheroid, or great-circle distance on a sphere): each point (longitude, latitude in
// degrees, geodetic) becomes the unit vector of its normal, and a Euclidean join of these 3-D
// vectors within geodetic_candidate_bound(d, R) keeps every pair at distance <= d.
#pragma once

namespace simjoin {

// Why: the Gauss map (point -> unit normal) sends a curve of length s on the ellipsoid to a curve
// of length at most s / R on the unit sphere, R the smallest principal radius of curvature
// anywhere on the ellipsoid (its largest principal curvature); the chord is at most the arc. So
// a geodesic of length s <= d joins two points whose normals are at most d / R apart. A sphere of
// radius R_s >= R on the same latitudes and longitudes (PostGIS's sphere mode) has chord <= angle
// = s / R_s <= s / R.

// The unit normal of the point (lon, lat) in degrees: (cos lat cos lon, cos lat sin lon, sin lat).
void geodetic_unit_vector(double lon_degrees, double lat_degrees, double out[3]);

// The smallest principal radius of curvature of the ellipsoid of revolution with equatorial
// radius a and meridional radius of curvature at the equator m0 = b^2 / a (both > 0, finite):
// b^2 / a for an oblate one (b <= a: the meridian at the equator), a^2 / b for a prolate one (at
// the poles); lowered by a relative 1e-7, more than the error of a and m0 measured from a
// library's short geodesics (geodetic_min_radius_from_arcs). NaN if a or m0 is not valid.
double ellipsoid_min_radius(double a, double m0);

// ellipsoid_min_radius from two short geodesics measured by the library that decides the pairs:
// `equator` between (0, 0) and (delta, 0), `meridian` between (0, -delta / 2) and (0, delta / 2),
// delta in degrees (small: 0.01). The equator is a geodesic of length a * delta (radians); the
// meridian's length is m0 * delta up to a relative (3/2) e^2 (delta/2)^2 / 3, far below 1e-7.
double geodetic_min_radius_from_arcs(double equator, double meridian, double delta_degrees);

// The Euclidean bound on unit normals for the distance bound d (metres) on an ellipsoid whose
// smallest radius of curvature is min_radius (ellipsoid_min_radius): d / min_radius widened by a
// relative 1e-9 and an absolute 1e-12 (about 6 micrometres on the Earth: the rounding of the
// unit vectors and the deciding library's own errors and tolerances are far smaller), at most 3
// (above the unit sphere's diameter 2: every pair). NaN where no pair can be within d (d < 0 or
// NaN, min_radius not positive: callers check every pair then).
double geodetic_candidate_bound(double d, double min_radius);

}  // namespace simjoin
