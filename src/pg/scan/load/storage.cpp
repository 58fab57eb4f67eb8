// The SimilarityJoin custom scan's stored rows: a side's tuples, bump-allocated in memory
// (arena_alloc) or, past the side's memory limit, spilled to a temporary BufFile and read back one
// at a time (fetch_tuple).
#include "pg/scan/state.h"

#include "pg/progress/join_progress.h"

extern "C" {
#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "utils/memutils.h"
}

#include <algorithm>
#include <cstring>

namespace simjoin::pg::cs {

// Memory for one stored tuple: bump-allocated from blocks of tuple_mcxt (8 kB doubling up to
// 8 MB), MAXALIGNed, without a chunk header or a palloc per tuple; a tuple over 1 MB gets its own
// chunk. The blocks go with the context (reset_side, spill_side).
constexpr Size kArenaFirstBlock = 8 * 1024;
constexpr Size kArenaMaxBlock = 8 * 1024 * 1024;

char* bump_alloc(BumpArena* arena, MemoryContext cxt, Size length) {
  length = MAXALIGN(length);
  if (length > arena->left) {
    if (length > kArenaMaxBlock / 8) return static_cast<char*>(MemoryContextAlloc(cxt, length));
    Size block = arena->block ? std::min(arena->block * 2, kArenaMaxBlock) : kArenaFirstBlock;
    while (block < length) block *= 2;
    arena->next = static_cast<char*>(MemoryContextAlloc(cxt, block));
    arena->left = block;
    arena->block = block;
  }
  char* p = arena->next;
  arena->next += length;
  arena->left -= length;
  return p;
}

char* arena_alloc(Side* side, Size length) {
  return bump_alloc(&side->tuple_arena, side->tuple_mcxt, length);
}

namespace {

uint64 file_position(BufFile* file) {
  int fileno;
  off_t offset;
  BufFileTell(file, &fileno, &offset);
  return (static_cast<uint64>(fileno) << 32) | static_cast<uint64>(offset);
}

void reset_arena(Side* side) { side->tuple_arena = BumpArena{}; }

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

}  // namespace

// Memory for a side's tuples before they spill: hash_mem for the inner side; for the outer side
// at least 64 MB, as the outer chunks of the earlier, chunked executor had (its rows are fetched
// in the engine's order, which is random access once spilled).
Size side_memory_limit(const SimJoinState* st, const Side* side) {
  if (side == &st->inner) return st->memory_limit;
  return std::max<Size>(st->memory_limit, 64 * 1024 * 1024);
}

void store_tuple(SimJoinState* st, Side* side, TupleTableSlot* slot) {
  progress_add_rows(1);
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
    if (side->points) free_join_points(side->points);
    if (side->boxes) pfree(side->boxes);
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
  side->value_arena = BumpArena{};
  side->values_by_row = false;
  side->ordered = false;
  side->tuples = nullptr;
  side->offsets = nullptr;
  side->points = nullptr;
  side->boxes = nullptr;
  side->max_key_radius = side->box_reach = 0;
  side->point_row = nullptr;
  side->wild = nullptr;
  side->n = side->cap = 0;
  side->n_points = side->points_cap = 0;
  side->n_wild = side->wild_cap = 0;
  side->bytes = 0;
  side->loaded = false;
  side->current = kNoRow;
}

}  // namespace simjoin::pg::cs
