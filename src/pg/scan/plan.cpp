// The SimilarityJoin custom scan's plan (plan_custom_path): the CustomScan made from a chosen
// CustomPath (pg/scan/join_path.cpp): the join's clauses in cost order with the position of the
// distance clause and of cube's box clauses decided natively, the keys, eps and factors, the
// scan tuple (both children's columns), and what the executor may assume of the children
// (JoinPlanInfo, pg/scan/plan_info.h).
//
// A computed key stored as a column of its side's rows (PostGIS geometries: ST_Buffer(a.g, r),
// ST_Transform(...)): the child computes the key once per row, as an extra column of its target
// list; the custom scan's tuple (custom_scan_tlist) holds that column, so setrefs replaces the
// key expression by a reference to it wherever the join's clauses hold it (fix_upper_expr
// matches whole expressions of the scan tuple) and the key the executor reads too. The recheck
// of each candidate then reads the stored key instead of computing it again; the value is
// stored, and spilled past the side's memory, with the rest of the row.
#include "pg/pg_guard.h"
#include "pg/scan/index_probe.h"
#include "pg/scan/plan_info.h"

extern "C" {
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/planmain.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
}

#include <initializer_list>
#include <utility>

namespace simjoin::pg::cs {

// A parameter, a subplan or a placeholder: left where PostgreSQL's plan evaluates it.
bool reads_params_or_subplans(Node* node, void*) {
  if (node == nullptr) return false;
  if (IsA(node, Param) || IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) ||
      IsA(node, SubLink) || IsA(node, PlaceHolderVar))
    return true;
  using Walker = bool (*)();
  return expression_tree_walker(
      node, reinterpret_cast<Walker>(reinterpret_cast<void (*)()>(reads_params_or_subplans)),
      nullptr);
}

namespace {

// ---- a computed key stored as a column ---------------------------------------------------

// Whether the key is stored as a column: a computed key (a PostGIS geometry key that is not a
// plain column, not volatile, reading no parameter) of a plan whose clauses are rechecked on
// every candidate.
bool key_stored_as_column(Expr* key, KeyKind kind, bool exact) {
  // Where the engine decides the clause, only wild rows' pairs read the key again: not worth a
  // column. A volatile key must be computed where PostgreSQL's plan computes it (per pair); a
  // key reading a parameter changes between rescans, and subplans and placeholders stay where
  // the planner put them (left as they were).
  if (exact || kind != KEY_GEOMETRY) return false;
  Node* node = reinterpret_cast<Node*>(key);
  node = without_relabel(node);
  return !IsA(node, Var) && !contain_volatile_functions(node) &&
         !reads_params_or_subplans(node, nullptr);
}

// The child with the key as an extra column of its target list (unless it has it), priced.
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

// ---- the plan ----------------------------------------------------------------------------

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

// The rows of a child named in errors (JoinPlanInfo::rows): the table a scan of a table
// reads, and a column of a unique, immediate, non-partial single-column index that the child
// returns, with its position in the child's tuple.
RowIdentity row_identity(PlannerInfo* root, Plan* plan) {
  RowIdentity rows{InvalidOid, 0, -1};
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
      rows.table = rte->relid;
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
            rows.id_attno = var->varattno;
            rows.id_position = tle->resno - 1;
            break;
          }
        }
        if (rows.id_position >= 0) break;
      }
      break;
    }
    default:
      break;
  }
  return rows;
}

// The scan tuple: the outer child's columns followed by the inner child's.
List* scan_tlist_of(Plan* outer_plan, Plan* inner_plan) {
  List* scan_tlist = NIL;
  AttrNumber resno = 1;
  for (Plan* child : {outer_plan, inner_plan}) {
    ListCell* lc;
    foreach (lc, child->targetlist) {
      TargetEntry* tle = lfirst_node(TargetEntry, lc);
      scan_tlist = lappend(scan_tlist, makeTargetEntry(static_cast<Expr*>(copyObjectImpl(tle->expr)),
                                                       resno++, nullptr, false));
    }
  }
  return scan_tlist;
}

// The plan's clauses, boxes and distance clause position (JoinPlanInfo): the join's clauses
// (quals), in cost order: the executor checks all of them on each candidate pair, except, where
// the engine is exact, the distance clause on the engine's own pairs (distance_qual: its position
// in the qual, which setrefs keeps). An outer or anti-join's clauses pushed down from WHERE
// filter its rows instead (other_quals).
void plan_clauses(PlannerInfo* root, const CustomPath* best_path, const JoinPathInfo& path,
                  JoinPlanInfo* plan) {
  List* join_clauses = NIL;
  List* other_clauses = NIL;
  ListCell* lc;
  foreach (lc, path.restrictlist) {
    RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
    const bool pushed_down = IS_OUTER_JOIN(path.jointype) &&
                             RINFO_IS_PUSHED_DOWN(rinfo, best_path->path.parent->relids);
    if (pushed_down)
      other_clauses = lappend(other_clauses, rinfo->clause);
    else
      join_clauses = lappend(join_clauses, rinfo->clause);
  }
  plan->quals = clauses_by_cost(root, join_clauses);
  plan->other_quals = clauses_by_cost(root, other_clauses);
  auto qual_position = [&](Expr* clause) {  // -1: not in the qual
    int position = 0;
    foreach (lc, plan->quals) {
      if (lfirst(lc) == clause) return position;
      ++position;
    }
    return -1;
  };
  // distance_qual: the position where the engine is exact; -2 - position where a certain
  // bound decides part of the engine's pairs (FormState::certain_position); else -1.
  const Match& m = path.match;
  const bool certain =
      !path.exact && has_certain_bound(m.form.kind, m.clause, m.scale, m.radius_side);
  plan->distance_qual = path.exact ? qual_position(m.clause)
                        : certain  ? -2 - qual_position(m.clause)
                                   : -1;
  // The box clauses decided natively: those in the qual.
  plan->boxes = static_cast<PlanBox*>(palloc0(sizeof(PlanBox) * Max(path.n_boxes, 1)));
  plan->n_boxes = 0;
  for (int k = 0; k < path.n_boxes; ++k) {
    const BoxClause& box = path.boxes[k];
    const int position = qual_position(box.clause);
    if (position >= 0) plan->boxes[plan->n_boxes++] = PlanBox{position, box.enlarged_side, box.r, box.n};
  }
}

Plan* build_plan(PlannerInfo* root, CustomPath* best_path, List* tlist, List* custom_plans) {
  const JoinPathInfo path = deform_path_private(best_path);
  const Match& m = path.match;
  Plan* outer_plan = static_cast<Plan*>(linitial(custom_plans));
  Plan* inner_plan = static_cast<Plan*>(lsecond(custom_plans));
  // A computed key rechecked on every candidate: a column of its side's rows, computed once.
  if (key_stored_as_column(m.outer_key, m.form.kind, path.exact))
    outer_plan = with_key_column(root, outer_plan, m.outer_key);
  if (key_stored_as_column(m.inner_key, m.form.kind, path.exact))
    inner_plan = with_key_column(root, inner_plan, m.inner_key);

  JoinPlanInfo plan{};
  plan.form = m.form;
  plan.outer_key = m.outer_key;
  plan.inner_key = m.inner_key;
  plan.eps = m.eps;
  plan.strict = m.strict;
  plan.radius_side = m.radius_side;
  plan.jointype = path.jointype;
  plan.output_mode = path.output_mode;
  plan.nearest_distance = path.nearest_distance;
  plan_clauses(root, best_path, path, &plan);
  plan.outer_columns = list_length(outer_plan->targetlist);
  // A per-row radius is read while its side is loaded, an outer or anti-join keeps the outer
  // rows without a key, an ordered join its own outer rows: the outer side cannot borrow the
  // inner's.
  plan.same_scan = m.radius_side < 0 && path.jointype == JOIN_INNER &&
                   path.output_mode == OUTPUT_UNORDERED &&
                   same_scan(root, outer_plan, inner_plan, m.outer_key, m.inner_key);
  // The key order of a self-join applies where the outer side is the inner side's rows, and to
  // the nearest mode's fold (a.k <> b.k: two kept per outer point).
  plan.key_order = plan.same_scan || path.output_mode == OUTPUT_NEAREST ? path.key_order
                                                                        : KEY_ORDER_NONE;
  plan.inner_rereadable = rereadable_scan(root, inner_plan);
  plan.parallel_ok = root->glob->parallelModeOK;
  plan.rows[0] = row_identity(root, outer_plan);
  plan.rows[1] = row_identity(root, inner_plan);
  // The outer side read through an index: in place of its SeqScan child, the probe keys' values
  // computed from the inner child's columns.
  plan.probe = path.probe;
  if (OidIsValid(plan.probe.index) &&
      (!IsA(outer_plan, SeqScan) || !probe_values_in_tlist(plan.probe, inner_plan->targetlist)))
    plan.probe = IndexProbe{InvalidOid, 0, nullptr};
  plan.n_scale = list_length(m.scale);
  plan.scale = static_cast<PlanScaleStep*>(palloc0(sizeof(PlanScaleStep) * Max(plan.n_scale, 1)));
  int k = 0;
  ListCell* lc;
  foreach (lc, m.scale) {
    List* step = lfirst_node(List, lc);
    plan.scale[k++] = PlanScaleStep{scale_step_op(step), scale_step_factor(step)};
  }

  CustomScan* cscan = makeNode(CustomScan);
  cscan->scan.plan.targetlist = tlist;
  // The clauses are in custom_exprs rather than the plan's qual: the executor checks them
  // itself, and EXPLAIN shows them with each column's side (explain_scan), as PostgreSQL shows a
  // join's clauses.
  cscan->scan.plan.qual = NIL;
  cscan->scan.scanrelid = 0;
  cscan->flags = best_path->flags;
  cscan->custom_plans = list_make2(outer_plan, inner_plan);
  cscan->custom_scan_tlist = scan_tlist_of(outer_plan, inner_plan);
  form_plan_private(plan, cscan);
  cscan->methods = &scan_methods;
  return &cscan->scan.plan;
}

}  // namespace

Plan* plan_custom_path(PlannerInfo* root, RelOptInfo*, CustomPath* best_path, List* tlist,
                       List*, List* custom_plans) {
  return cpp_guard([&] { return build_plan(root, best_path, tlist, custom_plans); });
}

}  // namespace simjoin::pg::cs
