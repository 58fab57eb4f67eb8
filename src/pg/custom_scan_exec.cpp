// The SimilarityJoin custom scan's executor.
//
// Inner child: read completely first (like a hash join's build side); its tuples are kept as
// MinimalTuples in memory, or in a temporary BufFile once they pass hash_mem (work_mem *
// hash_mem_multiplier), and its keys as an array of coordinates for the engine.
// Outer child: read in chunks (the first one small, so that LIMIT and cursors get rows early;
// then growing, bounded in memory). For each chunk the engine joins the chunk's keys with the
// inner keys at a widened bound; the candidate pairs are buffered (in memory, spilling to a
// BufFile past hash_mem) and handed out one at a time as scan tuples (outer columns followed by
// inner columns); ExecScan rechecks every clause of the join (plan qual) and projects.
//
// C++ runs only inside cpp_guard (the engine call, sorting); PostgreSQL calls made from there go
// through pg_call. Everything else is plain C-style code over palloc'd memory, so an ERROR
// anywhere leaves no C++ object behind and memory goes with the query's context.
#include "custom_scan_internal.h"

#include "engine_runner.h"
#include "pg_guard.h"
#include "settings.h"

extern "C" {
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "storage/buffile.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
}

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstring>

namespace simjoin::pg::cs {

namespace {

constexpr uint32 kNoRow = 0xFFFFFFFFu;
constexpr uint32 kFirstChunkRows = 1024;
constexpr int kMaxPhases = 8;
constexpr size_t kPairReadBlock = 8192;

// Engine statistics summed over the chunks (plain data: no destructors).
struct EngineTotals {
  uint64 runs;
  uint64 batches;
  uint64 candidates;
  uint64 pairs;
  int indexed_dims;
  char device[128];
  char algorithm[64];
  int phase_count;
  char phase_name[kMaxPhases][32];
  double phase_seconds[kMaxPhases];
};

struct SimJoinState {
  CustomScanState css;  // first: the executor sees a CustomScanState

  FormInfo form;
  int outer_columns;
  int inner_columns;
  bool eps_is_float4;
  PlanState* outer_ps;
  PlanState* inner_ps;
  ExprState* outer_key;
  ExprState* inner_key;
  ExprState* eps_expr;
  ExprContext* key_cxt;
  TupleTableSlot* outer_slot;  // holds a stored outer tuple
  TupleTableSlot* inner_slot;  // holds a stored inner tuple
  MemoryContext inner_mcxt;    // inner tuples (in memory mode)
  MemoryContext arrays_mcxt;   // inner/chunk arrays, pair buffer
  MemoryContext chunk_mcxt;    // outer chunk tuples
  Size memory_limit;

  // state of one scan
  bool started;
  bool finished;
  bool outer_done;
  bool all_wild;     // every row is paired with every row (eps NaN, ST_DWithin eps < 0)
  bool use_engine;   // false when nothing can match (eps < 0)
  double eps;
  double bound;
  KeyRef ref;

  // inner side
  bool inner_loaded;
  uint32 n_inner;
  uint32 inner_cap;
  MinimalTuple* inner_tuples;
  BufFile* inner_file;
  uint64* inner_offsets;
  Size inner_bytes;
  char* spill_buffer;
  Size spill_buffer_size;
  double* inner_points;
  uint32* inner_point_row;
  uint32 n_inner_points;
  uint32 inner_points_cap;
  uint32* inner_wild;
  uint32 n_inner_wild;
  uint32 inner_wild_cap;

  // outer chunk
  uint32 chunk_target;
  uint32 n_chunk;
  uint32 chunk_cap;
  MinimalTuple* chunk_tuples;
  double* chunk_points;
  uint32* chunk_point_row;
  uint32 n_chunk_points;
  uint32 chunk_points_cap;
  uint32* chunk_wild;
  uint32 n_chunk_wild;
  uint32 chunk_wild_cap;
  double* key_buffer;
  int key_buffer_dim;

  // candidate pairs of the chunk: (inner << 32) | outer
  uint64* pairs;
  size_t n_pairs;
  size_t pairs_cap;
  size_t pair_pos;
  BufFile* pair_file;
  uint64 file_pairs;
  uint64 file_pairs_read;
  uint64* pair_block;
  size_t pair_block_n;
  size_t pair_block_pos;
  int phase;  // 0: engine pairs, 1: wild outer x all inner, 2: outer points x wild inner
  uint32 wi, wj;
  uint32 cur_outer, cur_inner;

  // statistics
  uint64 chunks;
  uint64 candidates_out;
  uint64 outer_rows;
  uint64 wild_rows;
  bool inner_spilled;
  bool pairs_spilled;
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

// Evaluates a key on a child tuple. Returns kNullKey for NULL; else classifies it and, for
// KEY_OK, writes its coordinates to st->key_buffer. The key's memory is per tuple.
int evaluate_key(SimJoinState* st, ExprState* key, TupleTableSlot* slot) {
  ExprContext* econtext = st->key_cxt;
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

// ---- inner side ----------------------------------------------------------------------------

void spill_inner(SimJoinState* st) {
  MemoryContext old = MemoryContextSwitchTo(st->arrays_mcxt);
  st->inner_file = BufFileCreateTemp(false);
  st->inner_offsets = static_cast<uint64*>(
      MemoryContextAllocHuge(st->arrays_mcxt, sizeof(uint64) * std::max<uint32>(st->inner_cap, 1)));
  MemoryContextSwitchTo(old);
  for (uint32 i = 0; i < st->n_inner; ++i) {
    int fileno;
    off_t offset;
    BufFileTell(st->inner_file, &fileno, &offset);
    st->inner_offsets[i] = (static_cast<uint64>(fileno) << 32) | static_cast<uint64>(offset);
    BufFileWrite(st->inner_file, st->inner_tuples[i], st->inner_tuples[i]->t_len);
  }
  MemoryContextReset(st->inner_mcxt);
  pfree(st->inner_tuples);
  st->inner_tuples = nullptr;
  st->inner_spilled = true;
}

void store_inner_tuple(SimJoinState* st, TupleTableSlot* slot) {
  const uint32 old_cap = st->inner_cap;
  if (st->inner_file) {
    ensure_capacity(st->arrays_mcxt, &st->inner_offsets, &st->inner_cap, st->n_inner + 1);
    MinimalTuple tuple = ExecFetchSlotMinimalTuple(slot, nullptr);
    int fileno;
    off_t offset;
    BufFileTell(st->inner_file, &fileno, &offset);
    st->inner_offsets[st->n_inner] =
        (static_cast<uint64>(fileno) << 32) | static_cast<uint64>(offset);
    BufFileWrite(st->inner_file, tuple, tuple->t_len);
    st->inner_bytes += tuple->t_len;
    st->n_inner++;
    return;
  }
  ensure_capacity(st->arrays_mcxt, &st->inner_tuples, &st->inner_cap, st->n_inner + 1);
  (void)old_cap;
  MemoryContext old = MemoryContextSwitchTo(st->inner_mcxt);
  MinimalTuple tuple = ExecCopySlotMinimalTuple(slot);
  MemoryContextSwitchTo(old);
  st->inner_tuples[st->n_inner++] = tuple;
  st->inner_bytes += tuple->t_len;
  if (st->inner_bytes > st->memory_limit) spill_inner(st);
}

MinimalTuple fetch_inner_tuple(SimJoinState* st, uint32 row) {
  if (!st->inner_file) return st->inner_tuples[row];
  const uint64 position = st->inner_offsets[row];
  if (BufFileSeek(st->inner_file, static_cast<int>(position >> 32),
                  static_cast<off_t>(position & 0xFFFFFFFFu), SEEK_SET) != 0)
    ereport(ERROR, (errcode_for_file_access(), errmsg("simjoin: could not seek in temporary file")));
  uint32 length;
  if (BufFileRead(st->inner_file, &length, sizeof length) != sizeof length)
    ereport(ERROR, (errcode_for_file_access(), errmsg("simjoin: could not read temporary file")));
  if (st->spill_buffer_size < length) {
    if (st->spill_buffer) pfree(st->spill_buffer);
    st->spill_buffer = static_cast<char*>(MemoryContextAlloc(st->arrays_mcxt, length * 2));
    st->spill_buffer_size = length * 2;
  }
  std::memcpy(st->spill_buffer, &length, sizeof length);
  const size_t rest = length - sizeof length;
  if (BufFileRead(st->inner_file, st->spill_buffer + sizeof length, rest) != rest)
    ereport(ERROR, (errcode_for_file_access(), errmsg("simjoin: could not read temporary file")));
  return reinterpret_cast<MinimalTuple>(st->spill_buffer);
}

void reset_inner(SimJoinState* st) {
  if (st->inner_file) BufFileClose(st->inner_file);
  st->inner_file = nullptr;
  MemoryContextReset(st->inner_mcxt);
  if (st->inner_tuples) pfree(st->inner_tuples);
  if (st->inner_offsets) pfree(st->inner_offsets);
  if (st->inner_points) pfree(st->inner_points);
  if (st->inner_point_row) pfree(st->inner_point_row);
  if (st->inner_wild) pfree(st->inner_wild);
  st->inner_tuples = nullptr;
  st->inner_offsets = nullptr;
  st->inner_points = nullptr;
  st->inner_point_row = nullptr;
  st->inner_wild = nullptr;
  st->n_inner = st->inner_cap = 0;
  st->n_inner_points = st->inner_points_cap = 0;
  st->n_inner_wild = st->inner_wild_cap = 0;
  st->inner_bytes = 0;
  st->inner_loaded = false;
  st->ref = KeyRef{};
  st->cur_inner = kNoRow;
}

void load_inner(SimJoinState* st) {
  for (;;) {
    TupleTableSlot* slot = ExecProcNode(st->inner_ps);
    if (TupIsNull(slot)) break;
    CHECK_FOR_INTERRUPTS();
    const int status = evaluate_key(st, st->inner_key, slot);
    if (status == kNullKey) continue;  // never satisfies a strict distance
    const uint32 row = st->n_inner;
    store_inner_tuple(st, slot);
    if (status == KEY_OK) {
      const int dim = st->ref.dim;
      const uint32 before = st->inner_points_cap;
      ensure_capacity(st->arrays_mcxt, &st->inner_point_row, &st->inner_points_cap,
                      st->n_inner_points + 1);
      if (!st->inner_points || before != st->inner_points_cap) {
        const Size bytes = sizeof(double) * dim * static_cast<size_t>(st->inner_points_cap);
        st->inner_points = static_cast<double*>(
            st->inner_points ? repalloc_huge(st->inner_points, bytes)
                             : MemoryContextAllocHuge(st->arrays_mcxt, bytes));
      }
      std::memcpy(st->inner_points + static_cast<size_t>(st->n_inner_points) * dim,
                  st->key_buffer, sizeof(double) * dim);
      st->inner_point_row[st->n_inner_points++] = row;
    } else if (status == KEY_WILD) {
      ensure_capacity(st->arrays_mcxt, &st->inner_wild, &st->inner_wild_cap,
                      st->n_inner_wild + 1);
      st->inner_wild[st->n_inner_wild++] = row;
      st->wild_rows++;
    }
  }
  st->inner_loaded = true;
}

// ---- outer chunks and the engine -------------------------------------------------------------

// Collects the engine's pairs as (inner row << 32 | outer row), spilling to a BufFile.
class PairCollector : public InterruptibleSink {
 public:
  explicit PairCollector(SimJoinState* st) : st_(st) {}
  bool consume(const PairBatch& batch) override {
    SimJoinState* st = st_;
    for (size_t k = 0; k < batch.size; ++k) {
      const uint64 pair = (static_cast<uint64>(st->inner_point_row[batch.right[k]]) << 32) |
                          st->chunk_point_row[batch.left[k]];
      if (st->n_pairs == st->pairs_cap) grow_or_spill();
      if (st->n_pairs < st->pairs_cap) {
        st->pairs[st->n_pairs++] = pair;
      } else {
        spill_buffer_[spill_n_++] = pair;
        if (spill_n_ == kPairReadBlock) flush();
      }
    }
    return true;
  }
  void flush() {
    if (spill_n_ == 0) return;
    SimJoinState* st = st_;
    const size_t n = spill_n_;
    pg_call([st, n, this] {
      if (!st->pair_file) {
        MemoryContext old = MemoryContextSwitchTo(st->arrays_mcxt);
        st->pair_file = BufFileCreateTemp(false);
        MemoryContextSwitchTo(old);
      }
      BufFileWrite(st->pair_file, spill_buffer_, n * sizeof(uint64));
    });
    st->file_pairs += n;
    st->pairs_spilled = true;
    spill_n_ = 0;
  }

 private:
  void grow_or_spill() {
    SimJoinState* st = st_;
    const size_t limit = std::max<size_t>(st->memory_limit / sizeof(uint64), 8192);
    if (st->pairs_cap >= limit) return;  // full: the rest goes to the file
    const size_t next = std::min(limit, std::max<size_t>(st->pairs_cap * 2, 8192));
    pg_call([st, next] {
      const Size bytes = sizeof(uint64) * next;
      st->pairs = static_cast<uint64*>(st->pairs ? repalloc_huge(st->pairs, bytes)
                                                 : MemoryContextAllocHuge(st->arrays_mcxt, bytes));
    });
    st->pairs_cap = next;
  }

  SimJoinState* st_;
  uint64 spill_buffer_[kPairReadBlock];
  size_t spill_n_ = 0;
};

void add_totals(EngineTotals* t, const JoinStats& stats) {
  t->runs++;
  t->batches += stats.batches;
  t->candidates += stats.candidates;
  t->pairs += stats.pairs;
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

// Runs the engine on the chunk; returns true when it stopped for an interrupt.
bool run_chunk_engine(SimJoinState* st) {
  return cpp_guard([st]() -> bool {
    PointSet left;
    left.coords = st->chunk_points;
    left.n = st->n_chunk_points;
    left.dim = st->ref.dim;
    PointSet right;
    right.coords = st->inner_points;
    right.n = st->n_inner_points;
    right.dim = st->ref.dim;
    JoinSpec spec = spec_from_settings(st->bound, st->form.metric);
    PairCollector sink(st);
    JoinStats stats = run_engine(left, &right, spec, sink);
    sink.flush();
    add_totals(&st->totals, stats);
    if (st->inner_file && st->n_pairs > 1) std::sort(st->pairs, st->pairs + st->n_pairs);
    return stats.stopped;
  });
}

void load_chunk(SimJoinState* st) {
  MemoryContextReset(st->chunk_mcxt);
  if (st->pair_file) {
    BufFileClose(st->pair_file);
    st->pair_file = nullptr;
  }
  st->n_chunk = st->n_chunk_points = st->n_chunk_wild = 0;
  st->n_pairs = st->pair_pos = 0;
  st->file_pairs = st->file_pairs_read = 0;
  st->pair_block_n = st->pair_block_pos = 0;
  st->phase = 0;
  st->wi = st->wj = 0;
  st->cur_outer = kNoRow;
  Size chunk_bytes = 0;
  const Size chunk_memory = std::max<Size>(st->memory_limit, 64 * 1024 * 1024);

  while (st->n_chunk < st->chunk_target && chunk_bytes < chunk_memory) {
    TupleTableSlot* slot = ExecProcNode(st->outer_ps);
    if (TupIsNull(slot)) {
      st->outer_done = true;
      break;
    }
    int status = evaluate_key(st, st->outer_key, slot);
    if (status == kNullKey) continue;
    st->outer_rows++;
    const uint32 row = st->n_chunk;
    ensure_capacity(st->arrays_mcxt, &st->chunk_tuples, &st->chunk_cap, st->n_chunk + 1);
    MemoryContext old = MemoryContextSwitchTo(st->chunk_mcxt);
    MinimalTuple tuple = ExecCopySlotMinimalTuple(slot);
    MemoryContextSwitchTo(old);
    chunk_bytes += tuple->t_len;
    st->chunk_tuples[st->n_chunk++] = tuple;
    if (st->all_wild) status = KEY_WILD;
    if (status == KEY_OK) {
      const int dim = st->ref.dim;
      const uint32 before = st->chunk_points_cap;
      ensure_capacity(st->arrays_mcxt, &st->chunk_point_row, &st->chunk_points_cap,
                      st->n_chunk_points + 1);
      if (!st->chunk_points || before != st->chunk_points_cap) {
        const Size bytes = sizeof(double) * dim * static_cast<size_t>(st->chunk_points_cap);
        st->chunk_points = static_cast<double*>(
            st->chunk_points ? repalloc_huge(st->chunk_points, bytes)
                             : MemoryContextAllocHuge(st->arrays_mcxt, bytes));
      }
      std::memcpy(st->chunk_points + static_cast<size_t>(st->n_chunk_points) * dim,
                  st->key_buffer, sizeof(double) * dim);
      st->chunk_point_row[st->n_chunk_points++] = row;
    } else if (status == KEY_WILD) {
      ensure_capacity(st->arrays_mcxt, &st->chunk_wild, &st->chunk_wild_cap,
                      st->n_chunk_wild + 1);
      st->chunk_wild[st->n_chunk_wild++] = row;
      if (!st->all_wild) st->wild_rows++;
    }
  }
  if (st->n_chunk == 0) return;
  st->chunks++;
  // Later chunks grow: few engine runs over the inner side, rows early for LIMIT.
  st->chunk_target = st->chunk_target >= (kNoRow / 8) ? kNoRow : st->chunk_target * 8;

  if (!st->all_wild && st->use_engine && st->n_chunk_points > 0 && st->n_inner_points > 0) {
    if (run_chunk_engine(st)) {
      static JoinStats stopped;  // static: nothing to destroy if this raises
      stopped.stopped = true;
      raise_if_interrupted(stopped);
    }
  }
}

// The recheck of a pair is done by ExecScan with the plan's qual: here only the next candidate.
bool next_candidate(SimJoinState* st, uint32* outer_row, uint32* inner_row) {
  for (;;) {
    switch (st->phase) {
      case 0:
        if (st->pair_pos < st->n_pairs) {
          const uint64 pair = st->pairs[st->pair_pos++];
          *outer_row = static_cast<uint32>(pair & 0xFFFFFFFFu);
          *inner_row = static_cast<uint32>(pair >> 32);
          return true;
        }
        if (st->pair_block_pos < st->pair_block_n) {
          const uint64 pair = st->pair_block[st->pair_block_pos++];
          *outer_row = static_cast<uint32>(pair & 0xFFFFFFFFu);
          *inner_row = static_cast<uint32>(pair >> 32);
          return true;
        }
        if (st->file_pairs_read < st->file_pairs) {
          if (st->file_pairs_read == 0 && BufFileSeek(st->pair_file, 0, 0, SEEK_SET) != 0)
            ereport(ERROR, (errcode_for_file_access(),
                            errmsg("simjoin: could not seek in temporary file")));
          if (!st->pair_block)
            st->pair_block = static_cast<uint64*>(
                MemoryContextAlloc(st->arrays_mcxt, sizeof(uint64) * kPairReadBlock));
          const size_t n = std::min<uint64>(kPairReadBlock, st->file_pairs - st->file_pairs_read);
          if (BufFileRead(st->pair_file, st->pair_block, n * sizeof(uint64)) !=
              n * sizeof(uint64))
            ereport(ERROR, (errcode_for_file_access(),
                            errmsg("simjoin: could not read temporary file")));
          st->file_pairs_read += n;
          st->pair_block_n = n;
          st->pair_block_pos = 0;
          continue;
        }
        st->phase = 1;
        st->wi = st->wj = 0;
        break;
      case 1:  // wild outer rows x every inner row
        if (st->wi < st->n_chunk_wild && st->n_inner > 0) {
          *outer_row = st->chunk_wild[st->wi];
          *inner_row = st->wj;
          if (++st->wj == st->n_inner) {
            st->wj = 0;
            st->wi++;
          }
          return true;
        }
        st->phase = 2;
        st->wi = st->wj = 0;
        break;
      case 2:  // outer rows with points x wild inner rows
        if (!st->all_wild && st->wi < st->n_chunk_points && st->n_inner_wild > 0) {
          *outer_row = st->chunk_point_row[st->wi];
          *inner_row = st->inner_wild[st->wj];
          if (++st->wj == st->n_inner_wild) {
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

TupleTableSlot* form_pair(SimJoinState* st, uint32 outer_row, uint32 inner_row) {
  if (outer_row != st->cur_outer) {
    ExecStoreMinimalTuple(st->chunk_tuples[outer_row], st->outer_slot, false);
    slot_getallattrs(st->outer_slot);
    st->cur_outer = outer_row;
  }
  if (inner_row != st->cur_inner) {
    ExecStoreMinimalTuple(fetch_inner_tuple(st, inner_row), st->inner_slot, false);
    slot_getallattrs(st->inner_slot);
    st->cur_inner = inner_row;
  }
  TupleTableSlot* scan = st->css.ss.ss_ScanTupleSlot;
  ExecClearTuple(scan);
  std::memcpy(scan->tts_values, st->outer_slot->tts_values, sizeof(Datum) * st->outer_columns);
  std::memcpy(scan->tts_isnull, st->outer_slot->tts_isnull, sizeof(bool) * st->outer_columns);
  std::memcpy(scan->tts_values + st->outer_columns, st->inner_slot->tts_values,
              sizeof(Datum) * st->inner_columns);
  std::memcpy(scan->tts_isnull + st->outer_columns, st->inner_slot->tts_isnull,
              sizeof(bool) * st->inner_columns);
  st->candidates_out++;
  return ExecStoreVirtualTuple(scan);
}

void start_scan(SimJoinState* st) {
  st->started = true;
  st->finished = false;
  st->outer_done = false;
  st->chunk_target = kFirstChunkRows;
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
  if (!st->inner_loaded) load_inner(st);
  if (st->n_inner == 0) {  // nothing to join: the outer side is not read at all
    st->finished = true;
    return;
  }
  st->bound = engine_bound(st->form, st->eps, st->ref.dim);
  st->use_engine = !st->all_wild && !std::isnan(st->bound);
  elog(DEBUG2, "simjoin: eps=%g bound=%g all_wild=%d dim=%d inner=%u points=%u wild=%u", st->eps, st->bound, st->all_wild, st->ref.dim, st->n_inner, st->n_inner_points, st->n_inner_wild);
}

TupleTableSlot* next_scan_tuple(ScanState* node) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  if (!st->started) start_scan(st);
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    if (st->finished) return nullptr;
    uint32 outer_row, inner_row;
    if (st->n_chunk > 0 && next_candidate(st, &outer_row, &inner_row))
      return form_pair(st, outer_row, inner_row);
    if (st->outer_done) {
      st->finished = true;
      return nullptr;
    }
    load_chunk(st);
  }
}

bool recheck_scan_tuple(ScanState*, TupleTableSlot*) { return true; }

// ---- callbacks -------------------------------------------------------------------------------

Node* create_state(CustomScan* cscan);
void begin_scan(CustomScanState* node, EState* estate, int eflags);
TupleTableSlot* exec_scan(CustomScanState* node);
void end_scan(CustomScanState* node);
void rescan(CustomScanState* node);
void explain_scan(CustomScanState* node, List* ancestors, ExplainState* es);

CustomExecMethods exec_methods;

bool shift_index_vars(Node* node, void* context) {
  if (node == nullptr) return false;
  if (IsA(node, Var)) {
    Var* var = reinterpret_cast<Var*>(node);
    if (var->varno == INDEX_VAR) var->varattno -= *static_cast<int*>(context);
    return false;
  }
  return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(shift_index_vars)), context);
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
      return reinterpret_cast<Node*>(st);
    });
  });
}

void begin_scan_impl(CustomScanState* node, EState* estate, int eflags) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  CustomScan* cscan = reinterpret_cast<CustomScan*>(node->ss.ps.plan);
  // Candidates come out of a buffer: no backward scan or mark/restore of our own; the children
  // are read once (per rescan), forward.
  const int child_flags = eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
  st->outer_ps = ExecInitNode(static_cast<Plan*>(linitial(cscan->custom_plans)), estate,
                              child_flags);
  st->inner_ps = ExecInitNode(static_cast<Plan*>(lsecond(cscan->custom_plans)), estate,
                              child_flags);
  node->custom_ps = list_make2(st->outer_ps, st->inner_ps);
  st->inner_columns = list_length(cscan->custom_scan_tlist) - st->outer_columns;

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
  Expr* eps = static_cast<Expr*>(list_nth(cscan->custom_exprs, EXPR_EPS));
  st->eps_is_float4 = exprType(reinterpret_cast<Node*>(eps)) == FLOAT4OID;
  st->eps_expr = ExecInitExpr(eps, &node->ss.ps);
  st->key_cxt = CreateExprContext(estate);
  st->outer_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(st->outer_ps),
                                          &TTSOpsMinimalTuple);
  st->inner_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(st->inner_ps),
                                          &TTSOpsMinimalTuple);
  st->inner_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin inner tuples",
                                         ALLOCSET_DEFAULT_SIZES);
  st->arrays_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin arrays",
                                          ALLOCSET_DEFAULT_SIZES);
  st->chunk_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin outer chunk",
                                         ALLOCSET_DEFAULT_SIZES);
  st->memory_limit = get_hash_memory_limit();
  st->cur_outer = st->cur_inner = kNoRow;
  st->ref = KeyRef{};  // palloc0 gave dim 0, not "unknown"
  st->phase = 3;
}

void begin_scan(CustomScanState* node, EState* estate, int eflags) {
  cpp_guard([&] { pg_call([&] { begin_scan_impl(node, estate, eflags); }); });
}

TupleTableSlot* exec_scan(CustomScanState* node) {
  // ExecScan rechecks every join clause (the plan's qual) on each candidate and projects.
  return ExecScan(&node->ss, next_scan_tuple, recheck_scan_tuple);
}

void end_scan(CustomScanState* node) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  if (st->inner_file) BufFileClose(st->inner_file);
  if (st->pair_file) BufFileClose(st->pair_file);
  st->inner_file = st->pair_file = nullptr;
  ExecEndNode(st->outer_ps);
  ExecEndNode(st->inner_ps);
  MemoryContextDelete(st->chunk_mcxt);
  MemoryContextDelete(st->inner_mcxt);
  MemoryContextDelete(st->arrays_mcxt);
}

void rescan(CustomScanState* node) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  Bitmapset* changed = node->ss.ps.chgParam;
  if (changed) {
    UpdateChangedParamSet(st->outer_ps, changed);
    UpdateChangedParamSet(st->inner_ps, changed);
  }
  st->started = false;
  st->finished = false;
  st->n_chunk = st->n_pairs = 0;
  st->pair_pos = 0;
  if (st->pair_file) BufFileClose(st->pair_file);
  st->pair_file = nullptr;
  st->file_pairs = st->file_pairs_read = 0;
  st->pair_block_n = st->pair_block_pos = 0;
  st->phase = 3;
  MemoryContextReset(st->chunk_mcxt);
  st->cur_outer = kNoRow;
  // The inner side is kept when complete and its parameters did not change (as a hash join
  // keeps its table); a child with changed parameters is rescanned by its next ExecProcNode.
  if (!st->inner_loaded || st->inner_ps->chgParam != nullptr) {
    reset_inner(st);
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
  ExplainPropertyText("Device", device_name(), es);
  ExplainPropertyText("Algorithm", "auto", es);
  if (!es->analyze || !explain_details_setting || st->totals.runs == 0) {
    if (es->analyze && explain_details_setting) {
      ExplainPropertyInteger("Chunks", nullptr, static_cast<int64>(st->chunks), es);
      ExplainPropertyInteger("Candidate Pairs", nullptr, static_cast<int64>(st->candidates_out),
                             es);
    }
    return;
  }
  char line[1024];
  line[0] = '\0';
  EngineTotals* t = &st->totals;
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
  ExplainPropertyInteger("Engine Runs", nullptr, static_cast<int64>(t->runs), es);
  ExplainPropertyInteger("Chunks", nullptr, static_cast<int64>(st->chunks), es);
  ExplainPropertyInteger("Candidate Pairs", nullptr, static_cast<int64>(st->candidates_out), es);
  ExplainPropertyInteger("Wild Rows", nullptr, static_cast<int64>(st->wild_rows), es);
  ExplainPropertyText("Inner Storage", st->inner_spilled ? "disk" : "memory", es);
  ExplainPropertyInteger("Inner Bytes", "kB", static_cast<int64>(st->inner_bytes / 1024), es);
  ExplainPropertyText("Pair Buffer", st->pairs_spilled ? "disk" : "memory", es);
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
  exec_methods.ShutdownCustomScan = nullptr;
  exec_methods.ExplainCustomScan = explain_scan;
}

}  // namespace simjoin::pg::cs
