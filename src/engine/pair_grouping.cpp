#include "pair_grouping.h"

#include <utility>

namespace simjoin {

void group_pairs_by_left(std::uint32_t* left, std::uint32_t* right, std::size_t n,
                         std::uint32_t n_keys, std::uint64_t* start, std::uint64_t* next) noexcept {
  for (std::uint64_t k = 0; k <= n_keys; ++k) start[k] = 0;
  for (std::size_t i = 0; i < n; ++i) start[left[i] + 1]++;
  for (std::uint64_t k = 0; k < n_keys; ++k) start[k + 1] += start[k];
  for (std::uint64_t k = 0; k < n_keys; ++k) next[k] = start[k];
  // Each key's range is filled from its front: the pair found there either belongs (it stays)
  // or is swapped to the front of its own key's range; every swap places one pair for good.
  for (std::uint64_t k = 0; k < n_keys; ++k) {
    const std::uint64_t end = start[k + 1];
    while (next[k] < end) {
      const std::uint64_t i = next[k];
      const std::uint32_t key = left[i];
      if (key == k) {
        next[k]++;
        continue;
      }
      const std::uint64_t j = next[key]++;
      std::swap(left[i], left[j]);
      std::swap(right[i], right[j]);
    }
  }
}

}  // namespace simjoin
