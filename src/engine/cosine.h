// The cosine distance: the one definition that the SQL function, the CPU engine and the GPU path
// follow, so that every path returns the same pairs.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace simjoin {

//   d(a, b) = 1 - dot(a', b') / (|a'| |b'|), clamped to [0, 2],
//
// where a' = a * 2^-e(a) is a scaled by the power of two that puts its largest |coordinate| in
// [0.5, 1) (a scaling that cannot overflow and changes the mathematical value of d not at all;
// it keeps huge and tiny vectors, 1e300 or 1e-300, away from overflow and underflow). Every sum
// runs over the dimensions in stored order in double precision without fused multiply-add; the
// norms are sqrt of the sums of squares. A vector that is zero or has a NaN or infinite
// coordinate has no direction: d is NaN, which never satisfies d <= eps.

// The exponent e with max_j |a_j| * 2^-e in [0.5, 1), or kNoDirection when a is zero or has a
// NaN or infinite coordinate.
constexpr int kNoDirection = std::numeric_limits<int>::min();

inline int cosine_scale_exponent(const double* a, std::size_t dim) {
  double largest = 0.0;
  for (std::size_t j = 0; j < dim; ++j) {
    const double m = std::fabs(a[j]);
    if (!(m <= std::numeric_limits<double>::max())) return kNoDirection;  // NaN or infinite
    if (m > largest) largest = m;
  }
  if (largest == 0.0) return kNoDirection;
  int e = 0;
  std::frexp(largest, &e);
  return e;
}

// a' of the definition, coordinate by coordinate (ldexp is exact or correctly rounded).
inline double cosine_scaled(double x, int exponent) { return std::ldexp(x, -exponent); }

// The inner product sum_j a_j b_j, dimensions in stored order (no fused multiply-add): the SQL
// function inner_product() and every sum of the cosine distance below.
inline double dot_product(const double* a, const double* b, std::size_t dim) {
  double dot = 0.0;
  for (std::size_t j = 0; j < dim; ++j) dot += a[j] * b[j];
  return dot;
}

// |a'| = sqrt(sum of a'_j^2), a' given.
inline double cosine_norm_of_scaled(const double* scaled, std::size_t dim) {
  return std::sqrt(dot_product(scaled, scaled, dim));
}

// The last step of the definition, from dot(a', b') and the two norms.
inline double cosine_finish(double dot, double norm_a, double norm_b) {
  const double d = 1.0 - dot / (norm_a * norm_b);
  if (d < 0.0) return 0.0;
  if (d > 2.0) return 2.0;
  return d;
}

// d(a, b) from the scaled vectors and their norms (precomputed by the engine once per point).
inline double cosine_from_scaled(const double* a_scaled, double norm_a, const double* b_scaled,
                                 double norm_b, std::size_t dim) {
  return cosine_finish(dot_product(a_scaled, b_scaled, dim), norm_a, norm_b);
}

// d(a, b) from the vectors themselves, without scratch memory (the SQL function, the oracle).
inline double cosine_distance(const double* a, const double* b, std::size_t dim) {
  const int ea = cosine_scale_exponent(a, dim);
  const int eb = cosine_scale_exponent(b, dim);
  if (ea == kNoDirection || eb == kNoDirection) return std::numeric_limits<double>::quiet_NaN();
  double dot = 0.0, sum_a = 0.0, sum_b = 0.0;
  for (std::size_t j = 0; j < dim; ++j) {
    const double x = cosine_scaled(a[j], ea);
    const double y = cosine_scaled(b[j], eb);
    sum_a += x * x;
    sum_b += y * y;
    dot += x * y;
  }
  return cosine_finish(dot, std::sqrt(sum_a), std::sqrt(sum_b));
}

// What the engine keeps of a point: a' in scaled[0..dim), a'/|a'| (each coordinate divided once)
// in unit[0..dim), and |a'| returned; NaN everywhere for a point without a direction.
inline double cosine_prepare(const double* a, std::size_t dim, double* scaled, double* unit) {
  const int e = cosine_scale_exponent(a, dim);
  if (e == kNoDirection) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t j = 0; j < dim; ++j) scaled[j] = unit[j] = kNaN;
    return kNaN;
  }
  for (std::size_t j = 0; j < dim; ++j) scaled[j] = cosine_scaled(a[j], e);
  const double norm = cosine_norm_of_scaled(scaled, dim);
  for (std::size_t j = 0; j < dim; ++j) unit[j] = scaled[j] / norm;
  return norm;
}

// The Euclidean distance between the unit vectors a'/|a'| and b'/|b'| (each coordinate divided
// once, in double) that every pair with d(a, b) <= eps keeps, whatever the rounding of either
// computation: sqrt(2 (eps + m (1 + eps))) + m, times (1 + m), with the margin m many times the
// rounding errors of dim-term sums (see docs/ARCHITECTURE.md, "Cosine"). NaN for eps < 0 or NaN.
double cosine_candidate_radius(double eps, std::size_t dim);

}  // namespace simjoin
