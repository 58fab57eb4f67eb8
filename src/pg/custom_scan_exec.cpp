// The SimilarityJoin custom scan's executor.
//
// Both children are read completely first (the engine needs every point): their tuples are kept
// as MinimalTuples in memory, or in a temporary BufFile once the inner side passes hash_mem
// (work_mem * hash_mem_multiplier) or the outer side max(hash_mem, 64 MB), and their keys as
// arrays of coordinates. Then the engine runs once, on a producer thread (PairStream,
// src/engine/pair_stream.h), and hands its batches of candidate pairs (sorted by inner row when
// the inner side is on disk) to a bounded queue; the executor pops one batch at a time and returns the pairs as scan
// tuples (outer columns followed by inner columns), while the engine computes the next batches.
// Each pair is checked with the join's clauses (plan qual) here, except the distance clause on
// the engine's pairs when the engine is exact (engine_is_exact), and cube box clauses, decided
// natively on the points (boxes_pass); ExecScan projects. The full result is never
// materialized: once the queue is full the engine waits for the executor, and when the executor
// stops pulling (LIMIT, a cursor closed early) the engine waits on its full queue, computing
// nothing, until EndCustomScan or ReScan stops it and joins its thread, which frees the GPU.
//
// The producer thread never calls PostgreSQL (it reads the pending-interrupt flags only); the GPU
// fallback and simjoin.explain NOTICEs are emitted here, on the backend's thread, once the stream
// ended. The executor waits for a batch in slices of kWaitMs with CHECK_FOR_INTERRUPTS() between
// them. The stream is owned through a reset callback of the arrays' memory context, so an ERROR
// anywhere (the context goes away with the query) also stops and joins the producer before the
// coordinates it reads are freed.
//
// Delivery (issue 4): an engine pair that needs no clause check (exact operator, no other join
// clause) is a copy of a few Datums: fast_scan takes it from the current batch and writes the
// needed columns of both rows, deformed once per stored row (deform_side), straight into the
// result slot when the targetlist is plain columns (project_engine_pair), bypassing ExecScan's
// per-tuple reset and ExecProject; every other candidate takes the general path. A side keeps
// no tuple for a row that only engine pairs read when its needed columns are by value
// (Side::values_only; the inner side only when its child can be read again, which it is, with
// its tuples, once a wild row shows up). A self-join whose children are the same scan reads it
// once (same_scan: the outer side shares the inner's arrays). When both sides hold the same points in
// the same order (a self-join) the engine runs as a self-join, which evaluates each pair of
// cells once (same_points). Where pairs read columns or points (box clauses), the points are
// put in space order first (order_points) and the values deformed
// in that order, varlena values copied next to each other (deform_side), so that the pairs of
// neighbouring points, which the engine reports together, read neighbouring memory. Stored
// tuples are bump-allocated (arena_alloc); a key's per-tuple memory is reset every 64 kB.
//
// C++ runs only inside cpp_guard (starting, polling and ending the stream); PostgreSQL calls made
// from there go through pg_call. Everything else is plain C-style code over palloc'd memory, so
// an ERROR anywhere leaves no C++ object behind but the stream, which the callback destroys.
#include "custom_scan_internal.h"

#include "engine_runner.h"
#include "enlarged_box.h"
#include "pair_stream.h"
#include "pg_guard.h"
#include "settings.h"
#include "space_order.h"

extern "C" {
#include "access/detoast.h"
#include "access/htup_details.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "storage/buffile.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
}

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <utility>

namespace simjoin::pg::cs {

namespace {

constexpr uint32 kNoRow = 0xFFFFFFFFu;
constexpr int kMaxPhases = 8;
constexpr size_t kQueueBatches = 4;  // batches of spec.batch_pairs waiting for the executor
constexpr int kWaitMs = 50;          // slice of the wait for a batch between interrupt checks

// Engine statistics summed over the scans (plain data: no destructors).
struct EngineTotals {
  uint64 runs;
  uint64 batches;
  uint64 candidates;
  uint64 pairs;
  uint64 stopped_early;
  int indexed_dims;
  char device[128];
  char algorithm[64];
  int phase_count;
  char phase_name[kMaxPhases][32];
  double phase_seconds[kMaxPhases];
};

// One child's rows: tuples (in memory or spilled), keys as coordinates, wild rows.
struct Side {
  MemoryContext tuple_mcxt;  // the tuples, in memory mode
  char* arena;               // the free part of the current block of tuples (copy_to_arena)
  Size arena_left;
  Size arena_block;          // size of the last block
  uint32 n;
  uint32 cap;
  MinimalTuple* tuples;
  BufFile* file;     // the tuples, once spilled
  uint64* offsets;   // (fileno << 32) | offset of each spilled tuple
  Size bytes;
  bool spilled;      // ever spilled (EXPLAIN)
  char* read_buffer;  // the spilled tuple held in the slot
  Size read_buffer_size;
  double* points;     // n_points x dim coordinates
  uint32* point_row;  // row of each point
  uint32 n_points;
  uint32 points_cap;
  uint32* wild;       // rows paired with every row of the other side
  uint32 n_wild;
  uint32 wild_cap;
  uint32 current;     // row stored in the side's slot (kNoRow: none)
  bool loaded;
  // The columns an engine pair needs (read by the projection or the clauses checked on it):
  // positions in the side's tuples. Often none (count(*)).
  int* need;
  int n_need;
  // Those columns of every row with a point, deformed once (in memory mode, when small
  // enough): values[point * n_need + k], in the order of the points (order_points); by-reference
  // values point into the stored tuples or to expanded copies. nullptr: each row is deformed
  // when needed (hold_row).
  Datum* values;
  bool* isnull;
  uint32 values_cap;
  // Only the wild rows' tuples are kept (tuples[row] / offsets[row] of the other rows unused):
  // the outer side when the inner side has no wild row (no pair reads an outer row with a point
  // but through values[]) and the columns an engine pair needs are by value and take no more
  // memory than the row's coordinates, which are kept in memory anyway (values_only_side).
  bool values_only;
  bool values_by_row;  // values[] are indexed by row, not yet by point (values_by_point)
  bool ordered;        // the points are in space order (order_points)
  bool borrowed;       // tuples, points, point_row and wild are the inner side's (same_scan)
};

// A cube box clause (cube_enlarge(x, r, n) @> y) decided natively on the engine's pairs.
struct BoxCheck {
  int position;       // in the plan's qual
  int enlarged_side;  // 0: the outer key is x, 1: the inner key
  ExprState* r;
  ExprState* n;
  double r_value;     // this scan's r
};

struct SimJoinState {
  CustomScanState css;  // first: the executor sees a CustomScanState

  FormInfo form;
  bool strict;          // the distance clause is dist < eps
  bool same_scan;       // both children return the same rows: the outer side copies the inner's
  bool inner_rereadable;   // the inner child returns the same rows when read again
  bool inner_needs_tuples;  // a wild row was met: the inner side keeps every tuple from now on
  bool outer_shared;    // this scan's outer side is that copy (EXPLAIN)
  int distance_qual;    // its position in the plan's qual when the engine is exact, else -1
  ExprState* engine_qual;  // checked on the engine's pairs (without the distance clause if exact)
  ExprState* wild_qual;    // checked on pairs with a wild row: every clause of the join
  BoxCheck* boxes;         // decided natively on the engine's pairs (not in engine_qual)
  int n_boxes;
  int outer_columns;
  int inner_columns;
  bool eps_is_float4;
  PlanState* outer_ps;
  PlanState* inner_ps;
  ExprState* outer_key;
  ExprState* inner_key;
  Bitmapset* inner_key_params;  // PARAM_EXEC ids the inner key reads: a change reloads the inner side
  ExprState* eps_expr;
  ExprContext* key_cxt;
  TupleTableSlot* outer_slot;  // holds a stored outer tuple
  TupleTableSlot* inner_slot;  // holds a stored inner tuple
  MemoryContext arrays_mcxt;   // arrays of both sides; owns the stream (reset callback)
  MemoryContextCallback stream_callback;
  Size memory_limit;

  // state of one scan
  bool started;
  bool finished;
  bool all_wild;     // every row is paired with every row (eps NaN, ST_DWithin eps < 0)
  bool use_engine;   // false when nothing can match (eps < 0)
  double eps;
  double bound;
  KeyRef ref;
  double* key_buffer;
  int key_buffer_dim;

  Side outer;
  Side inner;

  // Direct projection of the engine's pairs (no clause to check on them): the plan's targetlist
  // is plain scan-tuple columns, each read straight from a side's deformed values into the
  // result slot, skipping the scan tuple and ExecProject. out_side[j]: 0 outer, 1 inner;
  // out_need[j]: the column's position in that side's need[].
  bool direct_project;
  int n_out;
  int* out_side;
  int* out_need;

  // the engine's pairs
  PairStream* stream;  // running engine, or nullptr
  StreamBatch batch;   // the batch being handed out
  size_t batch_pos;
  int phase;  // 0: engine pairs, 1: wild outer x all inner, 2: outer points x wild inner
  uint32 wi, wj;

  // EvalPlanQual recheck: a nested loop over the children's test rows (recheck_scan_tuple)
  bool epq_outer_ready;  // outer_slot holds the current outer row; the inner child is being read

  // statistics
  uint64 candidates_out;
  uint64 wild_rows;
  EngineTotals totals;
};

// ---- growing palloc'd arrays -----------------------------------------------------------------

template <typename T>
void ensure_capacity(MemoryContext cxt, T** array, uint32* cap, size_t need, size_t width = 1) {
  if (need <= *cap) return;
  size_t next = *cap ? static_cast<size_t>(*cap) * 2 : 1024;
  while (next < need) next *= 2;
  if (next > kNoRow) next = kNoRow;
  if (need > next)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("simjoin: more than 2^32-1 rows on one side of a join")));
  const Size bytes = sizeof(T) * width * next;
  if (*array)
    *array = static_cast<T*>(repalloc_huge(*array, bytes));
  else
    *array = static_cast<T*>(MemoryContextAllocHuge(cxt, bytes));
  *cap = static_cast<uint32>(next);
}

// ---- keys ----------------------------------------------------------------------------------

constexpr int kNullKey = -1;
constexpr Size kKeyMemory = 64 * 1024;

// Evaluates a key on a child tuple. Returns kNullKey for NULL; else classifies it and, for
// KEY_OK, writes its coordinates to st->key_buffer. The key's memory is per tuple.
int evaluate_key(SimJoinState* st, ExprState* key, TupleTableSlot* slot) {
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
  KeyStatus status = classify_key(st->form, value, &st->ref);
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

// ---- the stored rows of a side ---------------------------------------------------------------

uint64 file_position(BufFile* file) {
  int fileno;
  off_t offset;
  BufFileTell(file, &fileno, &offset);
  return (static_cast<uint64>(fileno) << 32) | static_cast<uint64>(offset);
}

// Memory for one stored tuple: bump-allocated from blocks of tuple_mcxt (8 kB doubling up to
// 8 MB), MAXALIGNed, without a chunk header or a palloc per tuple; a tuple over 1 MB gets its own
// chunk. The blocks go with the context (reset_side, spill_side).
constexpr Size kArenaFirstBlock = 8 * 1024;
constexpr Size kArenaMaxBlock = 8 * 1024 * 1024;

char* arena_alloc(Side* side, Size length) {
  length = MAXALIGN(length);
  if (length > side->arena_left) {
    if (length > kArenaMaxBlock / 8) return static_cast<char*>(MemoryContextAlloc(side->tuple_mcxt, length));
    Size block = side->arena_block ? std::min(side->arena_block * 2, kArenaMaxBlock) : kArenaFirstBlock;
    while (block < length) block *= 2;
    side->arena = static_cast<char*>(MemoryContextAlloc(side->tuple_mcxt, block));
    side->arena_left = block;
    side->arena_block = block;
  }
  char* p = side->arena;
  side->arena += length;
  side->arena_left -= length;
  return p;
}

void reset_arena(Side* side) {
  side->arena = nullptr;
  side->arena_left = 0;
  side->arena_block = 0;
}

// ExecCopySlotMinimalTuple into the side's arena: a virtual slot (a child's projection) is
// formed in place as heap_form_minimal_tuple forms it; other slots' minimal tuples are copied.
MinimalTuple copy_to_arena(Side* side, TupleTableSlot* slot) {
  if (TTS_IS_VIRTUAL(slot)) {
    TupleDesc desc = slot->tts_tupleDescriptor;
    const int natts = desc->natts;
    if (natts > MaxTupleAttributeNumber)
      ereport(ERROR, (errcode(ERRCODE_TOO_MANY_COLUMNS),
                      errmsg("number of columns (%d) exceeds limit (%d)", natts,
                             MaxTupleAttributeNumber)));
    slot_getallattrs(slot);
    bool hasnull = false;
    for (int i = 0; i < natts && !hasnull; ++i) hasnull = slot->tts_isnull[i];
    const Size hoff = MAXALIGN(SizeofMinimalTupleHeader + (hasnull ? BITMAPLEN(natts) : 0));
    const Size data_length = heap_compute_data_size(desc, slot->tts_values, slot->tts_isnull);
    const Size length = hoff + data_length;
    if (!AllocSizeIsValid(length))
      ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                      errmsg("simjoin: row too large to store (%zu bytes)", length)));
    MinimalTuple tuple = reinterpret_cast<MinimalTuple>(arena_alloc(side, length));
    std::memset(tuple, 0, length);
    tuple->t_len = static_cast<uint32>(length);
    HeapTupleHeaderSetNatts(tuple, natts);
    tuple->t_hoff = static_cast<uint8>(hoff + MINIMAL_TUPLE_OFFSET);
    heap_fill_tuple(desc, slot->tts_values, slot->tts_isnull, reinterpret_cast<char*>(tuple) + hoff,
                    data_length, &tuple->t_infomask, hasnull ? tuple->t_bits : nullptr);
    return tuple;
  }
  bool should_free;
  MinimalTuple source = ExecFetchSlotMinimalTuple(slot, &should_free);
  MinimalTuple tuple = reinterpret_cast<MinimalTuple>(arena_alloc(side, source->t_len));
  std::memcpy(tuple, source, source->t_len);
  if (should_free) pfree(source);
  return tuple;
}

void spill_side(SimJoinState* st, Side* side) {
  MemoryContext old = MemoryContextSwitchTo(st->arrays_mcxt);
  side->file = BufFileCreateTemp(false);
  side->offsets = static_cast<uint64*>(
      MemoryContextAllocHuge(st->arrays_mcxt, sizeof(uint64) * std::max<uint32>(side->cap, 1)));
  MemoryContextSwitchTo(old);
  for (uint32 i = 0; i < side->n; ++i) {
    if (side->tuples[i] == nullptr) continue;  // values_only: a row without its tuple
    side->offsets[i] = file_position(side->file);
    BufFileWrite(side->file, side->tuples[i], side->tuples[i]->t_len);
  }
  MemoryContextReset(side->tuple_mcxt);
  reset_arena(side);
  pfree(side->tuples);
  side->tuples = nullptr;
  side->spilled = true;
}

// Memory for a side's tuples before they spill: hash_mem for the inner side; for the outer side
// at least 64 MB, as the outer chunks of the earlier, chunked executor had (its rows are fetched
// in the engine's order, which is random access once spilled).
Size side_memory_limit(const SimJoinState* st, const Side* side) {
  if (side == &st->inner) return st->memory_limit;
  return std::max<Size>(st->memory_limit, 64 * 1024 * 1024);
}

void store_tuple(SimJoinState* st, Side* side, TupleTableSlot* slot) {
  if (side->file) {
    ensure_capacity(st->arrays_mcxt, &side->offsets, &side->cap, side->n + 1);
    MinimalTuple tuple = ExecFetchSlotMinimalTuple(slot, nullptr);
    side->offsets[side->n++] = file_position(side->file);
    BufFileWrite(side->file, tuple, tuple->t_len);
    side->bytes += tuple->t_len;
    return;
  }
  ensure_capacity(st->arrays_mcxt, &side->tuples, &side->cap, side->n + 1);
  MinimalTuple tuple = copy_to_arena(side, slot);
  side->tuples[side->n++] = tuple;
  side->bytes += tuple->t_len;
  if (side->bytes > side_memory_limit(st, side)) spill_side(st, side);
}

// The stored tuple of a row; a spilled one is read into the side's buffer (valid until the next
// fetch from this side).
MinimalTuple fetch_tuple(SimJoinState* st, Side* side, uint32 row) {
  if (!side->file) return side->tuples[row];
  const uint64 position = side->offsets[row];
  if (BufFileSeek(side->file, static_cast<int>(position >> 32),
                  static_cast<off_t>(position & 0xFFFFFFFFu), SEEK_SET) != 0)
    ereport(ERROR, (errcode_for_file_access(), errmsg("simjoin: could not seek in temporary file")));
  uint32 length;
  if (BufFileRead(side->file, &length, sizeof length) != sizeof length)
    ereport(ERROR, (errcode_for_file_access(), errmsg("simjoin: could not read temporary file")));
  if (side->read_buffer_size < length) {
    if (side->read_buffer) pfree(side->read_buffer);
    side->read_buffer = static_cast<char*>(MemoryContextAlloc(st->arrays_mcxt, length * 2));
    side->read_buffer_size = length * 2;
  }
  std::memcpy(side->read_buffer, &length, sizeof length);
  const size_t rest = length - sizeof length;
  if (BufFileRead(side->file, side->read_buffer + sizeof length, rest) != rest)
    ereport(ERROR, (errcode_for_file_access(), errmsg("simjoin: could not read temporary file")));
  return reinterpret_cast<MinimalTuple>(side->read_buffer);
}

void reset_side(Side* side) {
  if (side->file) BufFileClose(side->file);
  side->file = nullptr;
  MemoryContextReset(side->tuple_mcxt);
  reset_arena(side);
  if (!side->borrowed) {
    if (side->tuples) pfree(side->tuples);
    if (side->points) pfree(side->points);
    if (side->point_row) pfree(side->point_row);
    if (side->wild) pfree(side->wild);
    if (side->values) pfree(side->values);
    if (side->isnull) pfree(side->isnull);
  }
  side->borrowed = false;
  if (side->offsets) pfree(side->offsets);
  side->values = nullptr;
  side->isnull = nullptr;
  side->values_cap = 0;
  side->values_only = false;
  side->values_by_row = false;
  side->ordered = false;
  side->tuples = nullptr;
  side->offsets = nullptr;
  side->points = nullptr;
  side->point_row = nullptr;
  side->wild = nullptr;
  side->n = side->cap = 0;
  side->n_points = side->points_cap = 0;
  side->n_wild = side->wild_cap = 0;
  side->bytes = 0;
  side->loaded = false;
  side->current = kNoRow;
}

// Whether a side may keep only its wild rows' tuples and the needed columns of the others
// (Side::values_only). The outer side: decided once the inner side is complete (no wild inner
// row: no pair reads an outer row's tuple). The inner side: when its child can be read again
// (inner_rereadable), since a wild row on either side pairs with every inner row's tuple; the
// executor then reads it again with its tuples (reread_inner_with_tuples).
bool values_only_side(const SimJoinState* st, const Side* side, PlanState* child, bool force_wild) {
  if (force_wild || st->all_wild) return false;
  if (side == &st->outer ? st->inner.n_wild > 0 || st->ref.dim <= 0
                         : !st->inner_rereadable || st->inner_needs_tuples)
    return false;
  const Size dim = static_cast<Size>(st->ref.dim > 0 ? st->ref.dim : 1);
  const Size per_row = static_cast<Size>(side->n_need) * (sizeof(Datum) + sizeof(bool));
  if (per_row > sizeof(double) * dim + sizeof(uint32)) return false;
  TupleDesc desc = ExecGetResultType(child);
  for (int c = 0; c < side->n_need; ++c)
    if (side->need[c] >= desc->natts || !TupleDescAttr(desc, side->need[c])->attbyval)
      return false;
  return true;
}

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

// A row of a values_only side: its needed columns into values[], its tuple only if it is wild.
void store_row_values(SimJoinState* st, Side* side, TupleTableSlot* slot, bool wild) {
  const uint32 row = side->n;
  const int k = side->n_need;
  if (k > 0) {
    if (row + 1 > side->values_cap) {
      uint32 cap = side->values_cap;
      ensure_capacity(st->arrays_mcxt, &side->values, &cap, row + 1, k);
      uint32 cap_isnull = side->values_cap;
      ensure_capacity(st->arrays_mcxt, &side->isnull, &cap_isnull, row + 1, k);
      side->values_cap = cap;
    }
    copy_needed_columns(side, slot, row);
  }
  if (wild) {
    store_tuple(st, side, slot);  // counts the row
    return;
  }
  if (side->file)
    ensure_capacity(st->arrays_mcxt, &side->offsets, &side->cap, row + 1);
  else {
    ensure_capacity(st->arrays_mcxt, &side->tuples, &side->cap, row + 1);
    side->tuples[row] = nullptr;
  }
  side->n++;
}

// Reads a child completely. force_wild (the outer side when every pair goes to the recheck):
// every row with a key is wild, and not counted as such. Returns false, the side incomplete,
// when a values_only inner side meets a wild row (its tuples are needed: load_inner).
bool load_side(SimJoinState* st, Side* side, PlanState* child, ExprState* key, bool force_wild) {
  side->values_only = values_only_side(st, side, child, force_wild);
  for (;;) {
    TupleTableSlot* slot = ExecProcNode(child);
    if (TupIsNull(slot)) break;
    CHECK_FOR_INTERRUPTS();
    int status = evaluate_key(st, key, slot);
    if (status == kNullKey) continue;  // never satisfies a strict distance
    const uint32 row = side->n;
    if (force_wild) status = KEY_WILD;
    if (status == KEY_WILD && side->values_only && side == &st->inner) return false;
    if (side->values_only)
      store_row_values(st, side, slot, status == KEY_WILD);
    else
      store_tuple(st, side, slot);
    if (status == KEY_OK) {
      const int dim = st->ref.dim;
      const uint32 before = side->points_cap;
      ensure_capacity(st->arrays_mcxt, &side->point_row, &side->points_cap, side->n_points + 1);
      if (!side->points || before != side->points_cap) {
        const Size bytes = sizeof(double) * dim * static_cast<size_t>(side->points_cap);
        side->points = static_cast<double*>(
            side->points ? repalloc_huge(side->points, bytes)
                         : MemoryContextAllocHuge(st->arrays_mcxt, bytes));
      }
      std::memcpy(side->points + static_cast<size_t>(side->n_points) * dim, st->key_buffer,
                  sizeof(double) * dim);
      side->point_row[side->n_points++] = row;
    } else if (status == KEY_WILD) {
      ensure_capacity(st->arrays_mcxt, &side->wild, &side->wild_cap, side->n_wild + 1);
      side->wild[side->n_wild++] = row;
      if (!force_wild) st->wild_rows++;
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

void values_by_point(SimJoinState* st, Side* side) {
  if (!side->values_by_row || side->n_need == 0 || side->values == nullptr) return;
  gather_values(st, side, side->n_points, [side](uint32 point) { return side->point_row[point]; });
  side->values_by_row = false;
}

// Reorders a side's points (with point_row) along a Z-order curve over its up to three widest
// dimensions, quantized to about 16 cells per point (space_order.h): the engine reports the pairs
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
  double* points = static_cast<double*>(
      MemoryContextAllocHuge(st->arrays_mcxt, sizeof(double) * dim * static_cast<Size>(side->points_cap)));
  uint32* point_row = static_cast<uint32*>(
      MemoryContextAllocHuge(st->arrays_mcxt, sizeof(uint32) * static_cast<Size>(side->points_cap)));
  for (uint32 j = 0; j < n; ++j) {
    const uint32 p = static_cast<uint32>(keys[j]);
    std::memcpy(points + static_cast<Size>(j) * dim, side->points + static_cast<Size>(p) * dim,
                sizeof(double) * dim);
    point_row[j] = side->point_row[p];
  }
  pfree(side->points);
  pfree(side->point_row);
  side->points = points;
  side->point_row = point_row;
  if (side->values && !side->values_by_row && side->n_need > 0)  // deformed in the old order
    gather_values(st, side, n, [keys](uint32 j) { return static_cast<uint32>(keys[j]); });
  pfree(keys);
  pfree(scratch);
  pfree(counts);
  pfree(lo);
  pfree(hi);
}

// ---- the engine on its producer thread --------------------------------------------------------

void add_totals(EngineTotals* t, const JoinStats& stats) {
  t->runs++;
  t->batches += stats.batches;
  t->candidates += stats.candidates;
  t->pairs += stats.pairs;
  if (stats.stopped) t->stopped_early++;
  t->indexed_dims = stats.indexed_dims;
  std::snprintf(t->device, sizeof t->device, "%s", stats.device.c_str());
  std::snprintf(t->algorithm, sizeof t->algorithm, "%s", stats.algorithm.c_str());
  for (const auto& [name, seconds] : stats.phase_seconds) {
    int k = 0;
    while (k < t->phase_count && std::strcmp(t->phase_name[k], name.c_str()) != 0) ++k;
    if (k == t->phase_count) {
      if (k == kMaxPhases) continue;
      std::snprintf(t->phase_name[k], sizeof t->phase_name[k], "%s", name.c_str());
      t->phase_seconds[k] = 0;
      t->phase_count++;
    }
    t->phase_seconds[k] += seconds;
  }
}

// Stops and joins the producer and frees the stream; never raises. Also the arrays context's
// reset callback: on an ERROR the query's memory goes away, and the producer (which reads the
// coordinates in that context) is stopped before it is freed.
void destroy_stream(void* arg) {
  SimJoinState* st = static_cast<SimJoinState*>(arg);
  PairStream* stream = st->stream;
  st->stream = nullptr;
  st->batch = StreamBatch{};
  st->batch_pos = 0;
  delete stream;  // stop(): noexcept
}

// Whether both sides hold the same points in the same order (a self-join, both children reading
// the same rows): the engine then joins one set with itself (SelfPairs::All: every pair (i, j)
// and (j, i) with d <= bound, and (i, i)), which is the same set of index pairs as the two-input
// join of two identical sets, at about half the work (each pair of cells once). The distances
// are symmetric bit for bit ((a - b)^2 = (b - a)^2, |a - b| = |b - a|), and d(p, p) = 0 is within
// any bound the engine runs with (an engine run needs bound >= 0). Compared bytewise, so -0.0
// against 0.0 or differing NaN payloads (never in points anyway) only cost the shortcut.
bool same_points(const SimJoinState* st) {
  const Side& a = st->outer;
  const Side& b = st->inner;
  if (a.n_points != b.n_points || a.n_points == 0) return false;
  if (a.points == b.points) return true;  // borrowed (same_scan)
  return std::memcmp(a.points, b.points,
                     sizeof(double) * static_cast<size_t>(a.n_points) * st->ref.dim) == 0;
}

void start_stream(SimJoinState* st) {
  const bool self_join = same_points(st);
  cpp_guard([st, self_join] {
    PointSet left;
    left.coords = st->outer.points;
    left.n = st->outer.n_points;
    left.dim = st->ref.dim;
    PointSet right;
    right.coords = st->inner.points;
    right.n = st->inner.n_points;
    right.dim = st->ref.dim;
    JoinSpec spec = spec_from_settings(st->bound, st->form.metric);
    spec.self_pairs = SelfPairs::All;
    PairStream::Options options = stream_options();
    options.queue_batches = kQueueBatches;
    options.keep_distance = false;  // the recheck decides; distances are not needed
    options.order_by_right = st->inner.file != nullptr;  // inner rows read from disk in order
    st->stream = new PairStream(left, self_join ? nullptr : &right, spec, std::move(options));
  });
  st->batch = StreamBatch{};
  st->batch_pos = 0;
}

// The stream ended by itself: totals, NOTICEs, the engine's error. Returns true when the engine
// stopped for an interrupt.
bool finish_stream(SimJoinState* st) {
  return cpp_guard([st]() -> bool {
    PairStream* stream = st->stream;
    const JoinStats stats = stream->stats();
    const std::exception_ptr error = stream->error();
    const std::string note = stream->fallback_note();
    destroy_stream(st);
    if (error) std::rethrow_exception(error);
    add_totals(&st->totals, stats);
    report_join(stats, note);
    return stats.stopped;
  });
}

// The executor needs no more pairs (LIMIT, end of the scan, rescan): stops the engine early. An
// engine error after that point is of no consequence and dropped.
void stop_stream(SimJoinState* st) {
  if (!st->stream) return;
  cpp_guard([st] {
    st->stream->stop();
    const JoinStats stats = st->stream->stats();
    const bool failed = static_cast<bool>(st->stream->error());
    const std::string note = st->stream->fallback_note();
    destroy_stream(st);
    if (failed) return;
    add_totals(&st->totals, stats);
    report_join(stats, note);
  });
}

// Makes the next batch current. Returns false when the engine's pairs are exhausted.
bool next_batch(SimJoinState* st) {
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    const PairStream::Next next = cpp_guard([st] {
      return st->stream->next(&st->batch, std::chrono::milliseconds(kWaitMs));
    });
    if (next == PairStream::Next::Batch) {
      st->batch_pos = 0;
      return true;
    }
    if (next == PairStream::Next::End) {
      raise_if_interrupted(finish_stream(st));
      return false;
    }
  }
}

// ---- pairs and scan tuples --------------------------------------------------------------------

// The next candidate: in phase 0 (the engine's pairs) the indexes of two points, else of two rows.
bool next_candidate(SimJoinState* st, uint32* outer_row, uint32* inner_row) {
  for (;;) {
    switch (st->phase) {
      case 0:  // the engine's pairs
        if (st->batch_pos < st->batch.size) {
          // points, not rows: form_engine_pair maps them when it needs the rows
          *outer_row = st->batch.left[st->batch_pos];
          *inner_row = st->batch.right[st->batch_pos];
          st->batch_pos++;
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

TupleTableSlot* form_engine_pair(SimJoinState* st, uint32 outer_point, uint32 inner_point) {
  TupleTableSlot* scan = st->css.ss.ss_ScanTupleSlot;
  ExecClearTuple(scan);
  copy_needed(st, &st->outer, st->outer_slot, outer_point, scan, 0);
  copy_needed(st, &st->inner, st->inner_slot, inner_point, scan, st->outer_columns);
  st->candidates_out++;
  return ExecStoreVirtualTuple(scan);
}

// fast_scan's direct path (defined below, after next_scan_tuple).
TupleTableSlot* next_scan_tuple(ScanState* node);

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

void start_scan(SimJoinState* st) {
  st->started = true;
  st->finished = false;
  st->phase = 3;
  ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
  ResetExprContext(econtext);
  bool isnull;
  const Datum eps = ExecEvalExprSwitchContext(st->eps_expr, econtext, &isnull);
  if (isnull) {  // dist <= NULL and ST_DWithin(x, y, NULL) are never true
    st->finished = true;
    return;
  }
  st->eps = st->eps_is_float4 ? static_cast<double>(DatumGetFloat4(eps)) : DatumGetFloat8(eps);
  // eps NaN: PostgreSQL's float order puts NaN above everything, so d <= NaN holds for every d;
  // ST_DWithin with a negative eps raises an error. Both: every pair goes to the recheck.
  st->all_wild = std::isnan(st->eps) || (st->form.dwithin && st->eps < 0);
  // A box clause with a NULL r or n is NULL on every pair: no engine pair passes it.
  bool boxes_null = false;
  for (int k = 0; k < st->n_boxes; ++k) {
    bool r_null, n_null;
    const Datum r = ExecEvalExprSwitchContext(st->boxes[k].r, econtext, &r_null);
    ExecEvalExprSwitchContext(st->boxes[k].n, econtext, &n_null);
    boxes_null = boxes_null || r_null || n_null;
    st->boxes[k].r_value = r_null ? 0.0 : DatumGetFloat8(r);
  }
  if (!st->inner.loaded) load_inner(st);
  if (st->inner.n == 0) {  // nothing to join: the outer side is not read at all
    st->finished = true;
    return;
  }
  st->outer_shared = st->same_scan && !st->all_wild && !st->inner.file;
  if (!st->outer_shared) {
    load_side(st, &st->outer, st->outer_ps, st->outer_key, st->all_wild);
    if (st->inner.values_only && st->outer.n_wild > 0) reread_inner_with_tuples(st);
  }
  st->bound = st->distance_qual >= 0 ? exact_bound(st->eps, st->strict)
                                     : engine_bound(st->form, st->eps, st->ref.dim);
  st->use_engine = !st->all_wild && !std::isnan(st->bound) && !boxes_null;
  const bool space_order = st->use_engine && !st->inner.file && !st->outer.file &&
                           (st->inner.n_need + st->outer.n_need > 0 || st->n_boxes > 0);
  if (space_order) order_points(st, &st->inner);
  values_by_point(st, &st->inner);
  deform_side(st, &st->inner, st->inner_slot);
  if (st->outer_shared) {
    share_inner_side(st);  // the inner side as it is now: ordered, values by point, deformed
  } else {
    if (space_order) order_points(st, &st->outer);
    values_by_point(st, &st->outer);
    deform_side(st, &st->outer, st->outer_slot);
  }
  elog(DEBUG2, "simjoin: eps=%g bound=%g all_wild=%d dim=%d inner=%u points=%u wild=%u outer=%u points=%u wild=%u",
       st->eps, st->bound, st->all_wild, st->ref.dim, st->inner.n, st->inner.n_points,
       st->inner.n_wild, st->outer.n, st->outer.n_points, st->outer.n_wild);
  st->phase = 0;
  st->wi = st->wj = 0;
  if (st->use_engine && st->outer.n_points > 0 && st->inner.n_points > 0) start_stream(st);
}

// Whether an engine pair (point indexes) passes the box clauses decided natively.
inline bool boxes_pass(const SimJoinState* st, uint32 outer_point, uint32 inner_point) {
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
      st->finished = true;
      return nullptr;
    }
    const bool engine_pair = st->phase == 0;
    if (engine_pair && !boxes_pass(st, outer_row, inner_row)) {
      InstrCountFiltered1(node, 1);
      continue;
    }
    TupleTableSlot* slot = engine_pair ? form_engine_pair(st, outer_row, inner_row)
                                       : form_pair(st, outer_row, inner_row);
    ExprState* qual = engine_pair ? st->engine_qual : st->wild_qual;
    if (qual == nullptr) return slot;
    econtext->ecxt_scantuple = slot;
    if (ExecQual(qual, econtext)) return slot;
    InstrCountFiltered1(node, 1);
    ResetExprContext(econtext);
  }
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

// ExecScan's loop without its per-tuple overheads where they are not needed: the engine's pairs
// of the current batch that need no clause check (simjoin's exact operators with no other join
// clause) go straight to the result slot (or are the scan tuple when there is no projection).
// Everything else takes next_scan_tuple and ExecProject as in ExecScan. Under EvalPlanQual
// ExecScan itself runs (exec_scan).
TupleTableSlot* fast_scan(SimJoinState* st) {
  ScanState* node = &st->css.ss;
  ProjectionInfo* projection = node->ps.ps_ProjInfo;
  while (st->phase == 0 && st->batch_pos < st->batch.size && st->engine_qual == nullptr &&
         (projection == nullptr || st->direct_project)) {
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

// ---- callbacks -------------------------------------------------------------------------------

Node* create_state(CustomScan* cscan);
void begin_scan(CustomScanState* node, EState* estate, int eflags);
TupleTableSlot* exec_scan(CustomScanState* node);
void end_scan(CustomScanState* node);
void rescan(CustomScanState* node);
void explain_scan(CustomScanState* node, List* ancestors, ExplainState* es);

CustomExecMethods exec_methods;

// Collects the scan tuple columns (INDEX_VAR attnos, 1-based) an expression reads; a whole-row
// reference reads them all.
bool collect_index_vars(Node* node, void* context) {
  if (node == nullptr) return false;
  if (IsA(node, Var)) {
    Var* var = reinterpret_cast<Var*>(node);
    if (var->varno == INDEX_VAR) {
      Bitmapset** columns = static_cast<Bitmapset**>(context);
      *columns = bms_add_member(*columns, var->varattno > 0 ? var->varattno : 0);
    }
    return false;
  }
  return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(collect_index_vars)), context);
}

// The columns of a side that an engine pair needs: positions first .. first + count - 1 of the
// scan tuple that `columns` holds (all of them when it holds 0, a whole-row reference).
void set_needed_columns(Side* side, Bitmapset* columns, int first, int count) {
  side->need = static_cast<int*>(palloc(sizeof(int) * Max(count, 1)));
  side->n_need = 0;
  const bool all = bms_is_member(0, columns);
  for (int c = 0; c < count; ++c)
    if (all || bms_is_member(first + c + 1, columns)) side->need[side->n_need++] = c;
}

bool shift_index_vars(Node* node, void* context) {
  if (node == nullptr) return false;
  if (IsA(node, Var)) {
    Var* var = reinterpret_cast<Var*>(node);
    if (var->varno == INDEX_VAR) var->varattno -= *static_cast<int*>(context);
    return false;
  }
  return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(shift_index_vars)), context);
}

// The position of column c in a side's need[] (-1 if not needed).
int need_position(const Side* side, int c) {
  for (int k = 0; k < side->n_need; ++k)
    if (side->need[k] == c) return k;
  return -1;
}

// Whether the projection is plain scan-tuple columns (or nothing, as for count(*)): then an
// engine pair's output is a copy of the sides' values (project_engine_pair).
void set_direct_projection(SimJoinState* st, List* targetlist) {
  st->direct_project = false;
  st->n_out = list_length(targetlist);
  st->out_side = static_cast<int*>(palloc(sizeof(int) * Max(st->n_out, 1)));
  st->out_need = static_cast<int*>(palloc(sizeof(int) * Max(st->n_out, 1)));
  TupleTableSlot* result = st->css.ss.ps.ps_ResultTupleSlot;
  if (st->css.ss.ps.ps_ProjInfo == nullptr || result == nullptr ||
      result->tts_tupleDescriptor->natts != st->n_out)
    return;
  int j = 0;
  ListCell* cell;
  foreach (cell, targetlist) {
    Expr* expr = static_cast<TargetEntry*>(lfirst(cell))->expr;
    if (!IsA(expr, Var)) return;
    const Var* var = reinterpret_cast<const Var*>(expr);
    if (var->varno != INDEX_VAR || var->varattno < 1 ||
        var->varattno > st->outer_columns + st->inner_columns)
      return;
    const int column = var->varattno - 1;
    const bool outer = column < st->outer_columns;
    const Side* side = outer ? &st->outer : &st->inner;
    const int k = need_position(side, outer ? column : column - st->outer_columns);
    if (k < 0) return;
    st->out_side[j] = outer ? 0 : 1;
    st->out_need[j] = k;
    ++j;
  }
  st->direct_project = true;
}

int private_int(List* priv, int index) { return intVal(list_nth(priv, index)); }

Node* create_state(CustomScan* cscan) {
  return cpp_guard([cscan]() -> Node* {
    return pg_call([cscan]() -> Node* {
      SimJoinState* st = static_cast<SimJoinState*>(palloc0(sizeof(SimJoinState)));
      NodeSetTag(st, T_CustomScanState);
      st->css.methods = &exec_methods;
      List* priv = cscan->custom_private;
      st->form.kind = static_cast<KeyKind>(private_int(priv, PRIV_KIND));
      st->form.metric = static_cast<Metric>(private_int(priv, PRIV_METRIC));
      st->form.cosine = private_int(priv, PRIV_COSINE) != 0;
      st->form.dwithin = private_int(priv, PRIV_DWITHIN) != 0;
      st->form.float32 = private_int(priv, PRIV_FLOAT32) != 0;
      st->outer_columns = private_int(priv, PRIV_OUTER_COLUMNS);
      st->distance_qual = private_int(priv, PRIV_DISTANCE_QUAL);
      st->strict = private_int(priv, PRIV_STRICT) != 0;
      st->same_scan = private_int(priv, PRIV_SAME_SCAN) != 0;
      st->inner_rereadable = private_int(priv, PRIV_INNER_REREADABLE) != 0;
      st->n_boxes = private_int(priv, PRIV_BOX_COUNT);
      st->boxes = static_cast<BoxCheck*>(palloc0(sizeof(BoxCheck) * Max(st->n_boxes, 1)));
      for (int k = 0; k < st->n_boxes; ++k) {
        st->boxes[k].position = private_int(priv, PRIV_COUNT + 2 * k);
        st->boxes[k].enlarged_side = private_int(priv, PRIV_COUNT + 2 * k + 1);
      }
      return reinterpret_cast<Node*>(st);
    });
  });
}


void begin_scan_impl(CustomScanState* node, EState* estate, int eflags) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  CustomScan* cscan = reinterpret_cast<CustomScan*>(node->ss.ps.plan);
  // Candidates come out of the engine's stream: no backward scan or mark/restore of our own; the
  // children are read once (per rescan), forward.
  const int child_flags = eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
  st->outer_ps = ExecInitNode(static_cast<Plan*>(linitial(cscan->custom_plans)), estate,
                              child_flags);
  st->inner_ps = ExecInitNode(static_cast<Plan*>(lsecond(cscan->custom_plans)), estate,
                              child_flags);
  node->custom_ps = list_make2(st->outer_ps, st->inner_ps);
  // The join's clauses are checked in next_scan_tuple, not by ExecScan: ExecInitCustomScan
  // initialized every clause (the wild pairs' qual); the engine's pairs skip the distance
  // clause where the engine is exact.
  st->wild_qual = node->ss.ps.qual;
  st->engine_qual = st->wild_qual;
  List* engine_clauses = cscan->scan.plan.qual;
  if (st->distance_qual >= 0) {
    engine_clauses = NIL;
    int position = 0;
    ListCell* qc;
    foreach (qc, cscan->scan.plan.qual) {
      bool native = position == st->distance_qual;
      for (int k = 0; k < st->n_boxes; ++k) native = native || position == st->boxes[k].position;
      if (!native) engine_clauses = lappend(engine_clauses, lfirst(qc));
      ++position;
    }
    st->engine_qual = ExecInitQual(engine_clauses, &node->ss.ps);
  }
  for (int k = 0; k < st->n_boxes; ++k) {
    st->boxes[k].r = ExecInitExpr(
        static_cast<Expr*>(list_nth(cscan->custom_exprs, EXPR_BOX_FIRST + 2 * k)), &node->ss.ps);
    st->boxes[k].n = ExecInitExpr(
        static_cast<Expr*>(list_nth(cscan->custom_exprs, EXPR_BOX_FIRST + 2 * k + 1)), &node->ss.ps);
  }
  node->ss.ps.qual = nullptr;
  st->inner_columns = list_length(cscan->custom_scan_tlist) - st->outer_columns;
  // The columns an engine pair needs: those of the projection and of the clauses checked on it
  // (all of them when the scan tuple is returned unprojected).
  Bitmapset* needed = nullptr;
  collect_index_vars(reinterpret_cast<Node*>(cscan->scan.plan.targetlist), &needed);
  collect_index_vars(reinterpret_cast<Node*>(engine_clauses), &needed);
  if (node->ss.ps.ps_ProjInfo == nullptr) needed = bms_add_member(needed, 0);
  if (st->same_scan) {
    // The shared outer side uses the inner side's deformed values (share_inner_side): both
    // sides need the union of their columns (the children's target lists are equal).
    Bitmapset* both = bms_copy(needed);
    for (int c = 1; c <= st->outer_columns; ++c) {
      if (bms_is_member(c, needed)) both = bms_add_member(both, st->outer_columns + c);
      if (bms_is_member(st->outer_columns + c, needed)) both = bms_add_member(both, c);
    }
    needed = both;
  }
  set_needed_columns(&st->outer, needed, 0, st->outer_columns);
  set_needed_columns(&st->inner, needed, st->outer_columns, st->inner_columns);
  set_direct_projection(st, cscan->scan.plan.targetlist);
  // Columns an engine pair does not set read as NULL until a wild pair fills them.
  TupleTableSlot* scan = node->ss.ss_ScanTupleSlot;
  for (int c = 0; c < scan->tts_tupleDescriptor->natts; ++c) scan->tts_isnull[c] = true;

  // Keys are evaluated directly on the children's tuples: the outer key's columns are the
  // first ones of the scan tuple already, the inner key's are shifted. No parent: the
  // expressions must deform whatever slot type a child returns.
  Expr* outer_key = static_cast<Expr*>(list_nth(cscan->custom_exprs, EXPR_OUTER_KEY));
  Expr* inner_key =
      static_cast<Expr*>(copyObjectImpl(list_nth(cscan->custom_exprs, EXPR_INNER_KEY)));
  int shift = st->outer_columns;
  shift_index_vars(reinterpret_cast<Node*>(inner_key), &shift);
  st->outer_key = ExecInitExpr(outer_key, nullptr);
  st->inner_key = ExecInitExpr(inner_key, nullptr);
  st->inner_key_params = pull_paramids(inner_key);
  Expr* eps = static_cast<Expr*>(list_nth(cscan->custom_exprs, EXPR_EPS));
  st->eps_is_float4 = exprType(reinterpret_cast<Node*>(eps)) == FLOAT4OID;
  st->eps_expr = ExecInitExpr(eps, &node->ss.ps);
  st->key_cxt = CreateExprContext(estate);
  st->outer_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(st->outer_ps),
                                          &TTSOpsMinimalTuple);
  st->inner_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(st->inner_ps),
                                          &TTSOpsMinimalTuple);
  st->inner.tuple_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin inner tuples",
                                               ALLOCSET_DEFAULT_SIZES);
  st->outer.tuple_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin outer tuples",
                                               ALLOCSET_DEFAULT_SIZES);
  st->arrays_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin arrays",
                                          ALLOCSET_DEFAULT_SIZES);
  // Whatever ends this context (EndCustomScan, or the query's memory going away after an ERROR)
  // first stops the engine, which reads the coordinates stored in it.
  st->stream_callback.func = destroy_stream;
  st->stream_callback.arg = st;
  MemoryContextRegisterResetCallback(st->arrays_mcxt, &st->stream_callback);
  st->memory_limit = get_hash_memory_limit();
  st->outer.current = st->inner.current = kNoRow;
  st->ref = KeyRef{};  // palloc0 gave dim 0, not "unknown"
  st->phase = 3;
}

void begin_scan(CustomScanState* node, EState* estate, int eflags) {
  cpp_guard([&] { pg_call([&] { begin_scan_impl(node, estate, eflags); }); });
}

TupleTableSlot* exec_scan(CustomScanState* node) {
  // next_scan_tuple checks the join clauses on each candidate; ExecScan (or fast_scan, its
  // equivalent outside EvalPlanQual) projects.
  if (node->ss.ps.state->es_epq_active == nullptr)
    return fast_scan(reinterpret_cast<SimJoinState*>(node));
  return ExecScan(&node->ss, next_scan_tuple, recheck_scan_tuple);
}

void end_scan(CustomScanState* node) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  stop_stream(st);
  if (st->inner.file) BufFileClose(st->inner.file);
  if (st->outer.file) BufFileClose(st->outer.file);
  st->inner.file = st->outer.file = nullptr;
  ExecEndNode(st->outer_ps);
  ExecEndNode(st->inner_ps);
  MemoryContextDelete(st->outer.tuple_mcxt);
  MemoryContextDelete(st->inner.tuple_mcxt);
  MemoryContextDelete(st->arrays_mcxt);
}

void rescan(CustomScanState* node) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  stop_stream(st);
  Bitmapset* changed = node->ss.ps.chgParam;
  if (changed) {
    UpdateChangedParamSet(st->outer_ps, changed);
    UpdateChangedParamSet(st->inner_ps, changed);
  }
  st->started = false;
  st->finished = false;
  st->phase = 3;
  st->epq_outer_ready = false;
  // The outer side is read again; the inner side is kept when complete and neither its child's
  // parameters nor those its key expression reads changed (as a hash join keeps its table); a
  // child with changed parameters is rescanned by its next ExecProcNode.
  reset_side(&st->outer);
  if (!st->inner.loaded || st->inner_ps->chgParam != nullptr ||
      bms_overlap(changed, st->inner_key_params)) {
    reset_side(&st->inner);
    st->ref = KeyRef{};
    if (st->inner_ps->chgParam == nullptr) ExecReScan(st->inner_ps);
  }
  if (st->outer_ps->chgParam == nullptr) ExecReScan(st->outer_ps);
}

const char* device_name() {
  switch (static_cast<Device>(device_setting)) {
    case Device::Gpu:
      return "gpu";
    case Device::Cpu:
      return "cpu";
    default:
      return "auto";
  }
}


void explain_scan(CustomScanState* node, List* ancestors, ExplainState* es) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  CustomScan* cscan = reinterpret_cast<CustomScan*>(node->ss.ps.plan);
  ExplainPropertyText("Distance", form_label(st->form), es);
  List* context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
  char* eps = deparse_expression(static_cast<Node*>(list_nth(cscan->custom_exprs, EXPR_EPS)),
                                 context, es->verbose, false);
  ExplainPropertyText("Eps", eps, es);
  // The device setting is machine-specific (gpu on a GPU machine's test run): a detail.
  if (explain_details_setting) ExplainPropertyText("Device", device_name(), es);
  ExplainPropertyText("Algorithm", "auto", es);
  if (!es->analyze) return;
  // EXPLAIN ANALYZE (or auto_explain) runs once nothing more will be fetched: an engine still
  // running (under a LIMIT it waits on its full queue) is stopped now, to report what it did.
  stop_stream(st);
  if (st->totals.runs == 0) {
    ExplainPropertyInteger("Candidate Pairs", nullptr, static_cast<int64>(st->candidates_out), es);
    return;
  }
  EngineTotals* t = &st->totals;
  // The Engine line names the device, the algorithm it chose and the timings: machine details.
  // The counters below are the same on every machine (Engine Pairs of a run stopped early,
  // under a LIMIT, depends on timing).
  if (explain_details_setting) {
    char line[1024];
    line[0] = '\0';
    cpp_guard([&] {
      JoinStats stats;
      stats.device = t->device;
      stats.algorithm = t->algorithm;
      stats.indexed_dims = t->indexed_dims;
      stats.batches = t->batches;
      stats.candidates = t->candidates;
      stats.pairs = t->pairs;
      for (int k = 0; k < t->phase_count; ++k)
        stats.phase_seconds.emplace_back(t->phase_name[k], t->phase_seconds[k]);
      describe_join(stats, line, sizeof line);
    });
    ExplainPropertyText("Engine", line, es);
  }
  ExplainPropertyInteger("Engine Runs", nullptr, static_cast<int64>(t->runs), es);
  ExplainPropertyInteger("Engine Runs Stopped Early", nullptr,
                         static_cast<int64>(t->stopped_early), es);
  ExplainPropertyInteger("Engine Pairs", nullptr, static_cast<int64>(t->pairs), es);
  ExplainPropertyInteger("Candidate Pairs", nullptr, static_cast<int64>(st->candidates_out), es);
  ExplainPropertyInteger("Wild Rows", nullptr, static_cast<int64>(st->wild_rows), es);
  ExplainPropertyText("Distance Clause",
                      st->distance_qual >= 0 ? "engine (exact), wild rows rechecked" : "rechecked",
                      es);
  ExplainPropertyInteger("Box Clauses Decided Natively", nullptr, st->n_boxes, es);
  ExplainPropertyText("Inner Storage", st->inner.spilled ? "disk" : "memory", es);
  ExplainPropertyInteger("Inner Bytes", "kB", static_cast<int64>(st->inner.bytes / 1024), es);
  ExplainPropertyText("Outer Storage",
                      st->outer_shared ? "the inner side's rows"
                                       : st->outer.spilled ? "disk" : "memory",
                      es);
  ExplainPropertyInteger("Outer Bytes", "kB", static_cast<int64>(st->outer.bytes / 1024), es);
}

}  // namespace

CustomScanMethods scan_methods = {"SimilarityJoin", create_state};

void init_exec_methods() {
  exec_methods.CustomName = "SimilarityJoin";
  exec_methods.BeginCustomScan = begin_scan;
  exec_methods.ExecCustomScan = exec_scan;
  exec_methods.EndCustomScan = end_scan;
  exec_methods.ReScanCustomScan = rescan;
  exec_methods.MarkPosCustomScan = nullptr;
  exec_methods.RestrPosCustomScan = nullptr;
  exec_methods.EstimateDSMCustomScan = nullptr;
  exec_methods.InitializeDSMCustomScan = nullptr;
  exec_methods.ReInitializeDSMCustomScan = nullptr;
  exec_methods.InitializeWorkerCustomScan = nullptr;
  // No ShutdownCustomScan: PostgreSQL 15 calls it after every portion of a cursor, which may be
  // fetched from again; an engine stopped there could not resume. EndCustomScan stops it.
  exec_methods.ShutdownCustomScan = nullptr;
  exec_methods.ExplainCustomScan = explain_scan;
}

}  // namespace simjoin::pg::cs
