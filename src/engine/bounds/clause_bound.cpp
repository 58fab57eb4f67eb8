#include "engine/bounds/clause_bound.h"

#include <cmath>

namespace simjoin {

double exact_bound(double eps, bool strict) {
  if (strict) eps = std::nextafter(eps, -HUGE_VAL);
  if (std::isnan(eps) || eps < 0) return std::nan("");
  return eps == 0 ? 0.0 : eps;  // -0 as +0: the same comparison
}

double widened_bound(double eps, int dim, bool float32, bool cosine) {
  if (std::isnan(eps) || eps < 0) return std::nan("");
  if (std::isinf(eps)) return eps;
  const double d = dim > 0 ? dim : 1;
  if (float32) {
    // pgvector sums in single precision: relative error below (dim + 2) * 2^-24 on the sum,
    // plus absolute underflow loss; the factors below are a generous margin over both.
    const double rel = (d + 8) * std::ldexp(1.0, -21);
    if (cosine) {
      // cosine distance c = 1 - cos; |u - v|^2 = 2 c for unit vectors u, v. The float dot
      // product's error on cos is below about (dim + 2) * 2^-24 in absolute terms.
      const double c = eps + rel + 1e-12;
      return std::sqrt(2.0 * c) * (1.0 + 1e-9) + 1e-150;
    }
    return eps * (1.0 + rel) + 1e-18;
  }
  // Double-precision operators: the engine's and the operator's sums differ by a few units in
  // the last place (hypot vs sqrt of the sum, order of padding dims); underflow only shrinks
  // the engine's value.
  return eps * (1.0 + 1e-10 + (d + 8) * 4e-16) + 1e-150;
}

double inverse_bound(double c, ScaleOp op, double k) {
  if (std::isnan(c) || !std::isfinite(k)) return std::nan("");
  if ((op == ScaleOp::Multiply || op == ScaleOp::Divide) && !(k > 0)) return std::nan("");
  const double above = std::nextafter(c, HUGE_VAL);  // x op k < above (real arithmetic)
  double inverse = 0;
  switch (op) {
    case ScaleOp::Multiply:
      inverse = above / k;
      break;
    case ScaleOp::Divide:
      inverse = above * k;
      break;
    case ScaleOp::Add:
      inverse = above - k;
      break;
    case ScaleOp::Subtract:
      inverse = above + k;
      break;
  }
  // No x at or above the real inverse r passes, and every double x below r is at most r's
  // nearest double (else x would be nearer to r): rounding r to nearest keeps them all.
  return inverse;
}

}  // namespace simjoin
