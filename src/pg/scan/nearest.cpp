// The SimilarityJoin's nearest mode (OUTPUT_NEAREST; the path: pg/scan/nearest_path.cpp):
// the ordered output (pg/scan/ordered.cpp) takes, instead of every engine pair, each outer
// point's nearest partner, folded from the stream as it comes: memory per outer point, not per
// pair. The nearest is the smallest (distance, inner row): the engine's distance is the
// operator's value bit for bit (the path is offered only for exact forms), and the inner rows
// come in the order of the ORDER BY's remaining keys (the inner input is sorted on them), so the
// kept pair is the first of the outer row's pairs in the query's ORDER BY. The rest of the scan
// is the ordered output's: outer rows in their input's order, each with its kept pair, then its
// pairs with the inner side's wild rows (checked by the operator). The join's clauses are the
// distance clause and cube's box clauses, both decided on the engine's pairs (the path's
// condition), so the pair kept is the nearest that the join accepts.
#include "pg/scan/state.h"

extern "C" {
#include "utils/memutils.h"
}

namespace simjoin::pg::cs {

Size collect_nearest_pairs(SimJoinState* st, MemoryContext mcxt, uint32** left, uint32** right) {
  const uint32 n_points = st->outer.n_points;
  uint32* best = static_cast<uint32*>(
      MemoryContextAllocHuge(mcxt, sizeof(uint32) * (static_cast<Size>(n_points) + 1)));
  double* best_distance = static_cast<double*>(
      MemoryContextAllocHuge(mcxt, sizeof(double) * (static_cast<Size>(n_points) + 1)));
  for (uint32 p = 0; p < n_points; ++p) best[p] = kNoRow;
  // The inner points are in space order; their rows are in the inner input's order.
  const uint32* inner_row = st->inner.point_row;
  while (st->stream && next_batch(st)) {
    const StreamBatch& batch = st->batch;
    if (batch.size > 0 && batch.distance == nullptr)
      elog(ERROR, "simjoin: the engine's batch carries no distances");
    for (size_t k = 0; k < batch.size; ++k) {
      const uint32 p = batch.left[k];
      const uint32 q = batch.right[k];
      const double d = batch.distance[k];
      // cube's box clauses, decided natively, are the join's only other clauses: the nearest
      // pair passing them.
      if (st->n_boxes > 0 && !engine_pair_boxes_pass(st, p, q)) continue;
      const uint32 current = best[p];
      if (current == kNoRow || d < best_distance[p] ||
          (d == best_distance[p] && inner_row[q] < inner_row[current])) {
        best[p] = q;
        best_distance[p] = d;
      }
    }
  }
  Size n = 0;
  for (uint32 p = 0; p < n_points; ++p) n += best[p] != kNoRow;
  *left = static_cast<uint32*>(MemoryContextAllocHuge(mcxt, sizeof(uint32) * Max(n, 1)));
  *right = static_cast<uint32*>(MemoryContextAllocHuge(mcxt, sizeof(uint32) * Max(n, 1)));
  Size k = 0;
  for (uint32 p = 0; p < n_points; ++p) {
    if (best[p] == kNoRow) continue;
    (*left)[k] = p;
    (*right)[k] = best[p];
    ++k;
  }
  pfree(best);
  pfree(best_distance);
  return n;
}

}  // namespace simjoin::pg::cs
