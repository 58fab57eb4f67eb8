// Pairs grouped by their left index: a counting sort, O(pairs + keys).
#pragma once

#include <cstddef>
#include <cstdint>

namespace simjoin {

// Groups the pairs (left[i], right[i]), i < n, every left[i] < n_keys, by left index in
// ascending order (the order within one left index is unspecified): the right indexes go to
// grouped_right (n entries), left is rewritten in that order, and the pairs of key k are
// [start[k], start[k + 1]) (start: n_keys + 1 entries). Writes each pair once, independently of
// the others (no chain of dependent loads), and allocates nothing.
void group_pairs_by_left(std::uint32_t* left, const std::uint32_t* right, std::size_t n,
                         std::uint32_t n_keys, std::uint64_t* start,
                         std::uint32_t* grouped_right) noexcept;

}  // namespace simjoin
