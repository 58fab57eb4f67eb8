// Cutting an input into chunks of consecutive points for the chunked join (Lieberman, Sankaranarayanan and Samet, ICDE 2008, section V-B),
// and the exact test that two chunks hold no pair within eps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/types.h"

namespace simjoin {

struct Chunk {
  PointSet points;                     // the chunk's points, contiguous
  const std::uint32_t* ids = nullptr;  // ids[k]: index in the input of point k
  std::vector<double> lo, hi;          // bounding box per dimension (split_sorted only)
};

// An input cut into chunks; owns the gathered coordinates and ids the chunks point into.
struct ChunkedInput {
  ChunkedInput() = default;
  ChunkedInput(ChunkedInput&&) = default;
  ChunkedInput& operator=(ChunkedInput&&) = default;
  ChunkedInput(const ChunkedInput&) = delete;
  ChunkedInput& operator=(const ChunkedInput&) = delete;

  std::vector<Chunk> chunks;
  std::vector<double> coords;  // gathered points in chunk order (empty: the chunks view the input)
  std::vector<std::uint32_t> ids;
};

// The dimension of largest variance, measured on a sample of the finite points of both inputs.
std::size_t split_dimension(const PointSet& left, const PointSet* right);

// For a finite eps: the points whose coordinates are all finite (the others match nothing), in
// the order of coordinate `split_dim` (< set.dim; ties by index) cut into chunks of at most
// `chunk_points` (> 0; within a chunk in no particular order) and gathered, each chunk with its
// bounding box.
ChunkedInput split_sorted(const PointSet& set, std::size_t split_dim, std::size_t chunk_points);

// For eps = +inf (nothing can be pruned, non-finite points still match): every point, cut in input
// order into chunks that view the input; no bounding boxes.
ChunkedInput split_in_order(const PointSet& set, std::size_t chunk_points);

// False only when no point of `a` is within the accumulated `bound` (accumulated_bound of
// distance.h) of a point of `b`. Both chunks need their bounding boxes.
bool chunks_may_match(const Chunk& a, const Chunk& b, Metric metric, double bound);

}  // namespace simjoin
