// The SimilarityJoin custom scan's executor callbacks: both children read first, the engine's
// pairs streamed into scan tuples (the design below; its parts, one file each, in state.h).
#include "pg/scan/form_state.h"
#include "pg/scan/index_probe.h"
#include "pg/scan/plan_info.h"

#include "pg/pg_guard.h"
#include "pg/progress/join_progress.h"

extern "C" {
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "utils/memutils.h"
}

#include <cmath>

namespace simjoin::pg::cs {

// The SimilarityJoin custom scan's executor.
//
// Both children are read completely first (the engine needs every point): their tuples are kept
// as MinimalTuples in memory, or in a temporary BufFile once the inner side passes hash_mem
// (work_mem * hash_mem_multiplier) or the outer side max(hash_mem, 64 MB), and their keys as
// arrays of coordinates. Then the engine runs once, on a producer thread (PairStream,
// src/engine/parallel/pair_stream.h), and hands its batches of candidate pairs (sorted by inner row when
// the inner side is on disk) to a bounded queue; the executor pops one batch at a time and returns the pairs as scan
// tuples (outer columns followed by inner columns), while the engine computes the next batches.
// Each pair is checked with the join's clauses (JoinPlanInfo::quals) here, except the distance clause on
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
// Delivery: an engine pair that needs no clause check (exact operator, no other join
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
//
// The executor's parts, one file each, are listed in pg/scan/state.h.

namespace {

void begin_scan(CustomScanState* node, EState* estate, int eflags);
void end_scan(CustomScanState* node);
void rescan(CustomScanState* node);

const CustomExecMethods exec_methods =
    scan_exec_methods("SimilarityJoin", begin_scan, exec_scan, end_scan, rescan, explain_scan);

Node* create_state(CustomScan* cscan) {
  return cpp_guard([cscan]() -> Node* {
    return pg_call([cscan]() -> Node* {
      SimJoinState* st = static_cast<SimJoinState*>(palloc0(sizeof(SimJoinState)));
      NodeSetTag(st, T_CustomScanState);
      st->css.methods = &exec_methods;
      const JoinPlanInfo* plan = deform_plan_private(cscan);
      st->plan = plan;
      st->form = plan->form;
      st->outer_columns = plan->outer_columns;
      st->distance_qual = Max(plan->distance_qual, -1);
      st->strict = plan->strict;
      st->same_scan = plan->same_scan;
      st->inner_rereadable = plan->inner_rereadable;
      st->n_boxes = plan->n_boxes;
      st->boxes = static_cast<BoxCheck*>(palloc0(sizeof(BoxCheck) * Max(st->n_boxes, 1)));
      for (int k = 0; k < st->n_boxes; ++k) {
        st->boxes[k].position = plan->boxes[k].position;
        st->boxes[k].enlarged_side = plan->boxes[k].enlarged_side;
      }
      st->form_state = create_form_state(*plan);
      if (plan->output_mode != OUTPUT_UNORDERED) st->ordered_output = create_ordered_output();
      st->nearest = plan->output_mode == OUTPUT_NEAREST;
      st->parallel_load_ok = plan->parallel_ok;
      return reinterpret_cast<Node*>(st);
    });
  });
}

}  // namespace

bool shift_index_vars(Node* node, void* context) {
  if (node == nullptr) return false;
  if (IsA(node, Var)) {
    Var* var = reinterpret_cast<Var*>(node);
    if (var->varno == INDEX_VAR) var->varattno -= *static_cast<int*>(context);
    return false;
  }
  return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(shift_index_vars)), context);
}

namespace {

// ---- the columns an engine pair needs, decided when the scan begins ----------------------

// The position of column c in a side's need[] (-1 if not needed).
int need_position(const Side* side, int c) {
  for (int k = 0; k < side->n_need; ++k)
    if (side->need[k] == c) return k;
  return -1;
}

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
  // The join's clauses (JoinPlanInfo::quals) are checked in next_scan_tuple, not by ExecScan
  // (the plan has no qual): every clause on the wild pairs; the engine's pairs skip the distance
  // clause where the engine is exact.
  const JoinPlanInfo* plan = st->plan;
  List* quals = plan->quals;
  st->wild_qual = ExecInitQual(quals, &node->ss.ps);
  st->engine_qual = st->wild_qual;
  st->nearest_distance = ExecInitExpr(plan->nearest_distance, &node->ss.ps);
  List* engine_clauses = quals;
  if (st->distance_qual >= 0) {
    engine_clauses = NIL;
    int position = 0;
    ListCell* qc;
    foreach (qc, quals) {
      bool native = position == st->distance_qual;
      for (int k = 0; k < st->n_boxes; ++k) native = native || position == st->boxes[k].position;
      if (!native) engine_clauses = lappend(engine_clauses, lfirst(qc));
      ++position;
    }
    st->engine_qual = ExecInitQual(engine_clauses, &node->ss.ps);
  }
  begin_certain_qual(st);
  for (int k = 0; k < st->n_boxes; ++k) {
    st->boxes[k].r = ExecInitExpr(plan->boxes[k].r, &node->ss.ps);
    st->boxes[k].n = ExecInitExpr(plan->boxes[k].n, &node->ss.ps);
  }
  st->inner_columns = list_length(cscan->custom_scan_tlist) - st->outer_columns;
  // The columns an engine pair needs: those of the projection and of the clauses checked on it
  // (all of them when the scan tuple is returned unprojected).
  Bitmapset* needed = nullptr;
  collect_index_vars(reinterpret_cast<Node*>(cscan->scan.plan.targetlist), &needed);
  collect_index_vars(reinterpret_cast<Node*>(engine_clauses), &needed);
  collect_index_vars(reinterpret_cast<Node*>(plan->other_quals), &needed);
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
  Expr* outer_key = plan->outer_key;
  Expr* inner_key = static_cast<Expr*>(copyObjectImpl(plan->inner_key));
  int shift = st->outer_columns;
  shift_index_vars(reinterpret_cast<Node*>(inner_key), &shift);
  st->outer_key = ExecInitExpr(outer_key, nullptr);
  st->inner_key = ExecInitExpr(inner_key, nullptr);
  st->inner_key_params = pull_paramids(inner_key);
  Expr* eps = plan->eps;
  st->eps_is_float4 = exprType(reinterpret_cast<Node*>(eps)) == FLOAT4OID;
  st->eps_expr = ExecInitExpr(eps, &node->ss.ps);
  begin_form_state(st);
  begin_index_probe(st, st->plan->probe);
  begin_row_naming(st, cscan);
  st->key_cxt = CreateExprContext(estate);
  st->outer_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(st->outer_ps),
                                          &TTSOpsMinimalTuple);
  st->inner_slot = ExecInitExtraTupleSlot(estate, ExecGetResultType(st->inner_ps),
                                          &TTSOpsMinimalTuple);
  st->inner.tuple_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin inner tuples",
                                               ALLOCSET_DEFAULT_SIZES);
  st->outer.tuple_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin outer tuples",
                                               ALLOCSET_DEFAULT_SIZES);
  // The points' context goes after the arrays' (a parent deletes its newest child first), so that
  // the engine is stopped before shared points are unmapped.
  st->points_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin points",
                                          ALLOCSET_SMALL_SIZES);
  st->points_shared = join_points_shared();
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

}  // namespace

namespace {

// A scan in which no pair can match (a NULL eps or factor, no inner row): an inner or semi-join
// has no row, and the outer side is not read at all; LEFT and ANTI emit every outer row.
void start_without_pairs(SimJoinState* st) {
  if (!emits_unmatched(st)) {
    st->finished = true;
    return;
  }
  load_side(st, &st->outer, st->outer_ps, st->outer_key, false);
  reset_matches(st);
  st->phase = 3;  // no candidate: the unmatched outer rows follow
}

}  // namespace

// A scan's start, at its first tuple: eps and the box clauses' r evaluated, the sides read,
// put in space order and deformed, and the engine started on them.
void start_scan(SimJoinState* st) {
  if (!st->progress_owned)
    st->progress_owned = progress_begin(
        st->engine_by_caller ? ProgressCommand::AggregateScan : ProgressCommand::CustomScan,
        InvalidOid);
  else
    progress_loading(true);  // a rescan reads its sides again
  st->started = true;
  st->finished = false;
  st->phase = 3;
  stop_ordered_output(st);
  ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
  ResetExprContext(econtext);
  if (!evaluate_scan_eps(st)) {  // a NULL eps or factor: no pair can match
    start_without_pairs(st);
    return;
  }
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
  if (st->inner.n == 0) {  // nothing to join
    start_without_pairs(st);
    return;
  }
  st->outer_shared = st->same_scan && !st->all_wild && !st->inner.file;
  if (!st->outer_shared) {
    load_side(st, &st->outer, st->outer_ps, st->outer_key, st->all_wild);
    if (st->inner.values_only && st->outer.n_wild > 0) reread_inner_with_tuples(st);
  }
  reset_matches(st);
  st->bound = scan_bound(st);
  st->use_engine = !st->all_wild && !std::isnan(st->bound) && !boxes_null;
  // The aggregate scan (engine_by_caller) reads each point's values once, not per pair: no order.
  const bool space_order = st->use_engine && !st->engine_by_caller && !st->inner.file &&
                           !st->outer.file &&
                           (st->inner.n_need + st->outer.n_need > 0 || st->n_boxes > 0);
  if (space_order) order_points(st, &st->inner);
  values_by_point(st, &st->inner);
  deform_side(st, &st->inner, st->inner_slot);
  if (st->outer_shared) {
    share_inner_side(st);  // the inner side as it is now: ordered, values by point, deformed
  } else {
    // An ordered scan reads its outer rows in their order: their points stay in it.
    if (space_order && !st->ordered_output) order_points(st, &st->outer);
    values_by_point(st, &st->outer);
    deform_side(st, &st->outer, st->outer_slot);
  }
  progress_set_rows(st->progress_owned, st->inner.n + (st->outer_shared ? 0 : st->outer.n));
  elog(DEBUG2, "simjoin: eps=%g bound=%g all_wild=%d dim=%d inner=%u points=%u wild=%u outer=%u points=%u wild=%u",
       st->eps, st->bound, st->all_wild, st->ref.dim, st->inner.n, st->inner.n_points,
       st->inner.n_wild, st->outer.n, st->outer.n_points, st->outer.n_wild);
  st->phase = 0;
  st->wi = st->wj = 0;
  st->form_state->mirror_pending = st->form_state->mirror_needed = false;
  if (st->use_engine && st->outer.n_points > 0 && st->inner.n_points > 0 && !st->engine_by_caller)
    start_stream(st);
  start_ordered_output(st);
}

namespace {

void end_scan(CustomScanState* node) {
  SimJoinState* st = reinterpret_cast<SimJoinState*>(node);
  stop_stream(st);
  progress_end(st->progress_owned);
  st->progress_owned = false;
  end_ordered_output(st);
  if (st->inner.file) BufFileClose(st->inner.file);
  if (st->outer.file) BufFileClose(st->outer.file);
  st->inner.file = st->outer.file = nullptr;
  ExecEndNode(st->outer_ps);
  ExecEndNode(st->inner_ps);
  MemoryContextDelete(st->outer.tuple_mcxt);
  MemoryContextDelete(st->inner.tuple_mcxt);
  MemoryContextDelete(st->arrays_mcxt);
  MemoryContextDelete(st->points_mcxt);
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

}  // namespace

CustomScanMethods scan_methods = {"SimilarityJoin", create_state};

}  // namespace simjoin::pg::cs
