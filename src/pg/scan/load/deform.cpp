// The SimilarityJoin custom scan's values of a side: the columns an engine pair needs, deformed
// once per stored row (deform_side) and kept in the order of the points, which are put in space
// order first (order_points, engine/bounds/space_order.h) so that the pairs of neighbouring points read
// neighbouring memory.
#include "pg/scan/state.h"

#include "engine/bounds/space_order.h"

extern "C" {
#include "access/detoast.h"
#include "executor/tuptable.h"
#include "utils/memutils.h"
}

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace simjoin::pg::cs {

// The side's needed columns of the tuple in `slot`, deformed into values[index * n_need ...] and
// isnull[...] (n_need > 0).
void copy_needed_columns(const Side* side, TupleTableSlot* slot, uint32 index) {
  const int k = side->n_need;
  slot_getsomeattrs(slot, side->need[k - 1] + 1);  // need[] is ascending
  Datum* values = side->values + static_cast<Size>(index) * k;
  bool* isnull = side->isnull + static_cast<Size>(index) * k;
  for (int c = 0; c < k; ++c) {
    values[c] = slot->tts_values[side->need[c]];
    isnull[c] = slot->tts_isnull[side->need[c]];
  }
}

namespace {

// Replaces a side's values[] (and isnull[]) by n entries: entry j is the old entry from(j).
template <typename From>
void gather_values(SimJoinState* st, Side* side, uint32 n, From from) {
  const int k = side->n_need;
  const Size cells = static_cast<Size>(std::max<uint32>(n, 1)) * k;
  Datum* values = static_cast<Datum*>(MemoryContextAllocHuge(st->arrays_mcxt, cells * sizeof(Datum)));
  bool* isnull = static_cast<bool*>(MemoryContextAllocHuge(st->arrays_mcxt, cells * sizeof(bool)));
  for (uint32 j = 0; j < n; ++j) {
    const Size source = static_cast<Size>(from(j)) * k;
    std::memcpy(values + static_cast<Size>(j) * k, side->values + source, sizeof(Datum) * k);
    std::memcpy(isnull + static_cast<Size>(j) * k, side->isnull + source, sizeof(bool) * k);
  }
  pfree(side->values);
  pfree(side->isnull);
  side->values = values;
  side->isnull = isnull;
  side->values_cap = std::max<uint32>(n, 1);
}

// Deforms the needed columns of every stored row of a side once, so that an engine pair's scan
// tuple is a few copies instead of two tuples deformed per pair. Only in memory mode (the values
// point into the stored tuples) and when the arrays take no more memory than the tuples.
//
// Varlena values are copied once here, in the order of the points (order_points), as plain
// 4-byte-header values, as long as the copies fit in what is left of the side's memory limit:
// values stored with a short header (geometry and array keys of small vectors) or compressed
// inline are expanded, so that every clause or projection that reads them on a pair detoasts
// nothing (a function's PG_DETOAST_DATUM of a short value pallocs a copy on every call), and
// plain ones (cube) are copied so that the pairs of neighbouring points read neighbouring memory.
// External (TOAST table) values stay as they are.
Datum expand_varlena(Side* side, Datum value, Size* budget) {
  struct varlena* p = reinterpret_cast<struct varlena*>(DatumGetPointer(value));
  if (VARATT_IS_EXTERNAL(p)) return value;
  if (VARATT_IS_SHORT(p)) {
    const Size data = VARSIZE_SHORT(p) - VARHDRSZ_SHORT;
    if (data + VARHDRSZ > *budget) return value;
    char* copy = arena_alloc(side, data + VARHDRSZ);
    SET_VARSIZE(copy, data + VARHDRSZ);
    std::memcpy(VARDATA(copy), VARDATA_SHORT(p), data);
    *budget -= data + VARHDRSZ;
    return PointerGetDatum(copy);
  }
  if (VARATT_IS_COMPRESSED(p)) {
    const Size size = VARDATA_COMPRESSED_GET_EXTSIZE(p) + VARHDRSZ;
    if (size > *budget) return value;
    MemoryContext old = MemoryContextSwitchTo(side->tuple_mcxt);
    struct varlena* copy = detoast_attr(p);
    MemoryContextSwitchTo(old);
    *budget -= size;
    return PointerGetDatum(copy);
  }
  const Size size = VARSIZE(p);  // a plain value: copied for locality (deform_side)
  if (size > *budget) return value;
  char* copy = arena_alloc(side, size);
  std::memcpy(copy, p, size);
  *budget -= size;
  return PointerGetDatum(copy);
}

}  // namespace

void deform_side(SimJoinState* st, Side* side, TupleTableSlot* slot) {
  const int k = side->n_need;
  if (side->values || side->file || side->n_points == 0 || k == 0) return;
  const Size cells = static_cast<Size>(side->n_points) * k;
  const Size arrays = cells * (sizeof(Datum) + sizeof(bool));
  if (arrays > side->bytes) return;
  const Size limit = side_memory_limit(st, side);
  Size budget = limit > side->bytes + arrays ? limit - side->bytes - arrays : 0;
  TupleDesc desc = slot->tts_tupleDescriptor;
  bool* varlena = static_cast<bool*>(palloc(sizeof(bool) * k));
  for (int c = 0; c < k; ++c) varlena[c] = TupleDescAttr(desc, side->need[c])->attlen == -1;
  side->values = static_cast<Datum*>(MemoryContextAllocHuge(st->arrays_mcxt, cells * sizeof(Datum)));
  side->isnull = static_cast<bool*>(MemoryContextAllocHuge(st->arrays_mcxt, cells * sizeof(bool)));
  for (uint32 point = 0; point < side->n_points; ++point) {
    ExecStoreMinimalTuple(side->tuples[side->point_row[point]], slot, false);
    copy_needed_columns(side, slot, point);
    Datum* values = side->values + static_cast<Size>(point) * k;
    const bool* isnull = side->isnull + static_cast<Size>(point) * k;
    for (int c = 0; c < k; ++c)
      if (varlena[c] && !isnull[c] && budget > 0) values[c] = expand_varlena(side, values[c], &budget);
  }
  pfree(varlena);
  side->values_cap = side->n_points;
  ExecClearTuple(slot);
  side->current = kNoRow;
}

// A values_only side read its rows' values in row order: keeps those of the rows with a point,
// in the order of the points (the index the engine's pairs use).
void values_by_point(SimJoinState* st, Side* side) {
  if (!side->values_by_row || side->n_need == 0 || side->values == nullptr) return;
  gather_values(st, side, side->n_points, [side](uint32 point) { return side->point_row[point]; });
  side->values_by_row = false;
}

// Reorders a side's points (with point_row) along a Z-order curve over its up to three widest
// dimensions, quantized to about 16 cells per point (engine/bounds/space_order.h): the engine reports the pairs
// of a cell and its neighbours together, and with the points (and the values deformed in their
// order) stored in space order those pairs read nearby memory instead of rows scattered over the
// table (on randomly ordered tables this cuts the per-pair cache misses of the clauses checked on
// each pair). Only the engine's indexes change meaning: pairs still map to rows through point_row.
// Done to both sides, when both are in memory and an engine pair reads columns of either or
// the points themselves (box clauses decided natively) (start_scan); deterministic, so that two
// identical point sets stay identical (same_points).
void order_points(SimJoinState* st, Side* side) {
  const uint32 n = side->n_points;
  const int dim = st->ref.dim;
  if (side->ordered || n < 2 || dim <= 0) return;
  side->ordered = true;  // once: a side kept over rescans is not reordered
  double* lo = static_cast<double*>(palloc(sizeof(double) * dim));
  double* hi = static_cast<double*>(palloc(sizeof(double) * dim));
  const SpaceCurve curve = space_curve(side->points, n, dim, lo, hi);
  if (curve.n_axes == 0) {
    pfree(lo);
    pfree(hi);
    return;
  }
  std::uint64_t* keys = static_cast<std::uint64_t*>(
      MemoryContextAllocHuge(st->arrays_mcxt, sizeof(std::uint64_t) * n));
  std::uint64_t* scratch = static_cast<std::uint64_t*>(
      MemoryContextAllocHuge(st->arrays_mcxt, sizeof(std::uint64_t) * n));
  space_keys(curve, side->points, n, dim, keys);
  std::uint32_t* counts =
      static_cast<std::uint32_t*>(palloc(sizeof(std::uint32_t) * kSpaceSortBuckets));
  sort_space_keys(keys, scratch, n, counts);
  double* points = grow_join_points(st->points_mcxt, nullptr, 0,
                                    sizeof(double) * dim * static_cast<Size>(side->points_cap),
                                    st->points_shared);
  uint32* point_row = static_cast<uint32*>(
      MemoryContextAllocHuge(st->arrays_mcxt, sizeof(uint32) * static_cast<Size>(side->points_cap)));
  for (uint32 j = 0; j < n; ++j) {
    const uint32 p = static_cast<uint32>(keys[j]);
    std::memcpy(points + static_cast<Size>(j) * dim, side->points + static_cast<Size>(p) * dim,
                sizeof(double) * dim);
    point_row[j] = side->point_row[p];
  }
  free_join_points(side->points);
  pfree(side->point_row);
  side->points = points;
  side->point_row = point_row;
  if (side->boxes) {  // PostGIS keys' boxes, per point
    double* boxes = static_cast<double*>(
        MemoryContextAllocHuge(st->arrays_mcxt, sizeof(double) * 4 * static_cast<Size>(side->points_cap)));
    for (uint32 j = 0; j < n; ++j)
      std::memcpy(boxes + 4 * static_cast<Size>(j), side->boxes + 4 * static_cast<Size>(static_cast<uint32>(keys[j])),
                  sizeof(double) * 4);
    pfree(side->boxes);
    side->boxes = boxes;
  }
  if (side->values && !side->values_by_row && side->n_need > 0)  // deformed in the old order
    gather_values(st, side, n, [keys](uint32 j) { return static_cast<uint32>(keys[j]); });
  pfree(keys);
  pfree(scratch);
  pfree(counts);
  pfree(lo);
  pfree(hi);
}

}  // namespace simjoin::pg::cs
