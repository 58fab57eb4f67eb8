// float_filtered_join: work units of a few row panels, each against every column panel (a
// self-join: the panels on and above the diagonal), a tile at a time.
#include "engine/join/float_brute_force.h"

#include <algorithm>
#include <cmath>

#include "engine/bounded_distance.h"
#include "engine/join/float_tiles.h"
#include "engine/join/self_pairs.h"

namespace simjoin {
namespace {

constexpr std::size_t kColumnPanelsPerCheck = 32;  // column panels between stop checks

// Row panels a work unit joins with each column panel (read from L1 that many times): as many as
// fit 256 KiB (L2), 1 to 16.
std::size_t row_panels_per_unit(std::size_t dim) {
  const std::size_t panel_bytes = std::max<std::size_t>(dim, 1) * kFloatPanel * sizeof(float);
  return std::max<std::size_t>(1, std::min<std::size_t>(16, (256 << 10) / panel_bytes));
}

std::size_t rows_in_panel(std::size_t n, std::size_t p) {
  return std::min(kFloatPanel, n - p * kFloatPanel);
}

// The bits of a tile's real pairs: rows [0, rows) by columns [0, cols), and in a self-join's
// diagonal tile only column >= row + first_offset.
std::uint64_t tile_pairs(std::size_t rows, std::size_t cols, bool diagonal,
                         std::size_t first_offset) {
  if (rows == kFloatPanel && cols == kFloatPanel && !diagonal) return ~std::uint64_t(0);
  std::uint64_t bits = 0;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = diagonal ? r + first_offset : 0; c < cols; ++c)
      bits |= std::uint64_t(1) << (r * kFloatPanel + c);
  return bits;
}

// One tile: the filter, then the exact test of each pair that passed, in row-major order.
// report(i, k, distance) returns false to stop; returns false when stopped.
template <typename Report>
bool join_tile(const FloatRows& row_side, std::size_t p, const FloatRows& column_side,
               std::size_t q, std::uint64_t pairs, const PointSet& rows,
               const PointSet& columns, double bound, BatchWriter& out,
               std::uint64_t& exact_tests, const Report& report) {
  out.candidates += static_cast<std::uint64_t>(__builtin_popcountll(pairs));
  std::uint64_t bits =
      pairs & float_tile()(float_panel(row_side, p), float_panel(column_side, q), rows.dim);
  while (bits != 0) {
    const int bit = __builtin_ctzll(bits);
    bits &= bits - 1;
    const std::size_t i = p * kFloatPanel + bit / kFloatPanel;
    const std::size_t k = q * kFloatPanel + bit % kFloatPanel;
    ++exact_tests;
    double accumulated;
    if (within_bound<Metric::Euclidean>(rows.point(i), columns.point(k), rows.dim, bound,
                                        &accumulated) &&
        !report(i, k, finish_distance(accumulated, Metric::Euclidean))) {
      return false;
    }
  }
  return true;
}

PipelineResult self_join(const PointSet& set, const FloatRows& rows, const JoinParams& params,
                         PairSink& sink, std::atomic<std::uint64_t>* exact_tests) {
  const std::size_t panels = rows.panels(), per_unit = row_panels_per_unit(set.dim);
  const std::size_t units = (panels + per_unit - 1) / per_unit;
  const std::size_t first_offset = params.self_pairs == SelfPairs::All ? 0 : 1;
  const auto report = [&](BatchWriter& out, std::size_t i, std::size_t k, double distance) {
    const std::uint32_t a = static_cast<std::uint32_t>(i), b = static_cast<std::uint32_t>(k);
    return i == k ? out.add(a, a, distance)
                  : emit_self_match(out, a, b, distance, params.self_pairs);
  };
  auto work = [&](std::size_t unit, BatchWriter& out) {
    const std::size_t first = unit * per_unit;
    const std::size_t last = std::min(panels, first + per_unit);
    std::uint64_t tested = 0;
    const auto reporter = [&](std::size_t i, std::size_t k, double d) {
      return report(out, i, k, d);
    };
    for (std::size_t q = first; q < panels; ++q) {
      if ((q - first) % kColumnPanelsPerCheck == 0 && out.stopped()) break;
      bool more = true;
      for (std::size_t p = first; p < last && p <= q && more; ++p) {
        const std::uint64_t pairs = tile_pairs(rows_in_panel(set.n, p), rows_in_panel(set.n, q),
                                               p == q, first_offset);
        more = join_tile(rows, p, rows, q, pairs, set, set, params.bound, out, tested, reporter);
      }
      if (!more) break;
    }
    if (exact_tests) exact_tests->fetch_add(tested, std::memory_order_relaxed);
  };
  return run_batch_pipeline(units, params.threads, params.batch_pairs, work, sink);
}

PipelineResult two_input_join(const PointSet& left, const PointSet& right,
                              const FloatFilterInputs& inputs, const JoinParams& params,
                              PairSink& sink, std::atomic<std::uint64_t>* exact_tests) {
  // The larger side gives the row panels, so that there are enough units to share out.
  const bool outer_is_left = left.n >= right.n;
  const PointSet& outer = outer_is_left ? left : right;
  const PointSet& inner = outer_is_left ? right : left;
  const FloatRows& outer_rows = outer_is_left ? inputs.left : inputs.right;
  const FloatRows& inner_rows = outer_is_left ? inputs.right : inputs.left;
  const std::size_t panels = outer_rows.panels(), inner_panels = inner_rows.panels();
  const std::size_t per_unit = row_panels_per_unit(outer.dim);
  const std::size_t units = (panels + per_unit - 1) / per_unit;
  auto work = [&](std::size_t unit, BatchWriter& out) {
    const std::size_t first = unit * per_unit;
    const std::size_t last = std::min(panels, first + per_unit);
    std::uint64_t tested = 0;
    const auto reporter = [&](std::size_t i, std::size_t k, double distance) {
      const std::uint32_t a = static_cast<std::uint32_t>(i), b = static_cast<std::uint32_t>(k);
      return outer_is_left ? out.add(a, b, distance) : out.add(b, a, distance);
    };
    for (std::size_t q = 0; q < inner_panels; ++q) {
      if (q % kColumnPanelsPerCheck == 0 && out.stopped()) break;
      bool more = true;
      for (std::size_t p = first; p < last && more; ++p) {
        const std::uint64_t pairs = tile_pairs(rows_in_panel(outer.n, p),
                                               rows_in_panel(inner.n, q), false, 0);
        more = join_tile(outer_rows, p, inner_rows, q, pairs, outer, inner, params.bound, out,
                         tested, reporter);
      }
      if (!more) break;
    }
    if (exact_tests) exact_tests->fetch_add(tested, std::memory_order_relaxed);
  };
  return run_batch_pipeline(units, params.threads, params.batch_pairs, work, sink);
}

}  // namespace

PipelineResult float_filtered_join(const PointSet& left, const PointSet* right,
                                   const FloatFilterInputs& inputs, const JoinParams& params,
                                   PairSink& sink, std::atomic<std::uint64_t>* exact_tests) {
  return right ? two_input_join(left, *right, inputs, params, sink, exact_tests)
               : self_join(left, inputs.left, params, sink, exact_tests);
}

}  // namespace simjoin
