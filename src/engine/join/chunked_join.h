// The join of inputs larger than the device memory (Lieberman, Sankaranarayanan and Samet, ICDE 2008, section V-B): both sides are cut into
// chunks, and every pair of chunks that can hold a match is joined on its own.
#pragma once

#include <cstddef>
#include <functional>

#include "engine/pair_sink.h"
#include "engine/types.h"

namespace simjoin {

// Joins one chunk pair: the contract of run_join (right == nullptr: self-join of `left`).
using ChunkJoinFn = std::function<JoinStats(const PointSet& left, const PointSet* right,
                                            const JoinSpec& spec, PairSink& sink)>;

// The join of run_join (same pairs, indexes into the given inputs, SelfPairs semantics), computed
// by `join_chunk` on chunks of at most `chunk_points` points.
//
// With a finite eps the finite points of both sides are sorted along the dimension of largest
// variance and cut into chunks; chunk pairs whose bounding boxes are provably farther apart than
// eps are skipped, and non-finite points (which match nothing) are dropped. With eps = +inf every
// point is kept, chunks follow the input order and every chunk pair runs. chunk_points == 0, inputs
// that fit in one chunk, or a join that matches nothing: one call of join_chunk on the inputs.
//
// Stats: candidates summed over the chunk joins, batches and pairs as handed to `sink`, phases
// summed by name (after "chunk", the split), algorithm "<inner>, chunked: R of T chunk pairs"
// (R run out of T), device and indexed_dims from the chunk joins. When the sink stops the join
// (consume or keep_going, also polled between chunk pairs), no further chunk pair runs and
// stats.stopped is set. Exceptions of join_chunk propagate.
JoinStats run_chunked_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                           std::size_t chunk_points, const ChunkJoinFn& join_chunk,
                           PairSink& sink);

}  // namespace simjoin
