// The SimilarityJoin custom scan's columns, decided from the plan when the scan begins: which
// columns of each side an engine pair needs (those of the projection and of the clauses checked
// on it), and whether the projection is plain columns that an engine pair copies straight into
// the result slot (direct_project).
#include "pg/scan/state.h"

extern "C" {
#include "nodes/nodeFuncs.h"
}

namespace simjoin::pg::cs {

namespace {

// The position of column c in a side's need[] (-1 if not needed).
int need_position(const Side* side, int c) {
  for (int k = 0; k < side->n_need; ++k)
    if (side->need[k] == c) return k;
  return -1;
}

}  // namespace

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

}  // namespace simjoin::pg::cs
