// A computed key stored as a column of its side's rows (PostGIS geometries: ST_Buffer(a.g, r),
// ST_Transform(...)): the child computes the key once per row, as an extra column of its target
// list; the custom scan's tuple (custom_scan_tlist) holds that column, so setrefs replaces the
// key expression by a reference to it wherever the join's clauses hold it (fix_upper_expr
// matches whole expressions of the scan tuple) and the key the executor reads too. The recheck
// of each candidate then reads the stored key instead of computing it again; the value is
// stored, and spilled past the side's memory, with the rest of the row.
#include "pg/scan/match.h"

extern "C" {
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/planmain.h"
#include "optimizer/tlist.h"
}

namespace simjoin::pg::cs {

namespace {

// A parameter, a subplan or a placeholder: left where PostgreSQL's plan evaluates it.
bool not_movable(Node* node, void*) {
  if (node == nullptr) return false;
  if (IsA(node, Param) || IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) ||
      IsA(node, SubLink) || IsA(node, PlaceHolderVar))
    return true;
  using Walker = bool (*)();
  return expression_tree_walker(
      node, reinterpret_cast<Walker>(reinterpret_cast<void (*)()>(not_movable)), nullptr);
}

}  // namespace

bool key_stored_as_column(Expr* key, KeyKind kind, bool exact) {
  // Where the engine decides the clause, only wild rows' pairs read the key again: not worth a
  // column. A volatile key must be computed where PostgreSQL's plan computes it (per pair); a
  // key reading a parameter changes between rescans, and subplans and placeholders stay where
  // the planner put them (left as they were).
  if (exact || kind != KEY_GEOMETRY) return false;
  Node* node = reinterpret_cast<Node*>(key);
  while (IsA(node, RelabelType))
    node = reinterpret_cast<Node*>(reinterpret_cast<RelabelType*>(node)->arg);
  return !IsA(node, Var) && !contain_volatile_functions(node) && !not_movable(node, nullptr);
}

Plan* with_key_column(PlannerInfo* root, Plan* child, Expr* key) {
  if (tlist_member(key, child->targetlist)) return child;
  List* tlist = list_copy(child->targetlist);
  tlist = lappend(tlist, makeTargetEntry(static_cast<Expr*>(copyObjectImpl(key)),
                                         static_cast<AttrNumber>(list_length(tlist) + 1), nullptr,
                                         false));
  QualCost cost;
  cost_qual_eval_node(&cost, reinterpret_cast<Node*>(key), root);
  Plan* plan =
      change_plan_targetlist(child, tlist, is_parallel_safe(root, reinterpret_cast<Node*>(key)));
  plan->startup_cost += cost.startup;
  plan->total_cost += cost.startup + cost.per_tuple * plan->plan_rows;
  plan->plan_width += 32;
  return plan;
}

}  // namespace simjoin::pg::cs
