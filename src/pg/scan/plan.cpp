// The SimilarityJoin custom scan's plan (plan_custom_path): the CustomScan made from a chosen
// CustomPath (pg/scan/join_path.cpp): the join's clauses in cost order (EXPR_QUAL) with the position
// of the distance clause and of cube's box clauses decided natively, the keys, eps and factors
// (custom_exprs), the scan tuple (both children's columns), and what the executor may assume
// of the children (custom_private: PrivateIndex).
#include "pg/pg_guard.h"
#include "pg/scan/match.h"

extern "C" {
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
}

#include <utility>

namespace simjoin::pg::cs {

namespace {

// Whether a child returns the same rows each time it is read within the query: a sequential
// scan of a table (one snapshot) with nothing volatile, and no row locking (whose EvalPlanQual
// rechecks replace rows). The executor may then keep less of it and read it again if needed.
bool rereadable_scan(PlannerInfo* root, Plan* plan) {
  return IsA(plan, SeqScan) && root->rowMarks == NIL &&
         !contain_volatile_functions(
             reinterpret_cast<Node*>(list_make2(plan->qual, plan->targetlist)));
}

// Whether both children return the same rows in the same form: rereadable sequential scans of
// one table with the same filter and target list (a self-join). Under one snapshot both see
// the same rows, so the executor reads the table once and uses its rows for both sides. The key
// expressions must read the same column of each.
bool same_scan(PlannerInfo* root, Plan* outer_plan, Plan* inner_plan, Expr* outer_key,
               Expr* inner_key) {
  if (!rereadable_scan(root, outer_plan) || !rereadable_scan(root, inner_plan)) return false;
  const Index outer_rti = reinterpret_cast<Scan*>(outer_plan)->scanrelid;
  const Index inner_rti = reinterpret_cast<Scan*>(inner_plan)->scanrelid;
  RangeTblEntry* outer_rte = planner_rt_fetch(outer_rti, root);
  RangeTblEntry* inner_rte = planner_rt_fetch(inner_rti, root);
  if (outer_rte->rtekind != RTE_RELATION || inner_rte->rtekind != RTE_RELATION ||
      outer_rte->relid != inner_rte->relid)
    return false;
  auto as_outer = [&](void* node) {
    Node* copy = static_cast<Node*>(copyObjectImpl(node));
    ChangeVarNodes(copy, inner_rti, outer_rti, 0);
    return copy;
  };
  return equal(as_outer(inner_plan->qual), outer_plan->qual) &&
         equal(as_outer(inner_plan->targetlist), outer_plan->targetlist) &&
         equal(as_outer(inner_key), outer_key);
}

// Clauses sorted by per-tuple cost, stably (order_qual_clauses is static in createplan.c).
List* clauses_by_cost(PlannerInfo* root, List* clauses) {
  struct Item {
    Expr* clause;
    Cost cost;
  };
  Item* items = static_cast<Item*>(palloc(sizeof(Item) * Max(list_length(clauses), 1)));
  int n = 0;
  ListCell* lc;
  foreach (lc, clauses) {
    QualCost cost;
    cost_qual_eval_node(&cost, static_cast<Node*>(lfirst(lc)), root);
    items[n++] = Item{static_cast<Expr*>(lfirst(lc)), cost.per_tuple};
  }
  for (int i = 1; i < n; ++i)  // insertion sort: stable, and lists are short
    for (int j = i; j > 0 && items[j].cost < items[j - 1].cost; --j) std::swap(items[j], items[j - 1]);
  List* sorted = NIL;
  for (int i = 0; i < n; ++i) sorted = lappend(sorted, items[i].clause);
  return sorted;
}

// The rows of a child named in errors (PRIV_OUTER_TABLE ...): the table a scan of a table
// reads, and a column of a unique, immediate, non-partial single-column index that the child
// returns, with its position in the child's tuple.
List* row_id_private(PlannerInfo* root, Plan* plan) {
  Oid table = InvalidOid;
  int attno = 0, position = -1;
  switch (nodeTag(plan)) {
    case T_SeqScan:
    case T_SampleScan:
    case T_IndexScan:
    case T_IndexOnlyScan:
    case T_BitmapHeapScan:
    case T_TidScan:
    case T_TidRangeScan: {
      const Index scanrelid = reinterpret_cast<Scan*>(plan)->scanrelid;
      RangeTblEntry* rte = planner_rt_fetch(scanrelid, root);
      if (rte->rtekind != RTE_RELATION) break;
      table = rte->relid;
      RelOptInfo* rel = root->simple_rel_array[scanrelid];
      ListCell* ic;
      foreach (ic, rel ? rel->indexlist : NIL) {
        IndexOptInfo* index = lfirst_node(IndexOptInfo, ic);
        if (!index->unique || !index->immediate || index->indpred != NIL ||
            index->nkeycolumns != 1 || index->indexkeys[0] <= 0)
          continue;
        ListCell* tc;
        foreach (tc, plan->targetlist) {
          const TargetEntry* tle = lfirst_node(TargetEntry, tc);
          const Var* var = reinterpret_cast<const Var*>(tle->expr);
          if (IsA(var, Var) && var->varno == static_cast<int>(scanrelid) &&
              var->varattno == index->indexkeys[0] && var->varlevelsup == 0) {
            attno = var->varattno;
            position = tle->resno - 1;
            break;
          }
        }
        if (position >= 0) break;
      }
      break;
    }
    default:
      break;
  }
  return list_make3(makeInteger(static_cast<int>(table)), makeInteger(attno),
                    makeInteger(position));
}

Plan* build_plan(PlannerInfo* root, CustomPath* best_path, List* tlist, List* custom_plans) {
  List* restrictlist = static_cast<List*>(linitial(best_path->custom_private));
  List* exprs = static_cast<List*>(lsecond(best_path->custom_private));
  List* form = static_cast<List*>(lthird(best_path->custom_private));
  List* distance = static_cast<List*>(lfourth(best_path->custom_private));
  Expr* distance_clause = static_cast<Expr*>(linitial(distance));
  const bool exact = intVal(lsecond(distance)) != 0;
  const bool strict = intVal(lthird(distance)) != 0;
  List* boxes = static_cast<List*>(list_nth(best_path->custom_private, 4));
  List* forms = static_cast<List*>(list_nth(best_path->custom_private, 5));
  const int radius_side = intVal(linitial(forms));
  List* scale = static_cast<List*>(lsecond(forms));
  const JoinType jointype = static_cast<JoinType>(intVal(lfourth(forms)));
  const bool ordered = list_length(best_path->custom_private) > PATH_ORDERED;
  const int output_mode =
      ordered ? intVal(list_nth(best_path->custom_private, PATH_ORDERED)) : OUTPUT_UNORDERED;
  Plan* outer_plan = static_cast<Plan*>(linitial(custom_plans));
  Plan* inner_plan = static_cast<Plan*>(lsecond(custom_plans));
  // A computed key rechecked on every candidate: a column of its side's rows, computed once.
  const KeyKind kind = static_cast<KeyKind>(intVal(linitial(form)));
  if (key_stored_as_column(static_cast<Expr*>(linitial(exprs)), kind, exact))
    outer_plan = with_key_column(root, outer_plan, static_cast<Expr*>(linitial(exprs)));
  if (key_stored_as_column(static_cast<Expr*>(lsecond(exprs)), kind, exact))
    inner_plan = with_key_column(root, inner_plan, static_cast<Expr*>(lsecond(exprs)));
  custom_plans = list_make2(outer_plan, inner_plan);

  CustomScan* cscan = makeNode(CustomScan);
  cscan->scan.plan.targetlist = tlist;
  // The join's clauses (EXPR_QUAL), in cost order: the executor checks all of them on each
  // candidate pair, except, where the engine is exact, the distance clause on the engine's own
  // pairs (PRIV_DISTANCE_QUAL: its position in the qual, which setrefs keeps). An outer or
  // anti-join's clauses pushed down from WHERE filter its rows instead (EXPR_OTHER_QUAL).
  List* join_clauses = NIL;
  List* other_clauses = NIL;
  ListCell* lc;
  foreach (lc, restrictlist) {
    RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
    const bool pushed_down =
        IS_OUTER_JOIN(jointype) && RINFO_IS_PUSHED_DOWN(rinfo, best_path->path.parent->relids);
    if (pushed_down)
      other_clauses = lappend(other_clauses, rinfo->clause);
    else
      join_clauses = lappend(join_clauses, rinfo->clause);
  }
  List* quals = clauses_by_cost(root, join_clauses);
  auto qual_position = [&](Expr* clause) {  // -1: not in the qual
    int position = 0;
    foreach (lc, quals) {
      if (lfirst(lc) == clause) return position;
      ++position;
    }
    return -1;
  };
  // PRIV_DISTANCE_QUAL: the position where the engine is exact; -2 - position where a certain
  // bound decides part of the engine's pairs (FormState::certain_position); else -1.
  const bool certain = !exact && has_certain_bound(intVal(linitial(form)), distance_clause,
                                                   scale, radius_side);
  const int distance_index = exact     ? qual_position(distance_clause)
                             : certain ? -2 - qual_position(distance_clause)
                                       : -1;
  // In custom_exprs rather than the plan's qual: the executor checks them itself, and EXPLAIN
  // shows them with each column's side (explain_scan), as PostgreSQL shows a join's clauses.
  cscan->scan.plan.qual = NIL;
  cscan->scan.scanrelid = 0;
  cscan->flags = best_path->flags;
  cscan->custom_plans = custom_plans;
  cscan->custom_exprs = lappend(static_cast<List*>(copyObjectImpl(exprs)), quals);
  cscan->custom_exprs = lappend(cscan->custom_exprs, clauses_by_cost(root, other_clauses));
  // The box clauses decided natively: their positions in the qual, sides, and r and n.
  List* box_private = NIL;
  foreach (lc, boxes) {
    List* box = lfirst_node(List, lc);
    const int position = qual_position(static_cast<Expr*>(linitial(box)));
    if (position < 0) continue;
    box_private = lappend(box_private, makeInteger(position));
    box_private = lappend(box_private, makeInteger(intVal(lsecond(box))));
    cscan->custom_exprs = lappend(cscan->custom_exprs, copyObjectImpl(lthird(box)));
    cscan->custom_exprs = lappend(cscan->custom_exprs, copyObjectImpl(lfourth(box)));
  }

  // The scan tuple is the outer child's columns followed by the inner child's.
  List* scan_tlist = NIL;
  AttrNumber resno = 1;
  foreach (lc, outer_plan->targetlist) {
    TargetEntry* tle = lfirst_node(TargetEntry, lc);
    scan_tlist = lappend(scan_tlist, makeTargetEntry(static_cast<Expr*>(copyObjectImpl(tle->expr)),
                                                     resno++, nullptr, false));
  }
  const int outer_columns = resno - 1;
  foreach (lc, inner_plan->targetlist) {
    TargetEntry* tle = lfirst_node(TargetEntry, lc);
    scan_tlist = lappend(scan_tlist, makeTargetEntry(static_cast<Expr*>(copyObjectImpl(tle->expr)),
                                                     resno++, nullptr, false));
  }
  cscan->custom_scan_tlist = scan_tlist;
  // A per-row radius is read while its side is loaded, an outer or anti-join keeps the outer
  // rows without a key, an ordered join its own outer rows: the outer side cannot borrow the
  // inner's.
  const bool shared = radius_side < 0 && jointype == JOIN_INNER && !ordered && same_scan(root, outer_plan, inner_plan,
                                                  static_cast<Expr*>(linitial(exprs)),
                                                  static_cast<Expr*>(lsecond(exprs)));
  // The key order of a self-join applies where the outer side is the inner side's rows.
  const int key_order = shared ? intVal(lthird(forms)) : KEY_ORDER_NONE;
  List* priv = static_cast<List*>(copyObjectImpl(form));
  priv = lappend(priv, makeInteger(outer_columns));
  priv = lappend(priv, makeInteger(distance_index));
  priv = lappend(priv, makeInteger(strict));
  priv = lappend(priv, makeInteger(shared));
  priv = lappend(priv, makeInteger(rereadable_scan(root, inner_plan)));
  priv = lappend(priv, makeInteger(list_length(box_private) / 2));
  priv = lappend(priv, makeInteger(radius_side));
  priv = lappend(priv, makeInteger(list_length(scale)));
  priv = lappend(priv, makeInteger(key_order));
  priv = lappend(priv, makeInteger(jointype));
  priv = lappend(priv, makeInteger(output_mode));
  priv = lappend(priv, makeInteger(root->glob->parallelModeOK));
  priv = list_concat(priv, row_id_private(root, outer_plan));
  priv = list_concat(priv, row_id_private(root, inner_plan));
  priv = list_concat(priv, box_private);
  foreach (lc, scale) {
    List* step = lfirst_node(List, lc);
    priv = lappend(priv, makeInteger(static_cast<int>(scale_step_op(step))));
    cscan->custom_exprs = lappend(cscan->custom_exprs, copyObjectImpl(scale_step_factor(step)));
  }
  cscan->custom_private = priv;
  cscan->methods = &scan_methods;
  return &cscan->scan.plan;
}

}  // namespace

Plan* plan_custom_path(PlannerInfo* root, RelOptInfo*, CustomPath* best_path, List* tlist,
                       List*, List* custom_plans) {
  return cpp_guard([&] { return build_plan(root, best_path, tlist, custom_plans); });
}

}  // namespace simjoin::pg::cs
