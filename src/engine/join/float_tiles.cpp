// The FP32 filter's tile kernels (engine/join/float_tiles.h): a register-blocked micro-kernel,
// kRows rows by kFloatPanel columns of accumulators, the inner loop over the dimensions.
#include "engine/join/float_tiles.h"

#include <algorithm>
#include <cstring>

namespace simjoin {
namespace {

typedef float Float4 __attribute__((vector_size(16)));
typedef float Float8 __attribute__((vector_size(32)));
typedef int Int4 __attribute__((vector_size(16)));
typedef int Int8 __attribute__((vector_size(32)));

// Bit l set iff lane l of a comparison's result is true (all ones).
inline __attribute__((always_inline)) unsigned lane_bits(const Int4& pass) {
#if defined(__x86_64__) && defined(__GNUC__)
  Float4 as_float;
  std::memcpy(&as_float, &pass, sizeof as_float);
  return static_cast<unsigned>(__builtin_ia32_movmskps(as_float));
#else
  unsigned bits = 0;
  for (int l = 0; l < 4; ++l)
    if (pass[l]) bits |= 1u << l;
  return bits;
#endif
}
inline __attribute__((always_inline)) unsigned lane_bits(const Int8& pass) {
  Int4 low, high;
  std::memcpy(&low, &pass, sizeof low);
  std::memcpy(&high, reinterpret_cast<const char*>(&pass) + sizeof low, sizeof high);
  return lane_bits(low) | lane_bits(high) << 4;
}

// An unaligned vector load (by reference: a returned 32-byte vector would warn about the ABI).
template <typename V>
inline __attribute__((always_inline)) void load(V& v, const float* p) {
  std::memcpy(&v, p, sizeof v);
}

// The filter's test of rows [first, first + kRows) against every column, for stage `stage` and
// acc, the dot products summed so far: their bits.
template <typename V, int kRows, int kVectors>
inline __attribute__((always_inline)) std::uint64_t stage_bits(const FloatPanel& rows,
                                                               int first, const FloatPanel& cols,
                                                               std::size_t stage,
                                                               const V (&acc)[kRows][kVectors]) {
  constexpr int kLanes = sizeof(V) / sizeof(float);
  const std::size_t row_at = stage * rows.stride + first, col_at = stage * cols.stride;
  std::uint64_t bits = 0;
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    const int c = v * kLanes;
    V norm2, reach, norm, slack;
    load(norm2, cols.norm2 + col_at + c);
    load(reach, cols.reach + c);
    load(norm, cols.norm + col_at + c);
    load(slack, cols.slack + col_at + c);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const V approx = (rows.norm2[row_at + r] + norm2) - 2.0f * acc[r][v];
      const V both = rows.reach[first + r] + reach;
      const V limit = both * both + rows.gemm[row_at + r] * norm + (rows.slack[row_at + r] + slack);
      const auto pass = approx <= limit * (1.0f + 0x1p-20f);  // NaN rows fail
      bits |= std::uint64_t(lane_bits(pass)) << ((first + r) * kFloatPanel + c);
    }
  }
  return bits;
}

// Rows [first, first + kRows) of `rows` against every row of `cols`: their bits of the tile.
template <typename V, int kRows>
inline __attribute__((always_inline)) std::uint64_t tile_rows(const FloatPanel& rows, int first,
                                                              const FloatPanel& cols,
                                                              std::size_t dim) {
  constexpr int kLanes = sizeof(V) / sizeof(float);
  constexpr int kVectors = static_cast<int>(kFloatPanel) / kLanes;
  V acc[kRows][kVectors] = {};
  const float* a = rows.coords + first;
  const float* b = cols.coords;
  std::uint64_t bits = ~std::uint64_t(0);
  for (std::size_t j = 0, stage = 0;; ++stage) {
    const std::size_t end = float_stage_end(stage, dim);
    for (; j < end; ++j, a += kFloatPanel, b += kFloatPanel) {
      V column[kVectors];
#pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) load(column[v], b + v * kLanes);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const float x = a[r];
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) acc[r][v] += column[v] * x;
      }
    }
    bits &= stage_bits<V, kRows, kVectors>(rows, first, cols, stage, acc);
    if (end == dim || bits == 0) return bits;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) std::uint64_t float_tile_avx2(const FloatPanel& rows,
                                                               const FloatPanel& cols,
                                                               std::size_t dim) {
  return tile_rows<Float8, kFloatPanel>(rows, 0, cols, dim);
}
#endif

FloatTileFn chosen_float_tile() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return float_tile_avx2;
#endif
  return float_tile_portable;
}

}  // namespace

std::uint64_t float_tile_portable(const FloatPanel& rows, const FloatPanel& cols,
                                  std::size_t dim) {
  // Four rows at a time: 8 accumulators of 4 floats, within SSE2's 16 registers.
  return tile_rows<Float4, 4>(rows, 0, cols, dim) | tile_rows<Float4, 4>(rows, 4, cols, dim);
}

FloatTileFn float_tile() {
  static const FloatTileFn tile = chosen_float_tile();
  return tile;
}

}  // namespace simjoin
