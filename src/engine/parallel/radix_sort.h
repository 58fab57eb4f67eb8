// A stable, parallel LSD radix sort of points' integer keys (grid cell keys), each key carried
// with its point's id.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/parallel/filled_vector.h"

namespace simjoin {

// Sorts keys ascending, ids alongside (ids[i] is the point whose key is keys[i]), stably: equal
// keys keep their ids' order. Only the keys' low `key_bits` bits are read; the others must be 0.
// Passes of 11 bits, a pass skipped where every key has the same digit; the digits' histograms
// in one read of the keys; each pass split over up to `threads` threads. Where a key and its id
// fit in 64 bits together they move as one word (half the memory traffic).
// Keys and Ids: std::vector or FilledVector (of std::uint64_t and std::uint32_t).
template <typename Keys, typename Ids>
void sort_keys_with_ids(Keys& keys, Ids& ids, int key_bits, int threads);

// The bits a value needs: 0 for 0, 64 for 2^63 and above.
int bit_width(std::uint64_t value);

}  // namespace simjoin
