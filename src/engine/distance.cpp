#include "engine/distance.h"

#include <limits>

namespace simjoin {

double accumulated_bound(double eps, Metric metric) {
  if (std::isnan(eps) || eps < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (metric != Metric::Euclidean || std::isinf(eps)) return eps;
  // eps * eps is within an ulp or two of the answer (or 0 / +inf on under/overflow): walk down
  // until sqrt(t) <= eps, then up while the next double still satisfies it.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double t = eps * eps;
  while (std::sqrt(t) > eps) t = std::nextafter(t, -kInf);
  for (double next = std::nextafter(t, kInf); std::sqrt(next) <= eps;
       next = std::nextafter(t, kInf)) {
    t = next;
  }
  return t;
}

}  // namespace simjoin
