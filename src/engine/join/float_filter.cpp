// make_float_filter_inputs: the centre and scale, the FP32 panels and each row's bound terms
// (docs/EXACTNESS.md, "The CPU's FP32 filter").
#include "engine/join/float_filter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/join/filter_scale.h"
#include "engine/join/finite_points.h"
#include "engine/parallel/worker_thread.h"

namespace simjoin {
namespace {

// Relative rounding of a copied coordinate: the double shift's (2^-53) and FP32's (2^-24).
constexpr double kFloatUnit = 0x1p-24 + 0x1p-50;

// A positive double moved above the rounding of the operation that produced it (normal range;
// the slack's floor of 2^-100 covers the absolute errors below it).
double up(double x) { return x * (1.0 + 0x1p-50); }

// The mean of the finite rows of the inputs and the largest |fl(x_j - c_j)| over them.
struct Centre {
  std::vector<double> c;
  double largest = 0.0;
  bool finite = true;  // the mean and every shift by it are finite
};

Centre centre_of(const PointSet* const* sides, std::size_t count, std::size_t dim) {
  Centre centre;
  centre.c.assign(dim, 0.0);
  std::size_t rows = 0;
  for (std::size_t s = 0; s < count; ++s)
    for (std::size_t i = 0; i < sides[s]->n; ++i) {
      const double* p = sides[s]->point(i);
      if (!is_finite_point(p, dim)) continue;
      ++rows;
      for (std::size_t j = 0; j < dim; ++j) centre.c[j] += p[j];
    }
  for (double& c : centre.c) {
    c = rows > 0 ? c / static_cast<double>(rows) : 0.0;
    centre.finite = centre.finite && std::isfinite(c);  // the sums can overflow
  }
  if (!centre.finite) return centre;
  for (std::size_t s = 0; s < count; ++s)
    for (std::size_t i = 0; i < sides[s]->n; ++i) {
      const double* p = sides[s]->point(i);
      if (!is_finite_point(p, dim)) continue;
      for (std::size_t j = 0; j < dim; ++j)
        centre.largest = std::max(centre.largest, std::fabs(p[j] - centre.c[j]));
    }
  centre.finite = std::isfinite(centre.largest);
  return centre;
}

// What every row's terms share.
struct RowTermsShared {
  const double* centre;
  double scale;        // a power of two
  double half_reach;   // e / 2
  double unit;         // relative rounding of a coordinate
  double floor;        // absolute rounding of the whole row, l2
  double margin;       // scales the rounding terms
  double slack_floor;  // covers every absolute (underflow) error of the float arithmetic
};

// m >= |x| for the double sum norm2 of the exact squares of `dims` coordinates: the sum errs
// by at most (dims - 1) 2^-53 of itself, the root and the product by another 2^-52.
double norm_above(double norm2, std::size_t dims) {
  return up(std::sqrt(norm2) * (1.0 + (static_cast<double>(dims) + 4.0) * 0x1p-53));
}

// The terms of the first `dims` coordinates of row i, whose squares sum to norm2.
void stage_terms(FloatRows& rows, std::size_t stage, std::size_t i, double norm2,
                 std::size_t dims, const RowTermsShared& t) {
  const double d = static_cast<double>(dims);
  // Summed in dimension order, products and sums rounded: |s~ - x.y| <= gamma_d sum |x_j y_j|
  // <= gamma_d m_a m_b, gamma_d = d u / (1 - d u), u = 2^-24 (Higham, Accuracy and Stability of
  // Numerical Algorithms, 3.1); doubled, and doubled again as the distance holds -2 s~.
  const double gamma = d * 0x1p-24 / (1.0 - d * 0x1p-24);
  const double gemm = t.margin * 4.0 * gamma * (1.0 + 0x1p-20);
  // |x|^2 summed in double and rounded to float, the distance's terms in float: 2^-20 per unit
  // covers them (float's unit roundoff is 2^-24; |2 s~| <= (|x|^2 + |y|^2)(1 + gamma_d)).
  const double norms = t.margin * (0x1p-20 + (d + 16.0) * 0x1p-52);
  const double m = norm_above(norm2, dims);
  const std::size_t at = stage * rows.slots() + i;
  rows.norm2[at] = static_cast<float>(norm2);
  rows.norm[at] = round_up_to_float(m);
  rows.gemm[at] = round_up_to_float(up(gemm * m));
  rows.slack[at] = round_up_to_float(std::max(t.slack_floor, up(norms * norm2)));
}

// Row i of `points` into its panel slot of `rows`, with its terms.
void copy_row(const PointSet& points, std::size_t i, const RowTermsShared& t, FloatRows& rows) {
  const std::size_t dim = points.dim;
  const double* p = points.point(i);
  float* out = rows.coords.data() + (i / kFloatPanel) * dim * kFloatPanel + i % kFloatPanel;
  if (!is_finite_point(p, dim)) {
    for (std::size_t j = 0; j < dim; ++j) out[j * kFloatPanel] = 0.0f;
    return;  // the terms stay NaN
  }
  double norm2 = 0.0;
  std::size_t stage = 0;
  for (std::size_t j = 0; j < dim; ++j) {
    const float x = static_cast<float>((p[j] - t.centre[j]) * t.scale);  // round to nearest
    out[j * kFloatPanel] = x;
    norm2 += static_cast<double>(x) * static_cast<double>(x);  // exact products
    if (j + 1 == float_stage_end(stage, dim)) stage_terms(rows, stage++, i, norm2, j + 1, t);
  }
  // The exact scaled row X has |X| <= (m + floor) / (1 - unit), and |x - X| <= unit |X| + floor.
  const double exact_norm = up(up(norm_above(norm2, dim) + t.floor) / (1.0 - t.unit));
  const double rounding = up(up(t.unit * exact_norm) + t.floor);
  rows.reach[i] = round_up_to_float(up(t.half_reach + rounding));
}

FloatRows float_rows(const PointSet& points, const RowTermsShared& terms, int threads) {
  FloatRows rows;
  rows.n = points.n;
  rows.dim = points.dim;
  rows.coords.assign(rows.slots() * points.dim, 0.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  rows.reach.assign(rows.slots(), nan);
  for (auto* terms_of_rows : {&rows.norm2, &rows.gemm, &rows.norm, &rows.slack})
    terms_of_rows->assign(rows.stages() * rows.slots(), nan);
  // Whole panels a part (no two threads write one panel), a million coordinates at least.
  const std::size_t panels = rows.panels();
  const std::size_t parts = std::max<std::size_t>(
      1, std::min<std::size_t>(std::max(threads, 1), points.n * points.dim >> 20));
  parallel_for_parts(parts, [&](std::size_t part) {
    const std::size_t first = part_begin(panels, parts, part) * kFloatPanel;
    const std::size_t last = std::min(points.n, part_begin(panels, parts, part + 1) * kFloatPanel);
    for (std::size_t i = first; i < last; ++i) copy_row(points, i, terms, rows);
  });
  return rows;
}

}  // namespace

FloatFilterInputs make_float_filter_inputs(const PointSet& left, const PointSet* right,
                                           double bound, int threads, double margin) {
  FloatFilterInputs inputs;
  const std::size_t dim = left.dim;
  const PointSet* sides[] = {&left, right};
  const Centre centre = centre_of(sides, right ? 2 : 1, dim);
  // Finite coordinates near +-DBL_MAX: the mean or some x - c overflows, and the FP32 distance
  // of such rows would be NaN where the exact test may still match them (two equal points).
  if (!centre.finite) {
    inputs.pass_all = true;
    return inputs;
  }
  RowTermsShared terms{};
  terms.centre = centre.c.data();
  terms.scale = power_of_two_scale(centre.largest);
  terms.half_reach = scaled_reach(bound, dim, terms.scale, margin) / 2.0;
  terms.unit = margin * kFloatUnit;
  // FP32 underflow: at most 2^-150 a coordinate (and the double product's 2^-1075).
  terms.floor = margin * 0x1p-149 * std::sqrt(static_cast<double>(dim)) * (1.0 + 0x1p-40);
  terms.margin = margin;
  terms.slack_floor = margin * 0x1p-100;
  inputs.left = float_rows(left, terms, threads);
  if (right) inputs.right = float_rows(*right, terms, threads);
  return inputs;
}

}  // namespace simjoin
