// The pairs in the right side's order (pair_order.h).
#include "engine/parallel/pair_order.h"

#include <algorithm>

namespace simjoin {

void sort_pairs_by_right(std::uint32_t* left, std::uint32_t* right, std::size_t n,
                         std::vector<std::uint64_t>& scratch) {
  scratch.resize(n);
  for (std::size_t k = 0; k < n; ++k)
    scratch[k] = (static_cast<std::uint64_t>(right[k]) << 32) | left[k];
  std::sort(scratch.begin(), scratch.end());
  for (std::size_t k = 0; k < n; ++k) {
    right[k] = static_cast<std::uint32_t>(scratch[k] >> 32);
    left[k] = static_cast<std::uint32_t>(scratch[k]);
  }
}

void sort_pairs_by_right(std::uint32_t* left, std::uint32_t* right, double* distance,
                         std::size_t n, std::vector<std::uint64_t>& scratch,
                         std::vector<std::pair<std::uint64_t, double>>& keyed) {
  if (distance == nullptr) return sort_pairs_by_right(left, right, n, scratch);
  keyed.resize(n);
  for (std::size_t k = 0; k < n; ++k)
    keyed[k] = {(static_cast<std::uint64_t>(right[k]) << 32) | left[k], distance[k]};
  std::sort(keyed.begin(), keyed.end());
  for (std::size_t k = 0; k < n; ++k) {
    right[k] = static_cast<std::uint32_t>(keyed[k].first >> 32);
    left[k] = static_cast<std::uint32_t>(keyed[k].first);
    distance[k] = keyed[k].second;
  }
}

}  // namespace simjoin
