// A warp's running list of the k smallest keys it has been offered (k <= 32), one entry a lane:
// lane l holds entry l; lanes from k on hold -infinity, so they never hold the largest. Every
// lane of the warp calls offer() together. BY_INDEX: (key, index) pairs in lexicographic order
// (equal keys: the smaller index first); without it, equal keys in the order offered (one
// register less per list).
#pragma once

#include <cstdint>
#include <limits>

namespace simjoin::gpu {

constexpr int kWarpTopKMax = 32;

template <typename Key, bool BY_INDEX>
struct WarpTopK {
  Key key;
  std::uint32_t index;
  Key worst;  // the largest entry held: (+infinity, UINT32_MAX) until k are held
  std::uint32_t worst_index;  // BY_INDEX only

  __device__ __forceinline__ void reset(int k) {
    const int lane = threadIdx.x & 31;
    constexpr Key kInf = std::numeric_limits<Key>::infinity();
    key = lane < k ? kInf : -kInf;
    index = UINT32_MAX;
    worst = k > 0 ? kInf : -kInf;
    worst_index = UINT32_MAX;
  }

  __device__ __forceinline__ bool below_worst(Key k, std::uint32_t i) const {
    if constexpr (BY_INDEX) return k < worst || (k == worst && i < worst_index);
    return k < worst;
  }

  // Offers each lane's (candidate_key, candidate_index) where `want`: those below the worst
  // held, in lane order, replace it. NaN keys never enter.
  __device__ __forceinline__ void offer(bool want, Key candidate_key,
                                        std::uint32_t candidate_index) {
    const int lane = threadIdx.x & 31;
    unsigned entering =
        __ballot_sync(0xffffffffu, want && below_worst(candidate_key, candidate_index));
    while (entering) {
      const int source = __ffs(entering) - 1;
      entering &= entering - 1;
      const Key k = __shfl_sync(0xffffffffu, candidate_key, source);
      const std::uint32_t i = __shfl_sync(0xffffffffu, candidate_index, source);
      if (!below_worst(k, i)) continue;  // uniform: the worst is the same in every lane
      const unsigned holders =
          __ballot_sync(0xffffffffu, key == worst && (!BY_INDEX || index == worst_index));
      if (lane == __ffs(holders) - 1) {
        key = k;
        index = i;
      }
      Key largest = key;
      std::uint32_t largest_index = index;
      for (int offset = 16; offset > 0; offset >>= 1) {
        const Key other = __shfl_xor_sync(0xffffffffu, largest, offset);
        if constexpr (BY_INDEX) {
          const std::uint32_t other_index = __shfl_xor_sync(0xffffffffu, largest_index, offset);
          if (other > largest || (other == largest && other_index > largest_index)) {
            largest = other;
            largest_index = other_index;
          }
        } else {
          largest = max(largest, other);
        }
      }
      worst = largest;
      worst_index = largest_index;
    }
  }

  // This lane's place among the k entries in (key, index) order (lanes below k only).
  __device__ __forceinline__ int rank(int k) const {
    int place = 0;
    for (int l = 0; l < k; ++l) {
      const Key other = __shfl_sync(0xffffffffu, key, l);
      const std::uint32_t other_index = __shfl_sync(0xffffffffu, index, l);
      place += other < key || (other == key && other_index < index);
    }
    return place;
  }
};

}  // namespace simjoin::gpu
