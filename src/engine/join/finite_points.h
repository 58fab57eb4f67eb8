// Points with a NaN or infinite coordinate can never be within a finite eps of anything
// (NaN compares false, inf - x = inf, inf - inf = NaN): the grid skips them.
#pragma once

#include <cmath>
#include <cstddef>

namespace simjoin {

inline bool is_finite_point(const double* p, std::size_t dim) {
  for (std::size_t j = 0; j < dim; ++j) {
    if (!std::isfinite(p[j])) return false;
  }
  return true;
}

}  // namespace simjoin
