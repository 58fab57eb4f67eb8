// Pairs put in the order of the right side's rows (a consumer that reads those rows from disk
// reads them in order): the in-process pair stream and the GPU service's ring both sort so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace simjoin {

// Sorts the pairs (left[k], right[k]), k < n, by (right, left): for a consumer that reads the
// right side's rows from disk in order. `scratch` is reused between calls.
void sort_pairs_by_right(std::uint32_t* left, std::uint32_t* right, std::size_t n,
                         std::vector<std::uint64_t>& scratch);
// The same with each pair's distance[k] moved along (distance nullptr: the above).
void sort_pairs_by_right(std::uint32_t* left, std::uint32_t* right, double* distance,
                         std::size_t n, std::vector<std::uint64_t>& scratch,
                         std::vector<std::pair<std::uint64_t, double>>& keyed);

}  // namespace simjoin
