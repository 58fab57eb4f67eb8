// A space order of a point set: a Z-order curve over its up to three widest dimensions,
// quantized to about 16 cells per point. Points sorted along it lie next to their neighbours in
// space, so that the pairs the engine reports together (those of a cell and its neighbours) read
// nearby memory. The PostgreSQL glue orders its sides' points so (order_points); the caller
// provides every buffer, so nothing here allocates or throws. Deterministic: two identical point
// sets come out in the same order.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simjoin {

// The curve's grid: its axes, the widest dimensions of finite non-zero width in decreasing width
// (n_axes 0: no dimension spreads, no order), their bounds, and the bits of each axis's cell.
struct SpaceCurve {
  int n_axes = 0;
  int axes[3] = {0, 0, 0};
  double lo[3] = {0, 0, 0};
  double hi[3] = {0, 0, 0};
  int bits = 0;
};

// The curve of n >= 1 points of dim >= 1 coordinates (row-major). lo and hi: dim doubles each,
// set to the bounds of every dimension.
SpaceCurve space_curve(const double* points, std::uint32_t n, int dim, double* lo, double* hi);

// The curve's code of a point x: its cell on each axis, 2^bits cells over [lo, hi], the cells'
// bits interleaved from the most significant down, the first axis first in each group.
std::uint64_t space_code(const SpaceCurve& curve, const double* x);

// keys[p] = (space_code(point p) << 32) | p for the n points.
void space_keys(const SpaceCurve& curve, const double* points, std::uint32_t n, int dim,
                std::uint64_t* keys);

// Sorts n keys (code << 32) | index by code, stably (an LSD radix sort of two passes of 16 bits:
// codes of at most 30 bits, which space_curve's bits guarantee). The result is in keys; scratch
// holds n keys, counts kSpaceSortBuckets entries.
constexpr std::size_t kSpaceSortBuckets = 65536;
void sort_space_keys(std::uint64_t* keys, std::uint64_t* scratch, std::uint32_t n,
                     std::uint32_t* counts);

}  // namespace simjoin
