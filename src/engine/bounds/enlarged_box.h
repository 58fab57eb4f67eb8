// The box test of contrib cube's index-friendly join clause, on points: whether point b lies in
// the box around point a enlarged by r, computed in doubles exactly as
//   cube_enlarge(a, r, n) @> b
// computes it for two point cubes of the same dimension (contrib/cube/cube.c): per dimension
// lo = a - r and hi = a + r, both replaced by their midpoint when lo > hi (a negative r), and b
// inside [min(lo, hi), max(lo, hi)], compared as cube compares (so that a NaN bound contains
// everything, as it does in cube). n only adds dimensions, which @> ignores.
#pragma once

#include <cstddef>

namespace simjoin {

// One dimension of cube_enlarge on a point coordinate a: the bounds a - r and a + r, or their
// midpoint for both where they cross (r < 0).
inline void enlarged_bounds(double a, double r, double* lo, double* hi) {
  *lo = a - r;
  *hi = a + r;
  if (*lo > *hi) {
    *lo = (*lo + *hi) / 2;
    *hi = *lo;
  }
}

inline bool in_enlarged_box(const double* a, const double* b, std::size_t dim, double r) {
  for (std::size_t i = 0; i < dim; ++i) {
    double lo, hi;
    enlarged_bounds(a[i], r, &lo, &hi);
    const double low = lo < hi ? lo : hi;   // cube's Min(LL, UR)
    const double high = lo > hi ? lo : hi;  // cube's Max(LL, UR)
    if (low > b[i]) return false;
    if (high < b[i]) return false;
  }
  return true;
}

}  // namespace simjoin
