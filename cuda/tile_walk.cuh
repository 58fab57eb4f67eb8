// The candidate tiles one block of a join on tensor cores visits: every stride-th tile from its
// first, or, where the tile pairs were pruned (tile_pruning.cuh), every stride-th of the tiles its
// row of the visit mask keeps. Every thread of the block walks the same sequence.
#pragma once

#include <cstdint>

namespace simjoin::gpu {

struct TileWalk {
  std::uint32_t tiles = 0;   // candidate tiles of the join
  std::uint32_t stride = 1;  // the blocks that share a query block's tiles (gridDim.y)
  // Rows of the visit mask, a bit a candidate tile (null: every tile); a block whose queries
  // straddle two query tiles visits the tiles of either row.
  const std::uint32_t* mask = nullptr;
  const std::uint32_t* second_mask = nullptr;

  // The first visited tile at or after t (tiles if none).
  __device__ __forceinline__ std::uint32_t visited_from(std::uint32_t t) const {
    if (!mask) return t < tiles ? t : tiles;
    while (t < tiles) {
      const std::uint32_t word = t >> 5;
      std::uint32_t bits = mask[word] | (second_mask ? second_mask[word] : 0u);
      bits &= ~0u << (t & 31);
      if (bits != 0) {
        const std::uint32_t found = word * 32 + __ffs(bits) - 1;
        return found < tiles ? found : tiles;
      }
      t = (word + 1) * 32;
    }
    return tiles;
  }
  // The steps-th visited tile after the visited tile t.
  __device__ __forceinline__ std::uint32_t advance(std::uint32_t t, std::uint32_t steps) const {
    if (!mask) return t + steps < tiles ? t + steps : tiles;
    for (std::uint32_t s = 0; s < steps && t < tiles; ++s) t = visited_from(t + 1);
    return t;
  }
  // This block's first tile: the offset-th visited tile from `first`.
  __device__ __forceinline__ std::uint32_t start(std::uint32_t first, std::uint32_t offset) const {
    return advance(visited_from(first), offset);
  }
  __device__ __forceinline__ std::uint32_t next(std::uint32_t t) const {
    return advance(t, stride);
  }
};

// The walk of the block whose queries start at row q0 (rows in tiles of 128) over `tiles`
// candidate tiles, with the rows of `visits` (words a row, query_tiles rows; null: every tile).
__device__ __forceinline__ TileWalk masked_tile_walk(const std::uint32_t* visits,
                                                     std::uint32_t words,
                                                     std::uint32_t query_tiles, std::uint32_t q0,
                                                     std::uint32_t tiles, std::uint32_t stride) {
  TileWalk walk{tiles, stride};
  if (!visits) return walk;
  const std::uint32_t row = q0 / 128;
  walk.mask = visits + std::uint64_t(row) * words;
  if (q0 % 128 != 0 && row + 1 < query_tiles) walk.second_mask = walk.mask + words;
  return walk;
}

}  // namespace simjoin::gpu
