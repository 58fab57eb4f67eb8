// The SimJoin Nearest Scan's executor.
//
// The first call after the scan begins reads b once under the estate's snapshot (a table scan)
// into a cache kept for the whole execution: each row passing the PARAM_EXEC-free quals (the
// "cache filter") with its TID and its key's status: read into coordinates (KEY_OK, one
// reference dimension), NULL, or wild (the engine cannot represent it: NaN, wrong dimension,
// NULL elements, a box cube...). Each rescan (a new outer key) then computes
//  - the engine's exact_distance from the outer key to every cached point (engine_is_exact: the
//    operator's value bit for bit; point keys: planar_point_distance, PostgreSQL's arithmetic);
//  - for each wild row, in physical order, the quals and then the ORDER BY expression itself:
//    PostgreSQL's operator, with its errors (a dimension mismatch raises as in its own plan);
//  - where the outer key itself is NULL every distance is NULL; where it is wild or of another
//    dimension than the cached points, every row is evaluated as a wild row;
// and emits the rows nearest first: the candidates are selected in growing chunks (nth_element
// and a sort of the first max(64, 4 * limit), then chunks twice as large), ordered by (distance,
// physical position), NaN after every number; the rows whose distance is NULL follow in physical
// order (ASC NULLS LAST). Each emitted row is fetched by TID (its visible version under the
// snapshot), the other quals checked unless they were for this key (a wild row's), and ExecScan
// projects.
// Measured forms (the planner's choice where the engine's distance is not the operator's value:
// geography, whose chord between unit normals bounds PostGIS's metres; pgvector, computed in
// single precision; forms whose probe failed): the candidates are taken in the engine's order and
// measured by the ORDER BY expression (quals first, as evaluate_row), into a heap by (value,
// physical position); the heap's top is emitted once the next unmeasured engine distance lies
// beyond its reach (engine_bound of its value: the bound within which the engine keeps every pair
// at that value): every row not yet measured is then farther. A loop measures about the LIMIT's
// rows, not all.
//
// C++ runs only in the selection (std::nth_element / std::sort on plain arrays, inside
// cpp_guard); the rest is C-style code over memory of the query's context.
#include "pg/scan/nearest_scan/nearest_scan.h"

#include "engine/bounds/planar_hypot.h"
#include "engine/distance.h"
#include "pg/pg_guard.h"

extern "C" {
#include "access/tableam.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
}

#include <algorithm>
#include <cmath>

namespace simjoin::pg::cs {

namespace {

enum RowStatus : uint8 { ROW_NULL = 0, ROW_POINT = 1, ROW_WILD = 2 };

struct Candidate {
  double distance;
  uint32 row;  // the row's position in the cache (physical order)
};

// (distance, physical position), NaN after every number: float8's order, ties by TID.
inline bool nearer(const Candidate& a, const Candidate& b) {
  if (a.distance < b.distance) return true;
  if (b.distance < a.distance) return false;
  const bool a_nan = std::isnan(a.distance);
  const bool b_nan = std::isnan(b.distance);
  if (a_nan != b_nan) return b_nan;
  return a.row < b.row;
}

struct NearestScanState {
  CustomScanState css;
  FormInfo form;
  ExprState* distance;
  ExprState* outer_key;
  ExprState* inner_key;
  ExprState* cache_filter;
  ExprState* quals;       // the other quals, checked by next_row (ExecScan has none)
  int limit_hint;
  // The cache, built once per execution.
  bool cached;
  uint32 rows;
  uint32 capacity;
  ItemPointerData* tids;  // [rows], physical order
  uint8* status;          // [rows] RowStatus
  uint32 points;          // rows with status ROW_POINT
  uint32 point_capacity;
  uint32* point_row;      // [points] their positions
  double* coords;         // [points * ref.dim]
  uint32 irregular;       // rows with status ROW_NULL or ROW_WILD
  // [rows] the outer key (key_number) for which a row's quals passed (evaluate_row): checked
  // once per key.
  uint32* quals_passed_for;
  uint32 key_number;
  KeyRef ref;
  // The current outer key's order.
  bool started;
  Candidate* candidates;  // [rows]
  uint32 n_candidates;
  uint32 sorted;          // candidates[0, sorted) are in final order
  uint32 next;            // the next candidate to emit
  uint32 chunk;           // the size of the next chunk to select
  uint32* tail;           // [rows] rows with a NULL distance, physical order
  uint32 n_tail;
  uint32 next_tail;
  double* outer_coords;
  // Measured forms: the rows in the engine's order, measured by the ORDER BY expression.
  bool measured;
  Candidate* heap;         // [rows] measured rows not yet emitted, the nearest on top
  uint32 heap_size;
  uint64 measured_rows;    // over the whole execution (EXPLAIN ANALYZE)
};

NearestScanState* state_of(ScanState* node) { return reinterpret_cast<NearestScanState*>(node); }

// ---- the cache ------------------------------------------------------------------------------

void grow_rows(NearestScanState* st) {
  st->capacity = st->capacity ? st->capacity * 2 : 1024;
  if (st->tids == nullptr) {
    st->tids = static_cast<ItemPointerData*>(palloc_extended(
        sizeof(ItemPointerData) * static_cast<Size>(st->capacity), MCXT_ALLOC_HUGE));
    st->status = static_cast<uint8*>(palloc_extended(st->capacity, MCXT_ALLOC_HUGE));
  } else {
    st->tids = static_cast<ItemPointerData*>(
        repalloc_huge(st->tids, sizeof(ItemPointerData) * static_cast<Size>(st->capacity)));
    st->status = static_cast<uint8*>(repalloc_huge(st->status, st->capacity));
  }
}

void grow_points(NearestScanState* st) {
  st->point_capacity = st->point_capacity ? st->point_capacity * 2 : 1024;
  const Size coords = sizeof(double) * static_cast<Size>(st->point_capacity) * st->ref.dim;
  const Size rows = sizeof(uint32) * static_cast<Size>(st->point_capacity);
  if (st->coords == nullptr) {
    st->coords = static_cast<double*>(palloc_extended(coords, MCXT_ALLOC_HUGE));
    st->point_row = static_cast<uint32*>(palloc_extended(rows, MCXT_ALLOC_HUGE));
  } else {
    st->coords = static_cast<double*>(repalloc_huge(st->coords, coords));
    st->point_row = static_cast<uint32*>(repalloc_huge(st->point_row, rows));
  }
}

// Reads b once: each visible row passing the cache filter, its TID and its key.
void build_cache(NearestScanState* st) {
  EState* estate = st->css.ss.ps.state;
  ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
  TupleTableSlot* slot = st->css.ss.ss_ScanTupleSlot;
  MemoryContext query_context = MemoryContextSwitchTo(estate->es_query_cxt);
  TableScanDesc scan =
      table_beginscan(st->css.ss.ss_currentRelation, estate->es_snapshot, 0, nullptr);
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    ResetExprContext(econtext);
    if (!table_scan_getnextslot(scan, ForwardScanDirection, slot)) break;
    econtext->ecxt_scantuple = slot;
    if (!ExecQual(st->cache_filter, econtext)) continue;
    if (st->rows == PG_UINT32_MAX - 1)
      ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                      errmsg("simjoin: too many rows for the nearest scan's cache")));
    if (st->rows == st->capacity) grow_rows(st);
    const uint32 row = st->rows++;
    st->tids[row] = slot->tts_tid;
    bool isnull;
    Datum key = ExecEvalExpr(st->inner_key, econtext, &isnull);
    if (isnull) {
      st->status[row] = ROW_NULL;
      ++st->irregular;
      continue;
    }
    MemoryContext previous = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
    key = detoast_key(st->form, key);
    const bool point = classify_key(st->form, key, &st->ref) == KEY_OK;
    MemoryContextSwitchTo(previous);
    if (!point) {
      st->status[row] = ROW_WILD;
      ++st->irregular;
      continue;
    }
    st->status[row] = ROW_POINT;
    if (st->points == st->point_capacity) grow_points(st);
    read_key(st->form, key, st->ref, st->coords + static_cast<Size>(st->points) * st->ref.dim);
    st->point_row[st->points++] = row;
  }
  table_endscan(scan);
  ResetExprContext(econtext);
  const Size rows = Max(st->rows, 1);
  st->candidates =
      static_cast<Candidate*>(palloc_extended(sizeof(Candidate) * rows, MCXT_ALLOC_HUGE));
  st->tail = static_cast<uint32*>(palloc_extended(sizeof(uint32) * rows, MCXT_ALLOC_HUGE));
  st->quals_passed_for = static_cast<uint32*>(
      palloc_extended(sizeof(uint32) * rows, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO));
  st->outer_coords = static_cast<double*>(palloc(sizeof(double) * Max(st->ref.dim, 1)));
  if (st->measured)
    st->heap = static_cast<Candidate*>(palloc_extended(sizeof(Candidate) * rows, MCXT_ALLOC_HUGE));
  MemoryContextSwitchTo(query_context);
  st->cached = true;
}

// Fetches row's visible version into the scan slot; false if there is none.
bool fetch_row(NearestScanState* st, uint32 row) {
  TupleTableSlot* slot = st->css.ss.ss_ScanTupleSlot;
  return table_tuple_fetch_row_version(st->css.ss.ss_currentRelation, &st->tids[row],
                                       st->css.ss.ps.state->es_snapshot, slot);
}

// ---- the order for one outer key ----------------------------------------------------------

// The heap of measured rows, by nearer(): the nearest at heap[0].
void heap_push(NearestScanState* st, Candidate c) {
  uint32 at = st->heap_size++;
  while (at > 0) {
    const uint32 parent = (at - 1) / 2;
    if (!nearer(c, st->heap[parent])) break;
    st->heap[at] = st->heap[parent];
    at = parent;
  }
  st->heap[at] = c;
}

Candidate heap_pop(NearestScanState* st) {
  const Candidate top = st->heap[0];
  const Candidate last = st->heap[--st->heap_size];
  uint32 at = 0;
  for (;;) {
    uint32 child = 2 * at + 1;
    if (child >= st->heap_size) break;
    if (child + 1 < st->heap_size && nearer(st->heap[child + 1], st->heap[child])) ++child;
    if (!nearer(st->heap[child], last)) break;
    st->heap[at] = st->heap[child];
    at = child;
  }
  if (st->heap_size > 0) st->heap[at] = last;
  return top;
}

// A row the engine cannot decide: its quals, then the ORDER BY expression (PostgreSQL's
// operator, with its errors), as PostgreSQL's plan evaluates them.
void evaluate_row(NearestScanState* st, uint32 row) {
  ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
  ResetExprContext(econtext);
  if (!fetch_row(st, row)) return;
  econtext->ecxt_scantuple = st->css.ss.ss_ScanTupleSlot;
  if (!ExecQual(st->quals, econtext)) return;
  st->quals_passed_for[row] = st->key_number;
  bool isnull;
  const Datum distance = ExecEvalExpr(st->distance, econtext, &isnull);
  if (isnull)
    st->tail[st->n_tail++] = row;
  else if (st->measured)
    heap_push(st, Candidate{DatumGetFloat8(distance), row});
  else
    st->candidates[st->n_candidates++] = Candidate{DatumGetFloat8(distance), row};
}

// The candidates and the NULL tail for the current outer key.
void order_rows(NearestScanState* st) {
  ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
  st->n_candidates = st->sorted = st->next = 0;
  st->n_tail = st->next_tail = 0;
  st->heap_size = 0;
  st->key_number++;  // (from 1: quals_passed_for starts at 0)
  st->chunk = static_cast<uint32>(Max(64, Min(4 * static_cast<int64>(st->limit_hint), 1 << 24)));
  st->started = true;
  ResetExprContext(econtext);
  bool isnull;
  Datum key = ExecEvalExpr(st->outer_key, econtext, &isnull);
  if (isnull) {  // a strict distance: NULL for every row
    for (uint32 row = 0; row < st->rows; ++row) st->tail[st->n_tail++] = row;
    return;
  }
  MemoryContext previous = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
  key = detoast_key(st->form, key);
  KeyRef ref = st->ref;
  const bool point = classify_key(st->form, key, &ref) == KEY_OK;
  if (point && st->points > 0) read_key(st->form, key, ref, st->outer_coords);
  MemoryContextSwitchTo(previous);
  if (!point) {  // every row as PostgreSQL evaluates it, in physical order
    for (uint32 row = 0; row < st->rows; ++row) {
      if (st->status[row] == ROW_NULL)
        st->tail[st->n_tail++] = row;
      else
        evaluate_row(st, row);
    }
    return;
  }
  const int dim = st->ref.dim;
  for (uint32 i = 0; i < st->points; ++i) {
    if ((i & 0x3fff) == 0) CHECK_FOR_INTERRUPTS();
    const double* point = st->coords + static_cast<Size>(i) * dim;
    const double d = st->form.kind == KEY_POINT
                         ? planar_point_distance(st->outer_coords, point)
                         : exact_distance(st->outer_coords, point, dim, st->form.metric);
    st->candidates[st->n_candidates++] = Candidate{d, st->point_row[i]};
  }
  if (st->irregular == 0) return;
  for (uint32 row = 0; row < st->rows; ++row) {
    if (st->status[row] == ROW_NULL)
      st->tail[st->n_tail++] = row;
    else if (st->status[row] == ROW_WILD)
      evaluate_row(st, row);
  }
}

// Puts the next chunk of candidates in final order.
void select_chunk(NearestScanState* st) {
  const uint32 end = st->n_candidates - st->sorted <= st->chunk ? st->n_candidates
                                                                 : st->sorted + st->chunk;
  st->chunk = st->chunk > (1u << 30) ? st->chunk : st->chunk * 2;
  Candidate* first = st->candidates + st->sorted;
  Candidate* middle = st->candidates + end;
  Candidate* last = st->candidates + st->n_candidates;
  cpp_guard([&] {
    if (middle != last) std::nth_element(first, middle, last, nearer);
    std::sort(first, middle, nearer);
  });
  st->sorted = end;
}

// The next candidate in the engine's order (its distance the operator's value); false once every
// candidate is out (the NULL tail follows).
bool next_candidate(NearestScanState* st, uint32* row) {
  if (st->next == st->sorted && st->sorted < st->n_candidates) select_chunk(st);
  if (st->next == st->sorted) return false;
  *row = st->candidates[st->next++].row;
  return true;
}

// Measured order: the next row by the ORDER BY's value, measuring candidates in the engine's order
// until the heap's nearest is certain; false once every candidate is out (the NULL tail follows).
bool next_measured(NearestScanState* st, uint32* row) {
  for (;;) {
    if (st->next == st->sorted && st->sorted < st->n_candidates) select_chunk(st);
    const bool more = st->next < st->sorted;
    if (st->heap_size > 0 &&
        (!more || st->candidates[st->next].distance >
                      engine_bound(st->form, st->heap[0].distance, st->ref))) {
      *row = heap_pop(st).row;
      return true;
    }
    if (!more) return false;
    ++st->measured_rows;
    evaluate_row(st, st->candidates[st->next++].row);
  }
}

// ExecScan's access method: the next row in the order, fetched into the scan slot.
TupleTableSlot* next_row(ScanState* node) {
  NearestScanState* st = state_of(node);
  if (!st->cached) build_cache(st);
  if (!st->started) order_rows(st);
  TupleTableSlot* slot = node->ss_ScanTupleSlot;
  for (;;) {
    uint32 row;
    if (st->measured ? next_measured(st, &row) : next_candidate(st, &row)) {
      // (a measured row's quals passed for this key: evaluate_row)
    } else if (st->next_tail < st->n_tail) {
      row = st->tail[st->next_tail++];
    } else {
      return ExecClearTuple(slot);
    }
    if (!fetch_row(st, row)) continue;
    if (!st->quals || st->quals_passed_for[row] == st->key_number) return slot;
    ExprContext* econtext = node->ps.ps_ExprContext;
    econtext->ecxt_scantuple = slot;
    if (ExecQual(st->quals, econtext)) return slot;
    InstrCountFiltered1(node, 1);
    ResetExprContext(econtext);
  }
}

// EvalPlanQual's test row: the quals (ExecScan has none of its own).
bool recheck_row(ScanState* node, TupleTableSlot* slot) {
  NearestScanState* st = state_of(node);
  ExprContext* econtext = node->ps.ps_ExprContext;
  econtext->ecxt_scantuple = slot;
  return !st->quals || ExecQual(st->quals, econtext);
}

// ---- the executor's methods ----------------------------------------------------------------

void begin_scan(CustomScanState* node, EState* estate, int) {
  NearestScanState* st = reinterpret_cast<NearestScanState*>(node);
  CustomScan* cscan = reinterpret_cast<CustomScan*>(node->ss.ps.plan);
  Relation rel = node->ss.ss_currentRelation;
  // The default scan slot is virtual: rows fetched from the table need the table's slot.
  ExecInitScanTupleSlot(estate, &node->ss, RelationGetDescr(rel), table_slot_callbacks(rel));
  ExecAssignScanProjectionInfoWithVarno(&node->ss, cscan->scan.scanrelid);
  // The quals are checked in next_row, once per row and outer key (a wild row's before its
  // distance is evaluated), not by ExecScan.
  st->quals = ExecInitQual(cscan->scan.plan.qual, &node->ss.ps);
  node->ss.ps.qual = nullptr;
  List* exprs = cscan->custom_exprs;
  Expr* distance = static_cast<Expr*>(list_nth(exprs, NEAREST_DISTANCE));
  st->distance = ExecInitExpr(distance, &node->ss.ps);
  st->outer_key = ExecInitExpr(static_cast<Expr*>(list_nth(exprs, NEAREST_OUTER_KEY)),
                               &node->ss.ps);
  st->inner_key = ExecInitExpr(static_cast<Expr*>(list_nth(exprs, NEAREST_INNER_KEY)),
                               &node->ss.ps);
  st->cache_filter = ExecInitQual(
      list_make1(list_nth(exprs, NEAREST_CACHE_FILTER)), &node->ss.ps);
  st->limit_hint = intVal(linitial(cscan->custom_private));
  st->measured = intVal(lsecond(cscan->custom_private)) != 0;
  const Oid funcid = IsA(distance, OpExpr) ? reinterpret_cast<OpExpr*>(distance)->opfuncid
                                           : reinterpret_cast<FuncExpr*>(distance)->funcid;
  if (!lookup_distance_function(funcid, &st->form))
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("simjoin: the nearest scan's distance function is no longer known"),
                    errhint("Plan the query again.")));
}

TupleTableSlot* exec_scan(CustomScanState* node) {
  return ExecScan(&node->ss, next_row, recheck_row);
}

void end_scan(CustomScanState*) {}  // the cache goes with the query's memory

void rescan(CustomScanState* node) {
  state_of(&node->ss)->started = false;  // the cache stays: same snapshot, same rows
  ExecScanReScan(&node->ss);
}

void explain_scan(CustomScanState* node, List* ancestors, ExplainState* es) {
  NearestScanState* st = reinterpret_cast<NearestScanState*>(node);
  CustomScan* cscan = reinterpret_cast<CustomScan*>(node->ss.ps.plan);
  List* context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
  Node* order = static_cast<Node*>(list_nth(cscan->custom_exprs, NEAREST_DISTANCE));
  ExplainPropertyText("Order By", deparse_expression(order, context, es->verbose, false), es);
  Node* filter = static_cast<Node*>(list_nth(cscan->custom_exprs, NEAREST_CACHE_FILTER));
  if (!(IsA(filter, Const) && !reinterpret_cast<Const*>(filter)->constisnull &&
        DatumGetBool(reinterpret_cast<Const*>(filter)->constvalue)))
    ExplainPropertyText("Cache Filter", deparse_expression(filter, context, es->verbose, false),
                        es);
  if (es->analyze && st->cached) {
    ExplainPropertyInteger("Cached Rows", nullptr, st->rows, es);
    // the rows whose key the engine reads; the others go to PostgreSQL's operator each loop
    ExplainPropertyInteger("Cached Points", nullptr, st->points, es);
    // measured forms: the rows whose ORDER BY value was computed, over all loops
    if (st->measured) ExplainPropertyInteger("Rows Measured", nullptr, st->measured_rows, es);
  }
}

const CustomExecMethods exec_methods = scan_exec_methods(
    "SimJoin Nearest Scan", begin_scan, exec_scan, end_scan, rescan, explain_scan);

Node* create_state(CustomScan*) {
  NearestScanState* st = static_cast<NearestScanState*>(palloc0(sizeof(NearestScanState)));
  NodeSetTag(st, T_CustomScanState);
  st->css.methods = &exec_methods;
  st->ref = KeyRef{};  // no dimension yet (palloc0 would make it 0: every key wild)
  return reinterpret_cast<Node*>(st);
}

}  // namespace

CustomScanMethods nearest_scan_methods = {"SimJoin Nearest Scan", create_state};

}  // namespace simjoin::pg::cs
