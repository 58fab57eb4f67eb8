#include "engine/bounds/arithmetic_probe.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/bounds/enlarged_box.h"
#include "engine/distance.h"

namespace simjoin {

namespace {

constexpr std::size_t kProbeDims[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 32, 64, kProbeMaxDim};
constexpr int kCasesPerDim = 40;

// splitmix64: deterministic, so that every backend probes the same inputs.
struct ProbeRandom {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double symmetric() { return 2 * unit() - 1; }                             // [-1, 1)
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

double step(double x, int ulps) {
  for (int k = 0; k < ulps; ++k) x = std::nextafter(x, HUGE_VAL);
  for (int k = 0; k < -ulps; ++k) x = std::nextafter(x, -HUGE_VAL);
  return x;
}

// Coordinates of magnitude up to 2^[-10, 10]; b differs from a by about the coordinates' size,
// a thousandth or a billionth of it, or by a few units in the last place.
void distance_case(ProbeRandom& rng, std::size_t dim, double* a, double* b) {
  const double scale = std::ldexp(1.0, rng.below(21) - 10);
  const int spread = rng.below(4);
  for (std::size_t j = 0; j < dim; ++j) {
    a[j] = scale * rng.symmetric();
    switch (spread) {
      case 0: b[j] = scale * rng.symmetric(); break;
      case 1: b[j] = a[j] + 1e-3 * scale * rng.symmetric(); break;
      case 2: b[j] = a[j] + 1e-9 * scale * rng.symmetric(); break;
      default: b[j] = step(a[j], rng.below(7) - 3); break;
    }
  }
}

// A box test at or next to the box's bounds: most coordinates of b inside the box of a, one or
// two at a rounded bound (lo or hi exactly, or one unit in the last place outside or inside);
// for r < 0 every coordinate at the midpoint, one possibly a unit away.
double box_case(ProbeRandom& rng, std::size_t dim, double* a, double* b) {
  const double scale = std::ldexp(1.0, rng.below(21) - 10);
  for (std::size_t j = 0; j < dim; ++j) a[j] = scale * rng.symmetric();
  double r;
  switch (rng.below(4)) {
    case 0: r = std::fabs(a[rng.below(static_cast<int>(dim))] - scale * rng.symmetric()); break;
    case 1: r = scale * rng.unit() * 1e-6; break;
    case 2: r = 0.0; break;
    default: r = -scale * rng.unit(); break;
  }
  for (std::size_t j = 0; j < dim; ++j) {
    double lo, hi;
    enlarged_bounds(a[j], r, &lo, &hi);
    b[j] = lo + (hi - lo) * rng.unit();
    if (b[j] < lo || b[j] > hi) b[j] = lo;
  }
  const int edges = 1 + rng.below(2);
  for (int e = 0; e < edges; ++e) {
    const std::size_t j = static_cast<std::size_t>(rng.below(static_cast<int>(dim)));
    double lo, hi;
    enlarged_bounds(a[j], r, &lo, &hi);
    b[j] = step(rng.below(2) ? lo : hi, rng.below(3) - 1);
  }
  return r;
}

}  // namespace

bool distance_agrees(Metric metric, ForeignDistance foreign, void* context) {
  double a[kProbeMaxDim], b[kProbeMaxDim];
  ProbeRandom rng{0x5eed0000u + static_cast<std::uint64_t>(metric)};
  for (std::size_t dim : kProbeDims) {
    for (int c = 0; c < kCasesPerDim; ++c) {
      distance_case(rng, dim, a, b);
      if (!same_bits(foreign(a, b, dim, context), exact_distance(a, b, dim, metric))) return false;
    }
  }
  return true;
}

bool distance_agrees_with(std::size_t dim, ForeignDistance reference, void* reference_context,
                          ForeignDistance foreign, void* context, std::uint64_t seed) {
  double a[kProbeMaxDim], b[kProbeMaxDim];
  ProbeRandom rng{seed};
  if (dim == 0 || dim > kProbeMaxDim) return false;
  const int cases = kCasesPerDim * static_cast<int>(sizeof kProbeDims / sizeof kProbeDims[0]);
  for (int c = 0; c < cases; ++c) {
    distance_case(rng, dim, a, b);
    if (!same_bits(foreign(a, b, dim, context), reference(a, b, dim, reference_context)))
      return false;
  }
  return true;
}

bool distance_agrees_at(Metric metric, std::size_t dim, ForeignDistance foreign, void* context) {
  Metric reference_metric = metric;
  const ForeignDistance exact = [](const double* a, const double* b, std::size_t n, void* m) {
    return exact_distance(a, b, n, *static_cast<const Metric*>(m));
  };
  return distance_agrees_with(dim, exact, &reference_metric, foreign, context,
                              0xd157u + static_cast<std::uint64_t>(metric));
}

bool within_agrees(Metric metric, std::size_t dim, ForeignWithin foreign, void* context) {
  double a[kProbeMaxDim], b[kProbeMaxDim];
  ProbeRandom rng{0x3171u + static_cast<std::uint64_t>(metric)};
  if (dim == 0 || dim > kProbeMaxDim) return false;
  const int cases = kCasesPerDim * static_cast<int>(sizeof kProbeDims / sizeof kProbeDims[0]);
  for (int c = 0; c < cases; ++c) {
    distance_case(rng, dim, a, b);
    const double d = exact_distance(a, b, dim, metric);
    if (!foreign(a, b, dim, d, context)) return false;
    if (d > 0 && foreign(a, b, dim, std::nextafter(d, 0.0), context)) return false;
  }
  return true;
}

bool box_test_agrees(ForeignBoxTest foreign, void* context) {
  double a[kProbeMaxDim], b[kProbeMaxDim];
  ProbeRandom rng{0xb0c5u};
  for (std::size_t dim : kProbeDims) {
    for (int c = 0; c < kCasesPerDim; ++c) {
      const double r = box_case(rng, dim, a, b);
      if (foreign(a, b, dim, r, context) != in_enlarged_box(a, b, dim, r)) return false;
    }
  }
  return true;
}

}  // namespace simjoin
