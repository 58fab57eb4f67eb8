// The SimilarityJoin's output grouped by outer row, in the outer input's order: the path that
// declares the outer input's pathkeys and the executor's grouping of pairs (the design below).
#include "pg/scan/form_state.h"
#include "pg/scan/plan_info.h"
#include "pg/scan/state.h"

#include "engine/join/pair_grouping.h"
#include "pg/pg_guard.h"

extern "C" {
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"
}

namespace simjoin::pg::cs {

// The SimilarityJoin's output grouped by outer row, in the outer input's order: a second path
// (pg/scan/join_path.cpp) on an outer input path with pathkeys the query can use (an index scan on
// the GROUP BY, DISTINCT ON or ORDER BY column) declares that input's pathkeys, as a nested loop
// does, so that a GroupAggregate, a Unique or a merge join above needs no sort and no hash table.
//
// The engine reports pairs in no order. An ordered scan first takes all of the engine's pairs
// (8 bytes each: the two points), groups them by outer point (group_pairs_by_left: a counting
// sort, O(pairs + points), 4 more bytes a pair; the outer points are in the outer rows' order)
// and then hands out, for outer row 0, 1, ... in the order the outer child returned them, that
// row's candidates: its engine pairs and its pairs with the inner
// side's wild rows, or, for a wild outer row, every inner row. After a row's candidates a LEFT
// join emits the row null-extended when none matched, an anti-join the row itself
// (next_unmatched_row, bounded by unmatched_end); a semi-join emits the row at its first match.
// The clauses are checked on each candidate as in the unordered scan (pg/scan/pairs.cpp).
// The planner offers the path only where the pairs it expects fit in hash_mem, and prices
// taking them all before the first row (ordered_output_cost). Where more come (an estimate too
// low, a generic plan's eps), the pairs go to a tuplesort of 8-byte keys (outer row, inner point)
// bounded by hash_mem, which spills to disk, and each row's pairs are read back from it in turn.

namespace {

constexpr uint32 kWildRow = kNoRow - 1;  // row_point of a wild outer row

enum GroupStep { STEP_ENGINE_PAIRS, STEP_WILD_PAIRS, STEP_DONE };

constexpr uint32 kSortedBatch = 1024;  // pairs of one row read back from the sort at a time
constexpr uint64 kSignBit = uint64{1} << 63;  // the sort compares int8: keys shifted into its order

}  // namespace

struct OrderedOutput {
  MemoryContext mcxt;  // the arrays below, reset by each scan
  bool active;         // this scan hands out its candidates grouped by outer row
  // The engine's pairs (outer point, inner point), then grouped by outer point: those of point
  // p are [start[p], start[p + 1]).
  uint32* left;
  uint32* right;
  Size n;
  Size cap;
  uint64* start;
  uint32* row_point;  // per outer row: its point, kWildRow, or kNoRow (no key)
  uint32 row;         // the outer row whose candidates are handed out
  GroupStep step;
  uint32 wj;          // the next inner row (wild outer row) or wild inner row (a point's)
  Size bytes;         // the pairs' memory (EXPLAIN ANALYZE: the largest of the scans)
  // Past hash_mem: the pairs as keys (outer row << 32 | inner point) ^ kSignBit in a tuplesort,
  // read back kSortedBatch at a time into left / right; next_key is the next one unread.
  Tuplesortstate* sort;
  bool have_next;
  uint64 next_key;
  bool spilled;       // ever (EXPLAIN ANALYZE)
};

// ---- planner ----------------------------------------------------------------------------------

// Each pair takes 12 bytes while it is grouped: its two points and its grouped inner point.
constexpr Size kPairBytes = 3 * sizeof(uint32);

bool ordered_output_fits(double candidates) {
  return candidates * kPairBytes <= static_cast<double>(get_hash_memory_limit());
}

void add_ordered_paths(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                       JoinType jointype, const CustomPath* unordered, double candidates) {
  const Path* unordered_outer = static_cast<const Path*>(linitial(unordered->custom_paths));
  ListCell* lc;
  foreach (lc, outerrel->pathlist) {
    Path* outer = static_cast<Path*>(lfirst(lc));
    if (outer->pathkeys == NIL || PATH_REQ_OUTER(outer)) continue;
    // The outer input's pathkeys, truncated to those useful above, as a nested loop's.
    List* pathkeys = build_join_pathkeys(root, joinrel, jointype, outer->pathkeys);
    if (pathkeys == NIL) continue;
    // The unordered path's cost with this outer input, its engine run (reading the outer rows,
    // the engine's pairs) moved before the first row, and the grouping: copying each pair out
    // of the engine's batches, the counting sort's two passes, a step per outer row.
    const Cost engine = (outer->total_cost - outer->startup_cost) +
                        outer->rows * (cpu_tuple_cost + row_cost_setting) +
                        candidates * pair_cost_setting;
    const Cost grouping = cpu_operator_cost * (3 * candidates + outer->rows);
    CustomPath* path = makeNode(CustomPath);
    *path = *unordered;
    path->path.startup_cost = unordered->path.startup_cost - unordered_outer->startup_cost +
                              outer->startup_cost + engine + grouping;
    path->path.total_cost = unordered->path.total_cost - unordered_outer->total_cost +
                            outer->total_cost + grouping;
    path->path.pathkeys = pathkeys;
    path->custom_paths = list_make2(outer, lsecond(unordered->custom_paths));
    JoinPathInfo info = deform_path_private(unordered);
    info.output_mode = OUTPUT_GROUPED;
    path->custom_private = form_path_private(info);
    add_path(joinrel, &path->path);
  }
}

// ---- executor ---------------------------------------------------------------------------------

OrderedOutput* create_ordered_output() {
  return static_cast<OrderedOutput*>(palloc0(sizeof(OrderedOutput)));
}

namespace {

void put_sorted(SimJoinState* st, OrderedOutput* oo, const uint32* left, const uint32* right,
                Size n) {
  for (Size i = 0; i < n; ++i) {
    const uint64 key = (static_cast<uint64>(st->outer.point_row[left[i]]) << 32) | right[i];
    tuplesort_putdatum(oo->sort, Int64GetDatum(static_cast<int64>(key ^ kSignBit)), false);
  }
}

// The pairs collected so far go to a tuplesort, and every later one.
void begin_sort(SimJoinState* st, OrderedOutput* oo) {
  MemoryContext old = MemoryContextSwitchTo(oo->mcxt);
  oo->sort = tuplesort_begin_datum(INT8OID, Int8LessOperator, InvalidOid, false,
                                   Max(static_cast<int>(st->memory_limit / 1024), 64), nullptr,
                                   TUPLESORT_NONE);
  MemoryContextSwitchTo(old);
  oo->spilled = true;
  put_sorted(st, oo, oo->left, oo->right, oo->n);
  if (oo->left) {
    pfree(oo->left);
    pfree(oo->right);
  }
  oo->n = 0;
  oo->left = static_cast<uint32*>(MemoryContextAlloc(oo->mcxt, sizeof(uint32) * kSortedBatch));
  oo->right = static_cast<uint32*>(MemoryContextAlloc(oo->mcxt, sizeof(uint32) * kSortedBatch));
}

void read_next_key(OrderedOutput* oo) {
  Datum value;
  bool isnull;
  oo->have_next = tuplesort_getdatum(oo->sort, true, &value, &isnull, nullptr);
  if (oo->have_next) oo->next_key = static_cast<uint64>(DatumGetInt64(value)) ^ kSignBit;
}

// The current row's next pairs from the sort as the current batch; false when it has no more.
bool read_sorted_batch(SimJoinState* st, OrderedOutput* oo) {
  const uint32 point = oo->row_point[oo->row];
  uint32 size = 0;
  while (size < kSortedBatch && oo->have_next && (oo->next_key >> 32) == oo->row) {
    oo->left[size] = point;
    oo->right[size] = static_cast<uint32>(oo->next_key);
    ++size;
    read_next_key(oo);
  }
  st->batch = StreamBatch{};
  st->batch.left = oo->left;
  st->batch.right = oo->right;
  st->batch.size = size;
  st->batch_pos = 0;
  return size > 0;
}

void append_batch(SimJoinState* st, OrderedOutput* oo) {
  const StreamBatch& batch = st->batch;
  if (!oo->sort && (oo->n + batch.size) * kPairBytes > st->memory_limit)
    begin_sort(st, oo);
  if (oo->sort) {
    put_sorted(st, oo, batch.left, batch.right, batch.size);
    return;
  }
  if (oo->n + batch.size > oo->cap) {
    // Doubling, but not past the pairs hash_mem holds (more go to the sort).
    Size cap = oo->cap ? oo->cap * 2 : 64 * 1024;
    while (cap < oo->n + batch.size) cap *= 2;
    cap = Max(Min(cap, st->memory_limit / kPairBytes), oo->n + batch.size);
    if (oo->left) {
      oo->left = static_cast<uint32*>(repalloc_huge(oo->left, cap * sizeof(uint32)));
      oo->right = static_cast<uint32*>(repalloc_huge(oo->right, cap * sizeof(uint32)));
    } else {
      oo->left = static_cast<uint32*>(MemoryContextAllocHuge(oo->mcxt, cap * sizeof(uint32)));
      oo->right = static_cast<uint32*>(MemoryContextAllocHuge(oo->mcxt, cap * sizeof(uint32)));
    }
    oo->cap = cap;
  }
  memcpy(oo->left + oo->n, batch.left, batch.size * sizeof(uint32));
  memcpy(oo->right + oo->n, batch.right, batch.size * sizeof(uint32));
  oo->n += batch.size;
}

// Makes `row` the current outer row: its engine pairs become the current batch (which
// fast_scan reads as it reads the engine's batches), its unmatched check follows them.
void start_group(SimJoinState* st, OrderedOutput* oo, uint32 row) {
  oo->row = row;
  oo->wj = 0;
  st->form_state->next_unmatched = row;
  st->batch = StreamBatch{};
  st->batch_pos = 0;
  const uint32 point = row < st->outer.n ? oo->row_point[row] : kNoRow;
  if (point < kWildRow && oo->sort) {
    read_sorted_batch(st, oo);
    st->phase = 0;
    oo->step = STEP_ENGINE_PAIRS;
  } else if (point < kWildRow) {
    st->batch.left = oo->left + oo->start[point];
    st->batch.right = oo->right + oo->start[point];
    st->batch.size = oo->start[point + 1] - oo->start[point];
    st->phase = 0;
    oo->step = STEP_ENGINE_PAIRS;
  } else {
    st->phase = 1;
    oo->step = point == kWildRow ? STEP_WILD_PAIRS : STEP_DONE;
  }
}

// The grouped pairs follow one another in left / right (those of the next rows too): the inner
// values of the pair kPrefetchPairs ahead are fetched into the cache while this one is formed
// (the outer rows come in their order, their partners from anywhere in the inner side).
constexpr Size kPrefetchPairs = 16;

inline void prefetch_inner_values(const SimJoinState* st, const OrderedOutput* oo) {
  const Side& inner = st->inner;
  if (oo->sort || !inner.values) return;
  const Size ahead =
      static_cast<Size>(st->batch.right - oo->right) + st->batch_pos + kPrefetchPairs;
  if (ahead >= oo->n) return;
  const Size at = static_cast<Size>(oo->right[ahead]) * inner.n_need;
  __builtin_prefetch(inner.values + at);
  __builtin_prefetch(inner.isnull + at);
}

}  // namespace

void stop_ordered_output(SimJoinState* st) {
  OrderedOutput* oo = st->ordered_output;
  if (!oo) return;
  oo->active = false;
  if (oo->sort) tuplesort_end(oo->sort);  // its temporary files
  oo->sort = nullptr;
}

void start_ordered_output(SimJoinState* st) {
  OrderedOutput* oo = st->ordered_output;
  if (!oo) return;
  if (!oo->mcxt)
    oo->mcxt = AllocSetContextCreate(st->arrays_mcxt, "simjoin ordered pairs",
                                     ALLOCSET_DEFAULT_SIZES);
  stop_ordered_output(st);
  MemoryContextReset(oo->mcxt);
  oo->left = oo->right = oo->row_point = nullptr;
  oo->have_next = false;
  oo->start = nullptr;
  oo->n = oo->cap = 0;
  if (st->outer.n >= kWildRow)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("simjoin: more than 2^32-3 outer rows in an ordered join")));
  // Every pair of the engine first (next_batch ends the stream when they are done); in the
  // nearest mode only each outer point's nearest.
  if (st->nearest)
    oo->cap = oo->n = collect_nearest_pairs(st, oo->mcxt, &oo->left, &oo->right);
  else
    while (st->stream && next_batch(st)) append_batch(st, oo);
  const uint32 n_points = st->outer.n_points;
  if (oo->sort) {
    tuplesort_performsort(oo->sort);
    read_next_key(oo);
  } else {
    oo->start = static_cast<uint64*>(
        MemoryContextAllocHuge(oo->mcxt, sizeof(uint64) * (static_cast<Size>(n_points) + 1)));
    uint32* grouped_right =
        static_cast<uint32*>(MemoryContextAllocHuge(oo->mcxt, sizeof(uint32) * Max(oo->n, 1)));
    group_pairs_by_left(oo->left, oo->right, oo->n, n_points, oo->start, grouped_right);
    if (oo->right) pfree(oo->right);
    oo->right = grouped_right;
  }
  oo->row_point = static_cast<uint32*>(
      MemoryContextAllocHuge(oo->mcxt, sizeof(uint32) * Max(st->outer.n, 1)));
  for (uint32 r = 0; r < st->outer.n; ++r) oo->row_point[r] = kNoRow;
  for (uint32 p = 0; p < n_points; ++p) oo->row_point[st->outer.point_row[p]] = p;
  for (uint32 w = 0; w < st->outer.n_wild; ++w) oo->row_point[st->outer.wild[w]] = kWildRow;
  oo->bytes = Max(oo->bytes, MemoryContextMemAllocated(oo->mcxt, true));
  oo->active = true;
  start_group(st, oo, 0);
}

bool next_ordered_candidate(SimJoinState* st, uint32* outer_row, uint32* inner_row) {
  OrderedOutput* oo = st->ordered_output;
  for (;;) {
    switch (oo->step) {
      case STEP_ENGINE_PAIRS:  // points, as the unordered scan's phase 0
        if (st->batch_pos < st->batch.size) {
          prefetch_inner_values(st, oo);
          *outer_row = st->batch.left[st->batch_pos];
          *inner_row = st->batch.right[st->batch_pos];
          st->batch_pos++;
          return true;
        }
        if (oo->sort && read_sorted_batch(st, oo)) break;
        oo->step = STEP_WILD_PAIRS;
        break;
      case STEP_WILD_PAIRS:  // rows, as the unordered scan's phases 1 and 2
        *outer_row = oo->row;
        if (oo->row_point[oo->row] == kWildRow) {
          if (oo->wj < st->inner.n) {
            st->phase = 1;
            *inner_row = oo->wj++;
            return true;
          }
        } else if (!st->all_wild && oo->wj < st->inner.n_wild) {
          st->phase = 2;
          *inner_row = st->inner.wild[oo->wj++];
          return true;
        }
        oo->step = STEP_DONE;
        break;
      case STEP_DONE:
        return false;
    }
  }
}

bool ordered_output_active(const SimJoinState* st) {
  return st->ordered_output && st->ordered_output->active;
}

uint32 unmatched_end(const SimJoinState* st) {
  if (!ordered_output_active(st)) return st->outer.n;
  return Min(st->ordered_output->row + 1, st->outer.n);
}

bool next_outer_group(SimJoinState* st) {
  OrderedOutput* oo = st->ordered_output;
  if (!ordered_output_active(st) || oo->row + 1 >= st->outer.n) return false;
  start_group(st, oo, oo->row + 1);
  return true;
}

Size ordered_output_bytes(const SimJoinState* st) {
  return st->ordered_output ? st->ordered_output->bytes : 0;
}

bool ordered_output_spilled(const SimJoinState* st) {
  return st->ordered_output && st->ordered_output->spilled;
}

void end_ordered_output(SimJoinState* st) { stop_ordered_output(st); }

}  // namespace simjoin::pg::cs
