// The SimilarityJoin's nearest mode (OUTPUT_NEAREST; the path: pg/scan/nearest_path.cpp):
// the ordered output (pg/scan/ordered.cpp) takes, instead of every engine pair, each outer
// point's nearest partner, folded from the stream as it comes: memory per outer point, not per
// pair. The nearest is the smallest (distance, inner row): the engine's distance is the
// operator's value bit for bit (the path is offered only for exact forms, and for point <-> point
// measured here with PostgreSQL's arithmetic, planar_point_distance), and the inner rows
// come in the order of the ORDER BY's remaining keys (the inner input is sorted on them), so the
// kept pair is the first of the outer row's pairs in the query's ORDER BY. The rest of the scan
// is the ordered output's: outer rows in their input's order, each with its kept pair, then its
// pairs with the inner side's wild rows (checked by the operator). The join's clauses are the
// distance clause and cube's box clauses, both decided on the engine's pairs (the path's
// condition), so the pair kept is the nearest that the join accepts; or those and a self-join's
// a.k <> b.k, which rejects one partner of each outer row: the two nearest are kept, and the scan
// checks the clause on them.
#include "pg/scan/form_state.h"
#include "pg/scan/state.h"

extern "C" {
#include "utils/memutils.h"
}

#include <cmath>

namespace simjoin::pg::cs {

Size collect_nearest_pairs(SimJoinState* st, MemoryContext mcxt, uint32** left, uint32** right) {
  const uint32 n_points = st->outer.n_points;
  // A self-join's a.k <> b.k rejects one inner row of each outer row: the two nearest are kept,
  // and the scan checks the clause on both (the first it accepts is the answer).
  const int keep = st->form_state->key_order == KEY_ORDER_BOTH_WAYS ? 2 : 1;
  const Size slots = static_cast<Size>(n_points) * keep + 1;
  uint32* best = static_cast<uint32*>(MemoryContextAllocHuge(mcxt, sizeof(uint32) * slots));
  double* best_distance =
      static_cast<double*>(MemoryContextAllocHuge(mcxt, sizeof(double) * slots));
  for (Size s = 0; s < slots; ++s) best[s] = kNoRow;
  // The inner points are in space order; their rows are in the inner input's order.
  const uint32* inner_row = st->inner.point_row;
  // Whether (d, q) comes before the kept pair in slot s: smaller distance (in float8's order:
  // NaN, an evaluated distance, after every number), then earlier row.
  auto before = [&](Size s, double d, uint32 q) {
    if (best[s] == kNoRow) return true;
    const double kept = best_distance[s];
    if (std::isnan(kept) != std::isnan(d)) return std::isnan(kept);
    return d < kept || ((d == kept || std::isnan(d)) && inner_row[q] < inner_row[best[s]]);
  };
  // point <-> point (never exact in the engine; the path's condition): each candidate measured
  // and decided with PostgreSQL's arithmetic; other forms the engine does not measure: the join's
  // clause and the ORDER BY's distance evaluated (engine_pair_passes).
  const bool planar = st->form.kind == KEY_POINT && !st->nearest_distance;
  // cube's box clauses, decided natively, are the join's only other clauses but a.k <> b.k.
  fold_streamed_pairs(st, [&](uint32 p, uint32 q, double d) {
    bool rechecked;
    if (planar ? !planar_pair_passes(st, p, q, &d)
               : st->nearest_distance &&
                     !engine_pair_passes(st, p, q, d, st->nearest_distance, &d, &rechecked))
      return;
    const Size first = static_cast<Size>(p) * keep;
    if (before(first, d, q)) {
      if (keep == 2) {
        best[first + 1] = best[first];
        best_distance[first + 1] = best_distance[first];
      }
      best[first] = q;
      best_distance[first] = d;
    } else if (keep == 2 && before(first + 1, d, q)) {
      best[first + 1] = q;
      best_distance[first + 1] = d;
    }
  });
  Size n = 0;
  for (Size s = 0; s + 1 < slots; ++s) n += best[s] != kNoRow;
  *left = static_cast<uint32*>(MemoryContextAllocHuge(mcxt, sizeof(uint32) * Max(n, 1)));
  *right = static_cast<uint32*>(MemoryContextAllocHuge(mcxt, sizeof(uint32) * Max(n, 1)));
  Size k = 0;
  for (Size s = 0; s + 1 < slots; ++s) {
    if (best[s] == kNoRow) continue;
    (*left)[k] = static_cast<uint32>(s / keep);
    (*right)[k] = best[s];
    ++k;
  }
  pfree(best);
  pfree(best_distance);
  return n;
}

}  // namespace simjoin::pg::cs
