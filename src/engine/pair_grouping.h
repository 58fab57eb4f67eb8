// Pairs grouped by their left index: an in-place counting sort (the American flag sort's
// permutation) of two parallel arrays, O(pairs + keys), no memory of its own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simjoin {

// Permutes the pairs (left[i], right[i]), i < n, so that they come in ascending order of left
// (the order within one left index is unspecified), every left[i] < n_keys. On return the pairs
// of key k are [start[k], start[k + 1]). start has n_keys + 1 entries, next n_keys (scratch).
void group_pairs_by_left(std::uint32_t* left, std::uint32_t* right, std::size_t n,
                         std::uint32_t n_keys, std::uint64_t* start, std::uint64_t* next) noexcept;

}  // namespace simjoin
