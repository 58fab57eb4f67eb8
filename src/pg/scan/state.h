// The SimilarityJoin custom scan's executor state, shared by the executor's files
// (pg/scan/exec.cpp has the overview):
//   pg/scan/exec.cpp     the callbacks (create, begin, end, rescan) and a scan's start; the
//                            columns an engine pair needs, the direct projection
//   pg/scan/load/serial_load.cpp     the children read into the sides: keys, values only, shared sides
//   pg/scan/load/storage.cpp  a side's stored tuples: arena, spill to a temporary file, fetch
//   pg/scan/load/deform.cpp   a side's needed columns deformed once; the points in space order
//   pg/scan/stream.cpp   the engine on its producer thread: batches, totals
//   pg/scan/pairs.cpp    the exec callback: candidates, their scan tuples and clauses,
//                            fast_scan, EvalPlanQual
//   pg/scan/ordered.cpp  the candidates grouped by outer row, in the outer input's order
//   pg/scan/nearest.cpp  the nearest mode: each outer point's nearest engine pair only
//   pg/scan/explain.cpp  EXPLAIN
#pragma once

#include "pg/service/stats_record.h"
#include "pg/scan/internal.h"

#include "engine/parallel/pair_stream.h"
#include "pg/service/shared_points.h"

extern "C" {
#include "commands/explain.h"
#include "storage/buffile.h"
}

namespace simjoin::pg::cs {

constexpr uint32 kNoRow = 0xFFFFFFFFu;

// Engine statistics summed over the scans (plain data: no destructors).
struct EngineTotals {
  uint64 runs;
  uint64 stopped_early;
  JoinStatsRecord sum;  // counts and phases summed, the rest the last run's
};

// One child's rows: tuples (in memory or spilled), keys as coordinates, wild rows.
// Bump allocation in blocks of a memory context (8 kB doubling to 8 MB; larger requests alone):
// many small copies that are freed together with the context.
struct BumpArena {
  char* next;   // the free part of the current block
  Size left;
  Size block;   // size of the last block
};
char* bump_alloc(BumpArena* arena, MemoryContext cxt, Size length);

struct Side {
  MemoryContext tuple_mcxt;  // the tuples, in memory mode
  BumpArena tuple_arena;     // the tuples in memory mode (copy_to_arena), in tuple_mcxt
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
  // PostGIS keys with an extent (KeyExtent): per point its box (xmin, ymin, xmax, ymax; a
  // point's is the point), nullptr while every key is a point; the largest radius (0: none) and
  // the largest coordinate magnitude of the boxes (box_filter_bound).
  double* boxes;
  double max_key_radius;
  double box_reach;
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
  // but through values[]) and the columns an engine pair needs are by value or of a fixed length
  // (a point: copied once) and take no more than twice the memory of the row's coordinates,
  // which are kept in memory anyway (values_only_side).
  bool values_only;
  BumpArena value_arena;  // values_only: copies of by-reference values, in arrays_mcxt
  bool values_by_row;  // values[] are indexed by row, not yet by point (values_by_point)
  bool ordered;        // the points are in space order (order_points)
  bool borrowed;       // tuples, points, point_row and wild are the inner side's (same_scan)
  int load_workers_planned;   // read by parallel workers (parallel_load_side; EXPLAIN ANALYZE)
  int load_workers_launched;
  int load_threads;  // parse threads beside the leader (threaded_load_side; EXPLAIN ANALYZE)
  uint64 load_leader_rows;  // rows of a threaded load the leader read itself (their keys toasted)
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

  const struct JoinPlanInfo* plan;  // the plan's private data (pg/scan/plan_info.h)
  FormInfo form;
  bool strict;          // the distance clause is dist < eps
  bool same_scan;       // both children return the same rows: the outer side copies the inner's
  bool inner_rereadable;   // the inner child returns the same rows when read again
  bool inner_needs_tuples;  // a wild row was met: the inner side keeps every tuple from now on
  bool parallel_load_ok;   // the plan allows parallel workers (the planner's parallelModeOK)
  bool parallel_load_failed;  // a parallel load met a row it leaves to load_side: not tried again
  bool outer_shared;    // this scan's outer side is that copy (EXPLAIN)
  // The outer side read through an index of its table (pg/scan/load/probe_load.cpp), or nullptr.
  struct ProbeState* probe;
  bool points_shared;   // the points are built in shared memory for the GPU service (begin)
  MemoryContext points_mcxt;  // the sides' points (grow_join_points), outliving arrays_mcxt
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
  bool progress_owned;  // this scan began the backend's progress report (join_progress.h)
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
  BatchSource* stream;  // running engine (this backend's or the GPU service's), or nullptr
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

  // The forms beyond  dist(x, y) <= c  and the rows named in errors (pg/scan/form_state.h).
  struct FormState* form_state;
  // The output grouped by outer row (JoinPlanInfo::output_mode; pg/scan/ordered.cpp), or nullptr.
  struct OrderedOutput* ordered_output;
  // The ordered output keeps only each outer point's nearest engine pair (OUTPUT_NEAREST).
  bool nearest;
  // The nearest measured by this distance (JoinPlanInfo::nearest_distance), evaluated on each
  // candidate that the join's clause accepts; nullptr: by the engine's distance.
  ExprState* nearest_distance;
  // A parent runs the engine on the loaded sides itself (pg/scan/aggregate/exec.cpp): the
  // scan starts no stream and returns only the pairs with a wild row.
  bool engine_by_caller;
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

// ---- pg/scan/load/storage.cpp ------------------------------------------------------------------
char* arena_alloc(Side* side, Size length);
Size side_memory_limit(const SimJoinState* st, const Side* side);
void store_tuple(SimJoinState* st, Side* side, TupleTableSlot* slot);
MinimalTuple fetch_tuple(SimJoinState* st, Side* side, uint32 row);
void reset_side(Side* side);

// ---- pg/scan/load/serial_load.cpp ---------------------------------------------------------------------
bool load_side(SimJoinState* st, Side* side, PlanState* child, ExprState* key, bool force_wild);
// One child row loaded into a side (false: a values_only inner side met a wild row).
bool load_row(SimJoinState* st, Side* side, TupleTableSlot* slot, ExprState* key,
              bool force_wild);
// The pieces of a row without a tuple: room for row side->n's needed columns (values_only), the
// row counted with no tuple kept, and a point appended to a side (true when the arrays grew).
void reserve_row_values(SimJoinState* st, Side* side, size_t rows);  // room for `rows` rows' values
void add_row_without_tuple(SimJoinState* st, Side* side, uint32 rows = 1);
// `count` points (count x dim coordinates) of rows row, row + 1, ...; true when the arrays grew.
bool append_point(SimJoinState* st, Side* side, uint32 row, const double* coords, uint32 count = 1);
void reread_inner_with_tuples(SimJoinState* st);
void load_inner(SimJoinState* st);
void share_inner_side(SimJoinState* st);

// ---- pg/scan/load/parallel_load.cpp -----------------------------------------------------------
// Reads a values_only side whose child is a plain sequential scan with PostgreSQL's parallel
// workers (the leader reading too): the same rows and points as load_side, in another order.
// Returns false, the side untouched, where it does not apply (or met a row it leaves to
// load_side: a wild, skipped or box key).
bool parallel_load_side(SimJoinState* st, Side* side, PlanState* child, ExprState* key);

// ---- pg/scan/load/deform.cpp -------------------------------------------------------------------
void copy_needed_columns(const Side* side, TupleTableSlot* slot, uint32 index);
void deform_side(SimJoinState* st, Side* side, TupleTableSlot* slot);
void values_by_point(SimJoinState* st, Side* side);
void order_points(SimJoinState* st, Side* side);

// ---- pg/scan/stream.cpp -------------------------------------------------------------------
void destroy_stream(void* arg);
bool same_points(const SimJoinState* st);  // both sides hold the same points: a self-join
PointSet side_points(const SimJoinState* st, const Side* side);  // a side's points for the engine
void start_stream(SimJoinState* st);
void stop_stream(SimJoinState* st);
bool next_batch(SimJoinState* st);
void add_engine_totals(EngineTotals* totals, const JoinStats& stats);  // one engine run's stats

// ---- pg/scan/pairs.cpp --------------------------------------------------------------------
TupleTableSlot* exec_scan(CustomScanState* node);  // ExecCustomScan

// An engine candidate (point indexes, engine distance d) of a form the engine does not measure,
// for the folds that take pairs without forming rows (the aggregate scan, the nearest mode):
// whether the join's clauses accept it (within the certain bound only the other clauses, else
// every clause the engine does not decide, on the pair's scan tuple, which is formed only where
// a clause or `measure` needs it), and `measure` evaluated on it (NULL taken as NaN) into
// *value where it passes. *rechecked: the clause's operator ran on it.
bool engine_pair_passes(SimJoinState* st, uint32 outer_point, uint32 inner_point, double d,
                        ExprState* measure, double* value, bool* rechecked);
// point <-> point measured with PostgreSQL's arithmetic (planar_point_distance) into *d, and
// decided against the scan's eps.
bool planar_pair_passes(const SimJoinState* st, uint32 outer_point, uint32 inner_point, double* d);

// Whether an engine pair passes the box clauses decided natively (pg/scan/nearest.cpp).
bool engine_pair_boxes_pass(const SimJoinState* st, uint32 outer_point, uint32 inner_point);

// Every pair of the stream that passes the box clauses decided natively, with its distance (the
// stream keeps distances: nearest mode or engine_by_caller): fold(outer point, inner point, d).
template <typename Fold>
void fold_streamed_pairs(SimJoinState* st, Fold fold) {
  while (st->stream && next_batch(st)) {
    const StreamBatch& batch = st->batch;
    if (batch.size > 0 && batch.distance == nullptr)
      elog(ERROR, "simjoin: the engine's batch carries no distances");
    for (size_t k = 0; k < batch.size; ++k)
      if (st->n_boxes == 0 || engine_pair_boxes_pass(st, batch.left[k], batch.right[k]))
        fold(batch.left[k], batch.right[k], batch.distance[k]);
  }
}

// ---- pg/scan/exec.cpp ---------------------------------------------------------------------
void start_scan(SimJoinState* st);
// Shifts the INDEX_VAR attnos an expression reads down by *(int*)context (an inner side's
// expression evaluated on its child's tuple).
bool shift_index_vars(Node* node, void* context);

// ---- pg/scan/ordered.cpp -----------------------------------------------------------------
OrderedOutput* create_ordered_output();
void stop_ordered_output(SimJoinState* st);   // a scan's start: the unordered phases; ends its sort
void start_ordered_output(SimJoinState* st);  // the engine started: takes and groups its pairs
bool ordered_output_active(const SimJoinState* st);
// The current outer row's next candidate (as next_candidate's, phase set); false after its last.
bool next_ordered_candidate(SimJoinState* st, uint32* outer_row, uint32* inner_row);
uint32 unmatched_end(const SimJoinState* st);  // the outer rows the unmatched phase looks at
bool next_outer_group(SimJoinState* st);       // the next outer row's candidates; false: none
Size ordered_output_bytes(const SimJoinState* st);
bool ordered_output_spilled(const SimJoinState* st);  // the pairs went to a sort past hash_mem
void end_ordered_output(SimJoinState* st);            // EndCustomScan: the sort's files

// ---- pg/scan/nearest.cpp -----------------------------------------------------------------
// The engine's pairs (the whole stream) folded per outer point into its nearest, ties to the
// smaller inner row: the pairs, one per outer point with any, in outer point order, in arrays
// allocated in mcxt. Returns their number.
Size collect_nearest_pairs(SimJoinState* st, MemoryContext mcxt, uint32** left, uint32** right);

// ---- pg/scan/explain.cpp ------------------------------------------------------------------
void explain_scan(CustomScanState* node, List* ancestors, ExplainState* es);
// EXPLAIN ANALYZE's "Engine" line (device, algorithm, counters, estimates, phases) where
// simjoin.explain_machine_details is on: the SimilarityJoin's and the SimilarityJoinAggregate's.
void explain_engine_line(const EngineTotals& totals, ExplainState* es);

}  // namespace simjoin::pg::cs
