// The FP32 filter's tile: the dot products of the rows of two panels (engine/join/float_filter.h)
// and which of those pairs pass the filter. Portable C++ (GCC vector extensions) for any x86-64
// and other targets, and an AVX2 build of the same code chosen at run time where the CPU has it:
// both give the same bits (the same operations in the same order, per pair).
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/join/float_filter.h"

namespace simjoin {

// One panel of rows (kFloatPanel rows) as the tile reads it.
struct FloatPanel {
  const float* coords = nullptr;  // dim * kFloatPanel values, dimension-major
  const float* reach = nullptr;
  // The stage terms of the panel's first row; stage s of row r at [s * stride + r].
  const float *norm2 = nullptr, *gemm = nullptr, *norm = nullptr, *slack = nullptr;
  std::size_t stride = 0;
};

inline FloatPanel float_panel(const FloatRows& rows, std::size_t p) {
  const std::size_t first = p * kFloatPanel;
  return FloatPanel{rows.panel(p),         rows.reach.data() + first, rows.norm2.data() + first,
                    rows.gemm.data() + first, rows.norm.data() + first, rows.slack.data() + first,
                    rows.slots()};
}

static_assert(kFloatPanel * kFloatPanel == 64, "a tile's pairs are the bits of a uint64_t");

// Bit r * kFloatPanel + c is set iff the pair (row r of `rows`, row c of `cols`) may match:
// with s the FP32 dot product of the two rows summed in dimension order (each product and sum
// rounded, no fused multiply-add),
//   (|x|^2 + |y|^2) - 2 s <= ((rho_x + rho_y)^2 + G m_x m_y + (slack_x + slack_y)) (1 + 2^-20)
// in float (docs/EXACTNESS.md, "The CPU's FP32 filter"), and the same test on the dimensions
// summed so far at the end of every stage (float_stage_end): the bits are those that passed
// every test, and the tile stops at the first stage where none did. A cleared bit proves no
// match.
using FloatTileFn = std::uint64_t (*)(const FloatPanel& rows, const FloatPanel& cols,
                                      std::size_t dim);

// The fastest build this CPU runs.
FloatTileFn float_tile();
// The portable build (tests compare it with float_tile()).
std::uint64_t float_tile_portable(const FloatPanel& rows, const FloatPanel& cols,
                                  std::size_t dim);

}  // namespace simjoin
