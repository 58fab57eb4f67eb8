// The Set of Z-Lists (SZL) of Lieberman, Sankaranarayanan and Samet ("A Fast Similarity Join
// Algorithm Using Graphics Processing Units"): the points of one input, quantized once (engine/join/zorder.h),
// and per curve j the point ids sorted on the Z curve of the points shifted by v(j). It does not
// depend on eps: one index serves every eps (and every other input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/join/zorder.h"
#include "engine/types.h"

namespace simjoin {

// How the curves are sorted: on materialized Z keys or with z_compare (same order). Keys is
// the faster on the CPU (simjoin_bench --zsort: about 2x at d = 16, 64 and 256).
enum class ZSortMethod { Keys, Msb };

struct SzlIndex {
  PointSet points;                       // not owned
  std::vector<double> lo;                // per dimension: the quantization origin
  double scale = 0.0;                    // one scale for every dimension (a cube)
  std::vector<std::uint32_t> quantized;  // points.n * dim; meaningless for non-finite points
  std::vector<std::uint32_t> shifts;     // per curve
  std::size_t curves = 0;
  std::size_t listed = 0;                // finite points: the length of every curve
  std::vector<std::uint32_t> order;      // curves * listed ids, curve by curve, in Z order
  // z_key_prefix of order[k] on its curve: the binary searches run on these contiguous words
  // and compare whole points (z_compare) only where the prefixes tie.
  std::vector<std::uint64_t> prefixes;

  std::size_t dim() const { return points.dim; }
  const std::uint32_t* curve(std::size_t j) const { return order.data() + j * listed; }
  const std::uint64_t* curve_prefixes(std::size_t j) const {
    return prefixes.data() + j * listed;
  }
  const std::uint32_t* quantized_point(std::uint32_t id) const {
    return quantized.data() + static_cast<std::size_t>(id) * points.dim;
  }
  // Quantizes a coordinate in dimension j on this index's grid (monotone in x).
  std::uint32_t quantize(std::size_t j, double x) const { return z_quantize(x, lo[j], scale); }
};

// The number of curves for `dim` dimensions: all d + 1 of the paper for small d, fewer above
// (their measurements: about 9, 6 and 5 curves are best at d = 16, 64 and 256).
std::size_t szl_default_curves(std::size_t dim);

// The index's grid and curves without its lists: points, lo, scale, curves and shifts (the GPU
// index quantizes and sorts with exactly these).
void choose_szl_parameters(const PointSet& points, std::size_t curves, SzlIndex& index);

// Builds the index of `points` with `curves` curves (0: szl_default_curves; at most the shift
// denominator, d + 1 or d + 2, whichever is odd), sorting the curves on `threads` threads.
SzlIndex build_szl_index(const PointSet& points, std::size_t curves, int threads,
                         ZSortMethod method = ZSortMethod::Keys);

// Positions [first, last) of curve j holding every listed point whose shifted quantized
// coordinates lie between `low` and `high` (unshifted quantized corners, low <= high per
// dimension), and perhaps others.
struct CurveInterval {
  std::size_t first = 0;
  std::size_t last = 0;
  std::size_t size() const { return last - first; }
};
CurveInterval curve_interval(const SzlIndex& index, std::size_t j, const std::uint32_t* low,
                             const std::uint32_t* high);

}  // namespace simjoin
