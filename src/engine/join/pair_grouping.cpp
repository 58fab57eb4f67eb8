#include "engine/join/pair_grouping.h"

namespace simjoin {

void group_pairs_by_left(std::uint32_t* left, const std::uint32_t* right, std::size_t n,
                         std::uint32_t n_keys, std::uint64_t* start,
                         std::uint32_t* grouped_right) noexcept {
  // start[k + 1]: the pairs of key k; then start[k + 1] is where key k's next pair goes.
  for (std::uint64_t k = 0; k <= n_keys; ++k) start[k] = 0;
  for (std::size_t i = 0; i < n; ++i) start[left[i] + 1]++;
  std::uint64_t sum = 0;
  for (std::uint64_t k = 0; k <= n_keys; ++k) {
    const std::uint64_t count = start[k];
    start[k] = sum;
    sum += count;
  }
  // start[k + 1] is now key k's first position (start[0] = 0, as start[1] is).
  for (std::size_t i = 0; i < n; ++i) grouped_right[start[left[i] + 1]++] = right[i];
  // Each start[k + 1] ended at key k's end, which is key k + 1's first position.
  for (std::uint64_t k = 0; k < n_keys; ++k)
    for (std::uint64_t i = start[k]; i < start[k + 1]; ++i) left[i] = static_cast<std::uint32_t>(k);
}

}  // namespace simjoin
