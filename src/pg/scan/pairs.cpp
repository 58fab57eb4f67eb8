// The SimilarityJoin custom scan's pairs, the ExecCustomScan callback (exec_scan): the candidates
// (the engine's pairs, then the pairs with a wild row), their scan tuples, the join's clauses
// checked on them, the direct path that hands the engine's pairs to the result slot (fast_scan),
// and the EvalPlanQual recheck. One file, so that the per-pair path inlines as one.
#include "pg/scan/form_state.h"

#include "engine/bounds/enlarged_box.h"
#include "engine/bounds/planar_hypot.h"

extern "C" {
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
}

#include <cmath>
#include <cstring>

namespace simjoin::pg::cs {

namespace {

// The next candidate: in phase 0 (the engine's pairs) the indexes of two points, else of two rows.
bool next_candidate(SimJoinState* st, uint32* outer_row, uint32* inner_row) {
  if (ordered_output_active(st)) return next_ordered_candidate(st, outer_row, inner_row);
  FormState* fs = st->form_state;
  for (;;) {
    switch (st->phase) {
      case 0:  // the engine's pairs
        if (fs->mirror_pending) {  // the unordered pair's other orientation
          fs->mirror_pending = false;
          *outer_row = fs->mirror_outer;
          *inner_row = fs->mirror_inner;
          return true;
        }
        if (st->batch_pos < st->batch.size) {
          // points, not rows: form_engine_pair maps them when it needs the rows
          *outer_row = st->batch.left[st->batch_pos];
          *inner_row = st->batch.right[st->batch_pos];
          st->batch_pos++;
          if (fs->key_order != KEY_ORDER_NONE && st->outer_shared) {
            // A row with itself fails the key order; (q, p) comes as {p, q}'s mirror.
            if (*outer_row >= *inner_row) break;
            fs->mirror_needed = true;
            fs->mirror_outer = *inner_row;
            fs->mirror_inner = *outer_row;
          }
          return true;
        }
        if (st->stream && next_batch(st)) break;
        st->phase = 1;
        st->wi = st->wj = 0;
        break;
      case 1:  // wild outer rows x every inner row
        if (st->wi < st->outer.n_wild && st->inner.n > 0) {
          *outer_row = st->outer.wild[st->wi];
          *inner_row = st->wj;
          if (++st->wj == st->inner.n) {
            st->wj = 0;
            st->wi++;
          }
          return true;
        }
        st->phase = 2;
        st->wi = st->wj = 0;
        break;
      case 2:  // outer rows with points x wild inner rows
        if (!st->all_wild && st->wi < st->outer.n_points && st->inner.n_wild > 0) {
          *outer_row = st->outer.point_row[st->wi];
          *inner_row = st->inner.wild[st->wj];
          if (++st->wj == st->inner.n_wild) {
            st->wj = 0;
            st->wi++;
          }
          return true;
        }
        st->phase = 3;
        break;
      default:
        return false;
    }
  }
}

void hold_row(SimJoinState* st, Side* side, TupleTableSlot* slot, uint32 row) {
  if (row == side->current) return;
  ExecStoreMinimalTuple(fetch_tuple(st, side, row), slot, false);
  slot_getallattrs(slot);
  side->current = row;
}

// Writes the needed columns of an engine pair's side into the scan tuple at `offset`; the other
// columns keep what they held (NULL, or a stored row's values: never read).
inline void copy_needed(SimJoinState* st, Side* side, TupleTableSlot* slot, uint32 point,
                        TupleTableSlot* scan, int offset) {
  const int k = side->n_need;
  if (k == 0) return;
  const Datum* values;
  const bool* isnull;
  if (side->values) {
    values = side->values + static_cast<Size>(point) * k;
    isnull = side->isnull + static_cast<Size>(point) * k;
    for (int c = 0; c < k; ++c) {
      scan->tts_values[offset + side->need[c]] = values[c];
      scan->tts_isnull[offset + side->need[c]] = isnull[c];
    }
    return;
  }
  hold_row(st, side, slot, side->point_row[point]);
  for (int c = 0; c < k; ++c) {
    scan->tts_values[offset + side->need[c]] = slot->tts_values[side->need[c]];
    scan->tts_isnull[offset + side->need[c]] = slot->tts_isnull[side->need[c]];
  }
}

TupleTableSlot* engine_pair_tuple(SimJoinState* st, uint32 outer_point, uint32 inner_point) {
  TupleTableSlot* scan = st->css.ss.ss_ScanTupleSlot;
  ExecClearTuple(scan);
  copy_needed(st, &st->outer, st->outer_slot, outer_point, scan, 0);
  copy_needed(st, &st->inner, st->inner_slot, inner_point, scan, st->outer_columns);
  return ExecStoreVirtualTuple(scan);
}

// An engine pair's scan tuple as one of this scan's candidates.
TupleTableSlot* form_engine_pair(SimJoinState* st, uint32 outer_point, uint32 inner_point) {
  st->candidates_out++;
  return engine_pair_tuple(st, outer_point, inner_point);
}

// The scan tuple of two rows: every column of the outer row, then of the inner row (both slots
// deformed completely).
TupleTableSlot* store_joined_row(SimJoinState* st, TupleTableSlot* scan, TupleTableSlot* outer,
                                 TupleTableSlot* inner) {
  ExecClearTuple(scan);
  std::memcpy(scan->tts_values, outer->tts_values, sizeof(Datum) * st->outer_columns);
  std::memcpy(scan->tts_isnull, outer->tts_isnull, sizeof(bool) * st->outer_columns);
  std::memcpy(scan->tts_values + st->outer_columns, inner->tts_values,
              sizeof(Datum) * st->inner_columns);
  std::memcpy(scan->tts_isnull + st->outer_columns, inner->tts_isnull,
              sizeof(bool) * st->inner_columns);
  return ExecStoreVirtualTuple(scan);
}

// A pair with a wild row: every column (the distance clause reads the keys).
TupleTableSlot* form_pair(SimJoinState* st, uint32 outer_row, uint32 inner_row) {
  hold_row(st, &st->outer, st->outer_slot, outer_row);
  hold_row(st, &st->inner, st->inner_slot, inner_row);
  st->candidates_out++;
  return store_joined_row(st, st->css.ss.ss_ScanTupleSlot, st->outer_slot, st->inner_slot);
}

// Whether an engine pair (point indexes) passes the box clauses decided natively (and, for
// PostGIS keys with an extent, the boxes' distance).
inline bool boxes_pass(const SimJoinState* st, uint32 outer_point, uint32 inner_point) {
  if (st->form_state->box_filter && !boxes_near(st, outer_point, inner_point)) return false;
  const Size dim = static_cast<Size>(st->ref.dim);
  const double* outer = st->outer.points + outer_point * dim;
  const double* inner = st->inner.points + inner_point * dim;
  for (int k = 0; k < st->n_boxes; ++k) {
    const BoxCheck& box = st->boxes[k];
    const bool inside = box.enlarged_side == 0 ? in_enlarged_box(outer, inner, dim, box.r_value)
                                               : in_enlarged_box(inner, outer, dim, box.r_value);
    if (!inside) return false;
  }
  return true;
}

// The clauses an engine pair is checked with (its position is batch_pos - 1, its mirror's too):
// those but the distance clause within a certain bound, else engine_qual.
inline ExprState* engine_pair_qual(SimJoinState* st) {
  FormState* fs = st->form_state;
  if (fs->certain_position < 0) return st->engine_qual;
  if (!certain_pair(st, st->batch_pos - 1)) return st->engine_qual;
  fs->decided_by_engine++;
  return fs->certain_qual;
}

// An engine pair projected straight into the result slot (direct_project): each output column
// is read from its side's deformed values, or from the side's slot holding the stored row.
TupleTableSlot* project_engine_pair(SimJoinState* st, uint32 outer_point, uint32 inner_point) {
  TupleTableSlot* result = st->css.ss.ps.ps_ResultTupleSlot;
  ExecClearTuple(result);
  st->candidates_out++;
  if (st->n_out > 0) {
    const Datum* values[2];
    const bool* isnull[2];
    const int* map[2];  // need position -> index in values[s] (nullptr: the position itself)
    Side* sides[2] = {&st->outer, &st->inner};
    TupleTableSlot* slots[2] = {st->outer_slot, st->inner_slot};
    const uint32 points[2] = {outer_point, inner_point};
    for (int s = 0; s < 2; ++s) {
      Side* side = sides[s];
      if (side->n_need == 0) continue;
      if (side->values) {
        values[s] = side->values + static_cast<Size>(points[s]) * side->n_need;
        isnull[s] = side->isnull + static_cast<Size>(points[s]) * side->n_need;
        map[s] = nullptr;
      } else {
        hold_row(st, side, slots[s], side->point_row[points[s]]);
        values[s] = slots[s]->tts_values;
        isnull[s] = slots[s]->tts_isnull;
        map[s] = side->need;
      }
    }
    for (int j = 0; j < st->n_out; ++j) {
      const int s = st->out_side[j];
      const int k = map[s] ? map[s][st->out_need[j]] : st->out_need[j];
      result->tts_values[j] = values[s][k];
      result->tts_isnull[j] = isnull[s][k];
    }
  }
  return ExecStoreVirtualTuple(result);
}

// LEFT and ANTI, once the pairs are done: the next outer row without a match, its inner columns
// NULL, that passes the clauses pushed down from WHERE (nullptr: none left).
TupleTableSlot* next_unmatched_row(SimJoinState* st) {
  FormState* fs = st->form_state;
  if (!emits_unmatched(st)) return nullptr;
  ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
  TupleTableSlot* scan = st->css.ss.ss_ScanTupleSlot;
  const uint32 end = unmatched_end(st);
  while (fs->next_unmatched < end) {
    const uint32 row = fs->next_unmatched++;
    if (fs->matched[row]) continue;
    CHECK_FOR_INTERRUPTS();
    ResetExprContext(econtext);
    hold_row(st, &st->outer, st->outer_slot, row);
    ExecClearTuple(scan);
    std::memcpy(scan->tts_values, st->outer_slot->tts_values, sizeof(Datum) * st->outer_columns);
    std::memcpy(scan->tts_isnull, st->outer_slot->tts_isnull, sizeof(bool) * st->outer_columns);
    for (int c = 0; c < st->inner_columns; ++c) scan->tts_isnull[st->outer_columns + c] = true;
    ExecStoreVirtualTuple(scan);
    econtext->ecxt_scantuple = scan;
    if (!fs->other_qual || ExecQual(fs->other_qual, econtext)) return scan;
    InstrCountFiltered2(&st->css.ss, 1);
  }
  return nullptr;
}

// Pairs ahead in the batch whose points fast_scan fetches into the cache while it checks the
// current pair (the engine reports pairs cell by cell, not in memory order).
constexpr size_t kPrefetchPairs = 8;
constexpr Size kPrefetchBytes = 256;  // of each point (32 coordinates)

// The next pair that passes the join's clauses: the engine's pairs are checked with engine_qual
// (every clause, or every clause but the distance clause where the engine is exact), pairs with
// a wild row with every clause, in the plan's order (so PostgreSQL's operator decides them and
// raises its errors as in its own plans). ExecScan has no qual of its own and only projects.
TupleTableSlot* next_scan_tuple(ScanState* node) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  if (!st->started) start_scan(st);
  ExprContext* econtext = node->ps.ps_ExprContext;
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    if (st->finished) return nullptr;
    uint32 outer_row, inner_row;
    if (!next_candidate(st, &outer_row, &inner_row)) {
      TupleTableSlot* unmatched = next_unmatched_row(st);
      if (unmatched) return unmatched;
      if (next_outer_group(st)) continue;
      st->finished = true;
      return nullptr;
    }
    const bool engine_pair = st->phase == 0;
    // the outer row (an engine pair holds points), for an outer, semi- or anti-join's matches
    const uint32 outer_index = engine_pair && st->form_state->join_type != JOIN_INNER
                                   ? st->outer.point_row[outer_row]
                                   : outer_row;
    if (has_match(st, outer_index)) continue;
    bool passed = false;
    TupleTableSlot* slot = nullptr;
    if (!engine_pair || boxes_pass(st, outer_row, inner_row)) {
      slot = engine_pair ? form_engine_pair(st, outer_row, inner_row)
                         : form_pair(st, outer_row, inner_row);
      ExprState* qual = engine_pair ? engine_pair_qual(st) : st->wild_qual;
      econtext->ecxt_scantuple = slot;
      passed = qual == nullptr ||
               (engine_pair ? ExecQual(qual, econtext) : check_wild_pair(st, qual, econtext));
    }
    if (engine_pair && st->form_state->mirror_needed) {  // a key-ordered self-join's pair
      st->form_state->mirror_needed = false;
      st->form_state->mirror_pending =
          !passed || st->form_state->key_order == KEY_ORDER_BOTH_WAYS;
    }
    if (passed && emits_match(st, outer_index, econtext)) return slot;
    if (!passed) InstrCountFiltered1(node, 1);
    ResetExprContext(econtext);
  }
}

// ExecScan's loop without its per-tuple overheads where they are not needed: the engine's pairs
// of the current batch that need no clause check (simjoin's exact operators with no other join
// clause) go straight to the result slot (or are the scan tuple when there is no projection).
// Everything else takes next_scan_tuple and ExecProject as in ExecScan. Under EvalPlanQual
// ExecScan itself runs (exec_scan).
TupleTableSlot* fast_scan(SimJoinState* st) {
  ScanState* node = &st->css.ss;
  ProjectionInfo* projection = node->ps.ps_ProjInfo;
  FormState* fs = st->form_state;
  while (st->phase == 0 && st->batch_pos < st->batch.size && fs->join_type == JOIN_INNER &&
         (projection == nullptr || st->direct_project)) {
    if (st->engine_qual != nullptr) {  // only a pair the certain bound decides, no other clause
      if (fs->certain_position < 0 || fs->certain_qual != nullptr || fs->mirror_pending ||
          !certain_pair(st, st->batch_pos))
        break;
      fs->decided_by_engine++;
    }
    CHECK_FOR_INTERRUPTS();
    const uint32 outer_point = st->batch.left[st->batch_pos];
    const uint32 inner_point = st->batch.right[st->batch_pos];
    st->batch_pos++;
    if (st->n_boxes > 0) {
      // In the loop itself: GCC 12 deletes a helper holding only prefetches as a pure call.
      const size_t ahead = st->batch_pos + kPrefetchPairs;
      if (ahead < st->batch.size) {
        const Size dim = static_cast<Size>(st->ref.dim);
        const char* outer = reinterpret_cast<const char*>(st->outer.points + st->batch.left[ahead] * dim);
        const char* inner = reinterpret_cast<const char*>(st->inner.points + st->batch.right[ahead] * dim);
        for (Size line = 0; line < dim * sizeof(double) && line < kPrefetchBytes; line += 64) {
          __builtin_prefetch(outer + line);
          __builtin_prefetch(inner + line);
        }
      }
      if (!boxes_pass(st, outer_point, inner_point)) {
        InstrCountFiltered1(node, 1);
        continue;
      }
    }
    if (projection == nullptr) return form_engine_pair(st, outer_point, inner_point);
    return project_engine_pair(st, outer_point, inner_point);
  }
  ExprContext* econtext = node->ps.ps_ExprContext;
  ResetExprContext(econtext);
  TupleTableSlot* slot = next_scan_tuple(node);
  if (TupIsNull(slot)) return projection ? ExecClearTuple(projection->pi_state.resultslot) : slot;
  if (projection == nullptr) return slot;
  econtext->ecxt_scantuple = slot;
  return ExecProject(projection);
}

// EvalPlanQual (a concurrently updated row rechecked under UPDATE/DELETE ... FROM or a row
// lock): ExecScan calls this instead of the access method for a join pushed into a scan
// (scanrelid 0) and returns `slot` as the next row, or ends the scan when it comes back false.
// The children then return their relations' test rows (one each, but any number is handled):
// a nested loop over them, every clause of the join checked on each pair, forms the join's rows.
bool recheck_scan_tuple(ScanState* node, TupleTableSlot* slot) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  ExprContext* econtext = node->ps.ps_ExprContext;
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    if (!st->epq_outer_ready) {
      TupleTableSlot* outer = ExecProcNode(st->outer_ps);
      if (TupIsNull(outer)) return false;
      ExecCopySlot(st->outer_slot, outer);
      slot_getallattrs(st->outer_slot);
      st->outer.current = kNoRow;
      st->epq_outer_ready = true;
      ExecReScan(st->inner_ps);
    }
    TupleTableSlot* inner = ExecProcNode(st->inner_ps);
    if (TupIsNull(inner)) {
      st->epq_outer_ready = false;
      continue;
    }
    slot_getallattrs(inner);
    store_joined_row(st, slot, st->outer_slot, inner);
    ResetExprContext(econtext);
    econtext->ecxt_scantuple = slot;
    if (st->wild_qual == nullptr || ExecQual(st->wild_qual, econtext)) return true;
  }
}

}  // namespace

bool engine_pair_boxes_pass(const SimJoinState* st, uint32 outer_point, uint32 inner_point) {
  return boxes_pass(st, outer_point, inner_point);
}

TupleTableSlot* exec_scan(CustomScanState* node) {
  // next_scan_tuple checks the join clauses on each candidate; ExecScan (or fast_scan, its
  // equivalent outside EvalPlanQual) projects.
  if (node->ss.ps.state->es_epq_active == nullptr)
    return fast_scan(reinterpret_cast<SimJoinState*>(node));
  return ExecScan(&node->ss, next_scan_tuple, recheck_scan_tuple);
}

bool engine_pair_passes(SimJoinState* st, uint32 outer_point, uint32 inner_point, double d,
                        ExprState* measure, double* value, bool* rechecked) {
  FormState* fs = st->form_state;
  const bool certain = d <= fs->certain_bound;
  ExprState* qual = certain ? fs->certain_qual : st->engine_qual;
  *rechecked = !certain && qual != nullptr;
  if (!qual && !measure) return true;
  ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
  econtext->ecxt_scantuple = engine_pair_tuple(st, outer_point, inner_point);
  const bool pass = !qual || ExecQual(qual, econtext);
  if (pass && measure) {
    bool isnull;
    const Datum result = ExecEvalExpr(measure, econtext, &isnull);
    *value = isnull ? std::nan("") : DatumGetFloat8(result);
  }
  ResetExprContext(econtext);
  return pass;
}

bool planar_pair_passes(const SimJoinState* st, uint32 outer_point, uint32 inner_point, double* d) {
  *d = planar_point_distance(st->outer.points + 2 * static_cast<Size>(outer_point),
                             st->inner.points + 2 * static_cast<Size>(inner_point));
  return st->strict ? *d < st->eps : *d <= st->eps;
}

}  // namespace simjoin::pg::cs
