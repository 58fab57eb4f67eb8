// The SimilarityJoin custom scan reads its children: every row's key evaluated and classified
// (a point, a wild row, or no match at all), its tuple stored (pg/scan/load/storage.cpp) or only
// the columns an engine pair needs (a values_only side), and the outer side of a self-join over
// the same scan shared with the inner side instead of read again.
#include "pg/scan/form_state.h"
#include "pg/scan/index_probe.h"
#include "pg/progress/join_progress.h"

extern "C" {
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/memutils.h"
}

#include <algorithm>
#include <cmath>
#include <cstring>

namespace simjoin::pg::cs {

namespace {

constexpr int kNullKey = -1;
constexpr Size kKeyMemory = 64 * 1024;

// Evaluates a key on a child tuple. Returns kNullKey for NULL; else classifies it and, for
// KEY_OK, writes its coordinates to st->key_buffer and its extent to *extent. The key's memory
// is per tuple.
int evaluate_key(SimJoinState* st, ExprState* key, TupleTableSlot* slot, KeyExtent* extent) {
  ExprContext* econtext = st->key_cxt;
  // Nothing outlives a key's evaluation (its coordinates are copied out): the per-tuple memory
  // is reset once it holds kKeyMemory, not for every row (one reset per ~1000 arrays).
  if (MemoryContextMemAllocated(econtext->ecxt_per_tuple_memory, false) > kKeyMemory)
    ResetExprContext(econtext);
  econtext->ecxt_scantuple = slot;
  bool isnull;
  Datum value = ExecEvalExprSwitchContext(key, econtext, &isnull);
  if (isnull) return kNullKey;
  MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
  value = detoast_key(st->form, value);
  extent->is_box = false;
  KeyStatus status = classify_key(st->form, value, &st->ref, extent);
  // A plan whose engine decides ST_DWithin itself checks no clause on its pairs: a key with an
  // extent, which needs PostGIS on each of its candidates, is wild there (the planner saw few).
  if (status == KEY_OK && extent->is_box && st->distance_qual >= 0) status = KEY_WILD;
  if (status == KEY_OK) {
    if (st->key_buffer_dim < st->ref.dim) {
      st->key_buffer = static_cast<double*>(
          MemoryContextAlloc(st->arrays_mcxt, sizeof(double) * st->ref.dim));
      st->key_buffer_dim = st->ref.dim;
    }
    read_key(st->form, value, st->ref, st->key_buffer);
  }
  MemoryContextSwitchTo(old);
  // A NULL key never satisfies a strict distance; SKIP keys (NaN distances) only match an eps
  // of NaN, where every row is wild: keep them as rows without a point.
  return status;
}

// Whether a side may keep only its wild rows' tuples and the needed columns of the others
// (Side::values_only). The outer side: decided once the inner side is complete (no wild inner
// row: no pair reads an outer row's tuple). The inner side: when its child can be read again
// (inner_rereadable), since a wild row on either side pairs with every inner row's tuple; the
// executor then reads it again with its tuples (reread_inner_with_tuples).
bool values_only_side(const SimJoinState* st, const Side* side, PlanState* child, bool force_wild) {
  if (force_wild || st->all_wild) return false;
  if (side == &st->outer && emits_unmatched(st)) return false;  // its rows are emitted alone
  if (side == &st->outer ? st->inner.n_wild > 0 || st->ref.dim <= 0
                         : !st->inner_rereadable || st->inner_needs_tuples)
    return false;
  const Size dim = static_cast<Size>(st->ref.dim > 0 ? st->ref.dim : 1);
  Size per_row = static_cast<Size>(side->n_need) * (sizeof(Datum) + sizeof(bool));
  TupleDesc desc = ExecGetResultType(child);
  for (int c = 0; c < side->n_need; ++c) {
    if (side->need[c] >= desc->natts) return false;
    const Form_pg_attribute attr = TupleDescAttr(desc, side->need[c]);
    if (attr->attbyval) continue;
    if (attr->attlen <= 0) return false;  // varlena or cstring: kept with the tuple
    per_row += MAXALIGN(attr->attlen);    // a fixed-length value (a point) copied once
  }
  // At most twice the memory of a row's coordinates (and of two: the inner side is read before
  // the dimension is known).
  return per_row <= 2 * (sizeof(double) * std::max<Size>(dim, 2) + sizeof(uint32));
}

// A values_only row's by-reference values (fixed length: values_only_side) copied out of the
// child's slot into the side's value arena, so that they outlive the slot without its tuple.
void copy_fixed_values(SimJoinState* st, Side* side, TupleTableSlot* slot, uint32 row) {
  TupleDesc desc = slot->tts_tupleDescriptor;
  Datum* values = side->values + static_cast<Size>(row) * side->n_need;
  const bool* isnull = side->isnull + static_cast<Size>(row) * side->n_need;
  for (int c = 0; c < side->n_need; ++c) {
    const Form_pg_attribute attr = TupleDescAttr(desc, side->need[c]);
    if (attr->attbyval || isnull[c]) continue;
    char* copy = bump_alloc(&side->value_arena, st->arrays_mcxt, attr->attlen);
    std::memcpy(copy, DatumGetPointer(values[c]), attr->attlen);
    values[c] = PointerGetDatum(copy);
  }
}

// A row of a values_only side: its needed columns into values[], its tuple only if it is wild.
void store_row_values(SimJoinState* st, Side* side, TupleTableSlot* slot, bool wild) {
  const uint32 row = side->n;
  if (side->n_need > 0) {
    reserve_row_values(st, side, static_cast<size_t>(side->n) + 1);
    copy_needed_columns(side, slot, row);
    copy_fixed_values(st, side, slot, row);
  }
  if (wild)
    store_tuple(st, side, slot);  // counts the row
  else
    add_row_without_tuple(st, side);
}

}  // namespace

void reserve_row_values(SimJoinState* st, Side* side, size_t rows) {
  const int k = side->n_need;
  if (rows <= side->values_cap) return;
  uint32 cap = side->values_cap;
  ensure_capacity(st->arrays_mcxt, &side->values, &cap, rows, k);
  uint32 cap_isnull = side->values_cap;
  ensure_capacity(st->arrays_mcxt, &side->isnull, &cap_isnull, rows, k);
  side->values_cap = cap;
}

void add_row_without_tuple(SimJoinState* st, Side* side, uint32 rows) {
  progress_add_rows(rows);
  const size_t row = side->n;
  if (side->file)
    ensure_capacity(st->arrays_mcxt, &side->offsets, &side->cap, row + rows);
  else {
    ensure_capacity(st->arrays_mcxt, &side->tuples, &side->cap, row + rows);
    std::memset(side->tuples + row, 0, sizeof(MinimalTuple) * rows);
  }
  side->n += rows;
}

bool append_point(SimJoinState* st, Side* side, uint32 row, const double* coords, uint32 count) {
  const int dim = st->ref.dim;
  const uint32 before = side->points_cap;
  ensure_capacity(st->arrays_mcxt, &side->point_row, &side->points_cap,
                  static_cast<size_t>(side->n_points) + count);
  const bool grown = before != side->points_cap;
  if (!side->points || grown) {
    const Size bytes = sizeof(double) * dim * static_cast<size_t>(side->points_cap);
    side->points = grow_join_points(st->points_mcxt, side->points,
                                    sizeof(double) * dim * static_cast<size_t>(side->n_points),
                                    bytes, st->points_shared);
  }
  std::memcpy(side->points + static_cast<size_t>(side->n_points) * dim, coords,
              sizeof(double) * dim * count);
  for (uint32 i = 0; i < count; ++i) side->point_row[side->n_points++] = row + i;
  return grown;
}

// One row of a child loaded: its key evaluated and classified, its tuple or needed columns
// stored, its point or wild row noted (and, where the outer side is read through an index, an
// inner row's probe values). Returns false when a values_only inner side meets a wild row.
bool load_row(SimJoinState* st, Side* side, TupleTableSlot* slot, ExprState* key,
              bool force_wild) {
  KeyExtent extent;
  const bool outer = side == &st->outer;
  push_error_rows(st, outer ? slot : nullptr, outer ? nullptr : slot);
  int status = evaluate_key(st, key, slot, &extent);
  if (status != kNullKey) status = radius_row_status(st, side, slot, status);
  if (status != kNullKey && !outer && st->probe) note_probe_values(st, slot);
  pop_error_rows(st);
  if (status == kNullKey) {  // never satisfies a strict distance (nor a NULL radius)
    if (outer && emits_unmatched(st)) store_tuple(st, side, slot);  // emitted alone
    return true;
  }
  const uint32 row = side->n;
  if (force_wild) status = KEY_WILD;
  if (status == KEY_WILD && side->values_only && !outer) return false;
  if (side->values_only)
    store_row_values(st, side, slot, status == KEY_WILD);
  else
    store_tuple(st, side, slot);
  if (status == KEY_OK) {
    const uint32 point = side->n_points;
    const bool grown = append_point(st, side, row, st->key_buffer);
    if (extent.is_box || side->boxes) note_key_extent(st, side, point, extent, grown);
  } else if (status == KEY_WILD) {
    ensure_capacity(st->arrays_mcxt, &side->wild, &side->wild_cap, side->n_wild + 1);
    side->wild[side->n_wild++] = row;
    if (!force_wild) st->wild_rows++;
  }
  return true;
}

// Reads a child completely (the outer side through an index where the plan says so:
// probe_load_side). force_wild (the outer side when every pair goes to the recheck): every row
// with a key is wild, and not counted as such. Returns false, the side incomplete, when a
// values_only inner side meets a wild row (its tuples are needed: load_inner).
bool load_side(SimJoinState* st, Side* side, PlanState* child, ExprState* key, bool force_wild) {
  side->values_only = values_only_side(st, side, child, force_wild);
  side->load_workers_planned = side->load_workers_launched = side->load_threads = 0;
  side->load_leader_rows = 0;
  if (side == &st->inner) reset_probe_values(st);
  // (The inner side's probe values are computed row by row here, not by the parallel readers.)
  if (side->values_only && !force_wild && !st->probe && parallel_load_side(st, side, child, key))
    return true;
  if (reads_radius(st, side)) st->form_state->max_radius = -HUGE_VAL;
  if (side != &st->outer || !st->probe || !probe_load_side(st, side, child, key, force_wild)) {
    for (;;) {
      TupleTableSlot* slot = ExecProcNode(child);
      if (TupIsNull(slot)) break;
      CHECK_FOR_INTERRUPTS();
      if (!load_row(st, side, slot, key, force_wild)) return false;
    }
  }
  side->loaded = true;
  side->values_by_row = side->values != nullptr;
  return true;
}

// Reads the inner child again, keeping every tuple: a wild row on either side pairs with every
// inner row (next_candidate's phase 1), which a values_only inner side did not keep. The child
// returns the same rows (inner_rereadable), so the rows, points and wild rows come out the same.
void reread_inner_with_tuples(SimJoinState* st) {
  st->inner_needs_tuples = true;
  st->wild_rows -= st->inner.n_wild;
  reset_side(&st->inner);
  ExecReScan(st->inner_ps);
  load_side(st, &st->inner, st->inner_ps, st->inner_key, false);
}

void load_inner(SimJoinState* st) {
  if (!load_side(st, &st->inner, st->inner_ps, st->inner_key, false)) reread_inner_with_tuples(st);
}

// The outer side of a self-join whose children scan the same rows (same_scan): the inner side's
// rows, points, wild rows and deformed values, without reading the outer child. Everything is
// borrowed, read only, and taken once the inner side is final for this scan (ordered, its
// values by point and deformed: start_scan); the tuples stay the inner side's, so the inner side
// must be in memory. Both sides need the same columns (begin_scan), so the values line up.
void share_inner_side(SimJoinState* st) {
  Side* from = &st->inner;
  Side* to = &st->outer;
  to->n = to->cap = from->n;
  to->tuples = from->tuples;
  to->n_points = to->points_cap = from->n_points;
  to->points = from->points;
  to->point_row = from->point_row;
  to->boxes = from->boxes;
  to->max_key_radius = from->max_key_radius;
  to->box_reach = from->box_reach;
  to->n_wild = to->wild_cap = from->n_wild;
  to->wild = from->wild;
  to->values = from->values;
  to->isnull = from->isnull;
  to->values_cap = from->values_cap;
  to->borrowed = true;
  to->bytes = 0;  // no tuple of its own
  to->values_only = from->values_only;
  to->values_by_row = from->values_by_row;
  to->ordered = from->ordered;
  to->current = kNoRow;
  to->loaded = true;
  st->wild_rows += from->n_wild;
}

}  // namespace simjoin::pg::cs
