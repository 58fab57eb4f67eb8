// The Z-order (Morton order) over quantized coordinates, for the Set-of-Z-Lists join (Lieberman,
// Sankaranarayanan, Samet, "A Fast Similarity Join Algorithm Using Graphics Processing Units").
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define SIMJOIN_HD __host__ __device__
#else
#define SIMJOIN_HD
#endif

namespace simjoin {

// A coordinate x becomes the integer floor((x - lo) * scale) clamped to [0, kZMaxCoord]: monotone
// in x, so a point inside the box [a, b] has every quantized coordinate between those of a and b.
// A curve adds its integer shift to every quantized coordinate (still monotone, and it never
// overflows: kZMaxCoord + shift < 2^32). The Z key interleaves the 32 bits of the d shifted
// coordinates, most significant bit level first and, within a level, dimension 0 first. The Z
// order is monotone under dominance (a <= b in every dimension gives Z(a) <= Z(b)), which is what
// makes [Z(box low corner), Z(box high corner)] hold every point of the box (their Lemma 4.2).
//
// Two ways to compare on the curve, with the same result: materialized keys (z_key, compared word
// by word with z_key_less) or z_less, which finds the dimension holding the most significant
// differing bit without building keys. Header-only, raw arrays only: the CUDA port reuses them.

// Quantized coordinates of the data lie in [0, kZMaxCoord]; shifts lie in [0, kZMaxCoord].
constexpr std::uint32_t kZMaxCoord = 0x7fffffffu;
constexpr int kZBits = 32;  // bits of a shifted coordinate in the key

// floor((x - lo) * scale) clamped to [0, kZMaxCoord]; monotone non-decreasing in x. NaN gives 0.
SIMJOIN_HD inline std::uint32_t z_quantize(double x, double lo, double scale) {
  const double t = (x - lo) * scale;
  if (!(t > 0.0)) return 0u;
  if (t >= static_cast<double>(kZMaxCoord)) return kZMaxCoord;
  return static_cast<std::uint32_t>(t);  // truncation = floor for t >= 0
}

// The 64-bit words of a Z key of `dim` dimensions.
SIMJOIN_HD inline std::size_t z_key_words(std::size_t dim) {
  return (dim * kZBits + 63) / 64;
}

// Interleaves the coordinates q[j] + shift into the first `words` words of the key (word 0 most
// significant; z_key_words(dim) words make the whole key). Bit g of the key (g = 0 the most
// significant) is bit (31 - g / dim) of dimension g % dim.
SIMJOIN_HD inline void z_key_head(const std::uint32_t* q, std::size_t dim, std::uint32_t shift,
                                  std::uint64_t* key, std::size_t words) {
  std::uint64_t word = 0;
  int filled = 0;
  for (int level = kZBits - 1; level >= 0; --level) {
    for (std::size_t j = 0; j < dim; ++j) {
      word = (word << 1) | (((q[j] + shift) >> level) & 1u);
      if (++filled == 64) {
        *key++ = word;
        if (--words == 0) return;
        word = 0;
        filled = 0;
      }
    }
  }
  if (filled > 0) *key = word << (64 - filled);
}

SIMJOIN_HD inline void z_key(const std::uint32_t* q, std::size_t dim, std::uint32_t shift,
                             std::uint64_t* key) {
  z_key_head(q, dim, shift, key, z_key_words(dim));
}

// The most significant word of the key: sorting on it is sorting on the key's prefix.
SIMJOIN_HD inline std::uint64_t z_key_prefix(const std::uint32_t* q, std::size_t dim,
                                             std::uint32_t shift) {
  std::uint64_t word = 0;
  z_key_head(q, dim, shift, &word, 1);
  return word;
}

// Word w of the key (z_key's key[w]) alone: the GPU's least-significant-word-first radix sort
// builds one word per pass.
SIMJOIN_HD inline std::uint64_t z_key_word(const std::uint32_t* q, std::size_t dim,
                                           std::uint32_t shift, std::size_t w) {
  const std::size_t total = dim * kZBits;
  std::uint64_t word = 0;
  for (std::size_t g = w * 64; g < w * 64 + 64; ++g) {
    std::uint64_t bit = 0;
    if (g < total) bit = ((q[g % dim] + shift) >> (kZBits - 1 - g / dim)) & 1u;
    word = (word << 1) | bit;
  }
  return word;
}

// Word-by-word comparison of two keys of `words` words.
SIMJOIN_HD inline int z_key_compare(const std::uint64_t* a, const std::uint64_t* b,
                                    std::size_t words) {
  for (std::size_t w = 0; w < words; ++w) {
    if (a[w] != b[w]) return a[w] < b[w] ? -1 : 1;
  }
  return 0;
}

// Whether the highest set bit of x is below that of y (x, y not both 0): "less_msb".
SIMJOIN_HD inline bool z_less_msb(std::uint32_t x, std::uint32_t y) { return x < y && x < (x ^ y); }

// Compares a + shift_a with b + shift_b (coordinate-wise shifted points) on the Z curve without
// keys: the dimension with the most significant differing bit decides (the lowest such dimension
// on a tie, as in z_key). Returns -1, 0 or 1.
SIMJOIN_HD inline int z_compare(const std::uint32_t* a, std::uint32_t shift_a,
                                const std::uint32_t* b, std::uint32_t shift_b, std::size_t dim) {
  std::uint32_t best_xor = 0;
  std::size_t best = 0;
  for (std::size_t j = 0; j < dim; ++j) {
    const std::uint32_t x = (a[j] + shift_a) ^ (b[j] + shift_b);
    if (z_less_msb(best_xor, x)) {
      best_xor = x;
      best = j;
      if (x >> (kZBits - 1)) break;  // the top bit level: no later dimension can beat it
    }
  }
  if (best_xor == 0) return 0;
  return a[best] + shift_a < b[best] + shift_b ? -1 : 1;
}

// The integer shift of curve `curve` of a set of curves with shifts v(j) = j / denominator of the
// quantized range (their v(j) = j / (d + 1), with an odd denominator).
SIMJOIN_HD inline std::uint32_t z_curve_shift(std::size_t curve, std::size_t denominator) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(curve) * kZMaxCoord) /
                                    denominator);
}

}  // namespace simjoin
