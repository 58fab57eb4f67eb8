// simjoin_fuzz: a small deterministic PRNG (xoshiro256** seeded with splitmix64), so that a seed
// reproduces the same tables and queries on every machine and every standard library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fuzz {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t x = seed;
    for (auto& s : s_) s = splitmix64(&x);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(next() % span);
  }
  // True with probability p.
  bool chance(double p) { return unit() < p; }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(range(0, static_cast<int64_t>(v.size()) - 1))];
  }
  // Index chosen with the given weights.
  size_t weighted(const std::vector<int>& weights) {
    int64_t total = 0;
    for (int w : weights) total += w;
    int64_t r = range(0, total - 1);
    for (size_t i = 0; i < weights.size(); ++i) {
      if (r < weights[i]) return i;
      r -= weights[i];
    }
    return weights.size() - 1;
  }

  static uint64_t splitmix64(uint64_t* x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace fuzz
