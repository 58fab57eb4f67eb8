// The SimilarityJoin custom scan provider (issue 4): the join path hook, costing and the plan.
//
// For an inner join whose restriction list holds  dist(x, y) <= c  (or < c, c >= dist, c > dist,
// or PostGIS ST_DWithin(x, y, c)), x from one input and y from the other, c free of Vars, the
// hook offers a CustomPath "SimilarityJoin" next to PostgreSQL's own paths, costed from a sampled
// estimate of the result size. The plan keeps every clause of the join in its qual: the executor
// (custom_scan_exec.cpp) produces candidate pairs with the engine and checks each with those
// clauses, so the rows are exactly those of PostgreSQL's own plans. For simjoin's own distances
// (and cube's and PostGIS's where their arithmetic probe passes: engine_is_exact) the engine's
// pairs are exactly those the distance clause accepts, and only the other clauses are checked on
// them (the plan records the distance clause's position in the qual); cube's box clauses on the
// same keys are then decided natively too (their positions, sides, r and n in the plan).
#include "custom_scan.h"

#include "custom_scan_match.h"
#include "pg_guard.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

#include <cmath>
#include <utility>

namespace simjoin::pg::cs {

bool enable_customscan = true;
double startup_cost_setting = 100.0;
double row_cost_setting = 0.02;
double pair_cost_setting = 0.005;
int sample_rows_setting = 2000;

namespace {

set_join_pathlist_hook_type prev_join_pathlist_hook = nullptr;

Plan* plan_custom_path(PlannerInfo* root, RelOptInfo* rel, CustomPath* best_path, List* tlist,
                       List* clauses, List* custom_plans);

CustomPathMethods path_methods = {
    "SimilarityJoin",
    plan_custom_path,
    nullptr,
};

// The value of a constant-per-scan expression known at planning time (a Const, or a Param with
// a bound value in a custom plan). false: unknown.
bool planning_value(PlannerInfo* root, Expr* expr, double* value, bool* is_null) {
  Node* folded = estimate_expression_value(root, reinterpret_cast<Node*>(expr));
  if (!IsA(folded, Const)) return false;
  Const* c = reinterpret_cast<Const*>(folded);
  *is_null = c->constisnull;
  if (c->constisnull) return true;
  if (c->consttype == FLOAT8OID)
    *value = DatumGetFloat8(c->constvalue);
  else if (c->consttype == FLOAT4OID)
    *value = DatumGetFloat4(c->constvalue);
  else
    return false;
  return true;
}

// The bound on the distance itself known at planning time: eps, through the inverse of the
// arithmetic on the distance (inverse_bound). false: unknown (a per-row bound, a parameter).
bool planning_eps(PlannerInfo* root, const Match& match, double* eps, bool* is_null) {
  if (match.radius_side >= 0 || !planning_value(root, match.eps, eps, is_null)) return false;
  ListCell* lc;
  foreach (lc, match.scale) {
    List* step = lfirst_node(List, lc);
    double factor;
    bool factor_null;
    if (!planning_value(root, scale_step_factor(step), &factor, &factor_null)) return false;
    *is_null = *is_null || factor_null;
    if (!*is_null) *eps = inverse_bound(*eps, scale_step_op(step), factor);
  }
  return true;  // NaN: every pair is rechecked (the sample counts them all)
}

// "a", "a, b": the aliases of a relation set, for the planner's DEBUG1 lines.
const char* relation_names(PlannerInfo* root, Relids relids) {
  StringInfoData names;
  initStringInfo(&names);
  int relid = -1;
  while ((relid = bms_next_member(relids, relid)) >= 0) {
    RangeTblEntry* rte = root->simple_rte_array[relid];
    if (!rte || !rte->eref) continue;
    appendStringInfo(&names, "%s%s", names.len ? ", " : "", rte->eref->aliasname);
  }
  return names.data;
}

// The distance clause of the join, if one is taken. The hook sees each join twice (each input
// as the outer one): the DEBUG1 lines of the clauses not taken come from the first call.
bool find_distance_clause(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                          RelOptInfo* innerrel, JoinPathExtraData* extra, Match* match) {
  const bool report = message_level_is_interesting(DEBUG1) &&
                      bms_next_member(outerrel->relids, -1) < bms_next_member(innerrel->relids, -1);
  List* reasons = NIL;
  ListCell* lc;
  foreach (lc, extra->restrictlist) {
    const char* reason = nullptr;
    switch (match_clause(root, lfirst_node(RestrictInfo, lc), outerrel, innerrel, match, &reason)) {
      case ClauseMatch::Matched:
        return true;
      case ClauseMatch::Rejected:
        reasons = lappend(reasons, const_cast<char*>(reason));
        break;
      case ClauseMatch::NotDistance:
        break;
    }
  }
  if (report) {
    foreach (lc, reasons)
      elog(DEBUG1, "simjoin: join of %s with %s: a distance clause not taken: %s",
           relation_names(root, outerrel->relids), relation_names(root, innerrel->relids),
           static_cast<const char*>(lfirst(lc)));
  }
  (void)joinrel;
  return false;
}

void add_similarity_join_path(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                              RelOptInfo* innerrel, JoinPathExtraData* extra) {
  Path* outer_path = outerrel->cheapest_total_path;
  Path* inner_path = innerrel->cheapest_total_path;
  if (!outer_path || !inner_path) return;

  Match match;
  if (!find_distance_clause(root, joinrel, outerrel, innerrel, extra, &match)) return;
  const char* unusable = nullptr;
  if (PATH_REQ_OUTER(outer_path) || PATH_REQ_OUTER(inner_path))
    unusable = "an input is parameterized by another relation";
  else if (!bms_is_empty(joinrel->lateral_relids))
    unusable = "the join reads a LATERAL reference";
  if (unusable) {
    elog(DEBUG1, "simjoin: join of %s with %s: the distance clause not taken: %s",
         relation_names(root, outerrel->relids), relation_names(root, innerrel->relids),
         unusable);
    return;
  }

  // Result size: sampled where possible; else a selective join is assumed (similarity joins
  // usually are), capped by PostgreSQL's own estimate.
  double eps = 0;
  bool eps_null = false;
  double pairs = -1;
  if (planning_eps(root, match, &eps, &eps_null)) {
    if (eps_null) {
      pairs = 0;
    } else if (!estimate_pairs(root, outerrel, match.outer_key, innerrel, match.inner_key,
                               match.form, eps, &pairs)) {
      pairs = -1;
    }
  }
  const bool sampled = pairs >= 0;
  if (!sampled) pairs = Min(joinrel->rows, 10.0 * Max(outer_path->rows, inner_path->rows));

  // A self-join's key order clause (a.k < b.k on a unique column).
  KeyOrder key_order = KEY_ORDER_NONE;
  ListCell* lc;
  foreach (lc, extra->restrictlist) {
    key_order = match_key_order(root, lfirst_node(RestrictInfo, lc), outerrel, innerrel);
    if (key_order != KEY_ORDER_NONE) break;
  }

  // cube's box clauses on the same keys (implied by the distance for r >= eps): decided natively
  // where the cube distance is exact, and left out of the row estimate below either way.
  // The engine decides the clause itself only where it compares the distance with one eps.
  const bool exact =
      engine_is_exact(match.form) && match.scale == NIL && match.radius_side < 0;
  List* boxes = NIL;
  List* other_clauses = NIL;  // neither the distance clause nor a box clause
  foreach (lc, extra->restrictlist) {
    RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
    if (rinfo->clause == match.clause) continue;
    BoxClause box;
    if (match.form.kind == KEY_CUBE && !rinfo->pseudoconstant &&
        match_box_clause(rinfo->clause, match, &box)) {
      if (exact)
        boxes = lappend(boxes, list_make4(box.clause, makeInteger(box.enlarged_side), box.r,
                                          box.n));
      continue;
    }
    other_clauses = lappend(other_clauses, rinfo);
  }
  // The path's rows: the sampled pairs times the other clauses' selectivity, so that the plan
  // above a chosen SimilarityJoin sees its size; the join relation itself keeps PostgreSQL's
  // estimate (the default 1/3 for  expr <= c), which this hook cannot change for other paths.
  double path_rows = joinrel->rows;
  if (sampled)
    path_rows = clamp_row_est(
        pairs * clauselist_selectivity(root, other_clauses, 0, JOIN_INNER, extra->sjinfo));

  // Each candidate pair is checked with the join's clauses; where the engine is exact (simjoin's
  // own distances) its pairs are the result of the distance clause and only the others remain.
  QualCost qual_cost;
  cost_qual_eval(&qual_cost, extra->restrictlist, root);
  if (exact) {
    QualCost native_cost;
    cost_qual_eval_node(&native_cost, reinterpret_cast<Node*>(match.clause), root);
    qual_cost.per_tuple = Max(qual_cost.per_tuple - native_cost.per_tuple, 0.0);
    foreach (lc, boxes) {
      cost_qual_eval_node(&native_cost, static_cast<Node*>(linitial(lfirst_node(List, lc))), root);
      qual_cost.per_tuple = Max(qual_cost.per_tuple - native_cost.per_tuple, 0.0);
    }
  }
  const double candidates = exact ? pairs + 1 : pairs * 1.2 + 1;
  const double rows_o = outer_path->rows, rows_i = inner_path->rows;
  const double per_row = cpu_tuple_cost + row_cost_setting;

  Cost startup = inner_path->total_cost + outer_path->startup_cost + startup_cost_setting +
                 rows_i * per_row + qual_cost.startup;
  Cost run = (outer_path->total_cost - outer_path->startup_cost) + rows_o * per_row +
             candidates * (pair_cost_setting + qual_cost.per_tuple) +
             pairs * (cpu_tuple_cost + joinrel->reltarget->cost.per_tuple);

  CustomPath* cpath = makeNode(CustomPath);
  cpath->path.pathtype = T_CustomScan;
  cpath->path.parent = joinrel;
  cpath->path.pathtarget = joinrel->reltarget;
  cpath->path.param_info = nullptr;
  cpath->path.parallel_aware = false;
  cpath->path.parallel_safe = false;
  cpath->path.parallel_workers = 0;
  cpath->path.rows = path_rows;
  cpath->path.startup_cost = startup;
  cpath->path.total_cost = startup + run;
  cpath->path.pathkeys = NIL;
  cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
  cpath->custom_paths = list_make2(outer_path, inner_path);
  List* form = list_make5(makeInteger(match.form.kind),
                          makeInteger(static_cast<int>(match.form.metric)),
                          makeInteger(match.form.cosine), makeInteger(match.form.dwithin),
                          makeInteger(match.form.float32));
  cpath->custom_private =
      list_make5(extra->restrictlist, list_make3(match.outer_key, match.inner_key, match.eps),
                 form, list_make3(match.clause, makeInteger(exact), makeInteger(match.strict)),
                 boxes);
  cpath->custom_private = lappend(
      cpath->custom_private,
      list_make3(makeInteger(match.radius_side), match.scale, makeInteger(key_order)));
  cpath->methods = &path_methods;
  add_path(joinrel, &cpath->path);
}

// At DEBUG1, an outer, semi- or anti-join whose clauses hold a distance clause: not taken. (Each
// such join is seen once with these join types; its mirror is JOIN_RIGHT, or unique-ified.)
void report_join_type(PlannerInfo* root, RelOptInfo* outerrel, RelOptInfo* innerrel,
                      JoinType jointype, JoinPathExtraData* extra) {
  const char* name = jointype == JOIN_LEFT   ? "LEFT"
                     : jointype == JOIN_FULL ? "FULL"
                     : jointype == JOIN_SEMI ? "semi- (EXISTS, IN)"
                     : jointype == JOIN_ANTI ? "anti- (NOT EXISTS)"
                                             : nullptr;
  if (!name || !message_level_is_interesting(DEBUG1)) return;
  ListCell* lc;
  foreach (lc, extra->restrictlist) {
    Match match;
    const char* reason;
    if (match_clause(root, lfirst_node(RestrictInfo, lc), outerrel, innerrel, &match, &reason) ==
        ClauseMatch::Matched) {
      elog(DEBUG1, "simjoin: join of %s with %s: the distance clause not taken: %s joins are not "
           "supported", relation_names(root, outerrel->relids),
           relation_names(root, innerrel->relids), name);
      return;
    }
  }
}

void join_pathlist_hook(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                        RelOptInfo* innerrel, JoinType jointype, JoinPathExtraData* extra) {
  if (prev_join_pathlist_hook)
    prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
  if (!enable_customscan) return;
  if (jointype == JOIN_INNER)
    cpp_guard([&] { add_similarity_join_path(root, joinrel, outerrel, innerrel, extra); });
  else
    cpp_guard([&] { report_join_type(root, outerrel, innerrel, jointype, extra); });
}

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
  Plan* outer_plan = static_cast<Plan*>(linitial(custom_plans));
  Plan* inner_plan = static_cast<Plan*>(lsecond(custom_plans));

  CustomScan* cscan = makeNode(CustomScan);
  cscan->scan.plan.targetlist = tlist;
  // The qual (EXPR_QUAL) holds every clause of the join, in cost order: the executor checks all
  // of them on each candidate pair, except, where the engine is exact, the distance clause on the
  // engine's own pairs (PRIV_DISTANCE_QUAL: its position in the qual, which setrefs keeps).
  // (order_qual_clauses is static in createplan.c: a stable sort by per-tuple cost here.)
  const int nquals = list_length(restrictlist);
  struct Item {
    Expr* clause;
    Cost cost;
  };
  Item* items = static_cast<Item*>(palloc(sizeof(Item) * Max(nquals, 1)));
  int n = 0;
  ListCell* lc;
  foreach (lc, restrictlist) {
    RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
    QualCost cost;
    cost_qual_eval_node(&cost, reinterpret_cast<Node*>(rinfo->clause), root);
    items[n++] = Item{rinfo->clause, cost.per_tuple};
  }
  for (int i = 1; i < n; ++i)  // insertion sort: stable, and lists are short
    for (int j = i; j > 0 && items[j].cost < items[j - 1].cost; --j) std::swap(items[j], items[j - 1]);
  List* quals = NIL;
  for (int i = 0; i < n; ++i) quals = lappend(quals, items[i].clause);
  auto qual_position = [&](Expr* clause) {  // -1: not in the qual
    for (int i = 0; i < n; ++i)
      if (items[i].clause == clause) return i;
    return -1;
  };
  const int distance_index = exact ? qual_position(distance_clause) : -1;
  // In custom_exprs rather than the plan's qual: the executor checks it itself, and EXPLAIN
  // shows it with each column's side (explain_scan), as PostgreSQL shows a join's clauses.
  cscan->scan.plan.qual = NIL;
  cscan->scan.scanrelid = 0;
  cscan->flags = best_path->flags;
  cscan->custom_plans = custom_plans;
  cscan->custom_exprs = lappend(static_cast<List*>(copyObjectImpl(exprs)), quals);
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
  // A per-row radius is read while its side is loaded: the outer side cannot borrow the inner's.
  const bool shared = radius_side < 0 && same_scan(root, outer_plan, inner_plan,
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

Plan* plan_custom_path(PlannerInfo* root, RelOptInfo*, CustomPath* best_path, List* tlist,
                       List*, List* custom_plans) {
  return cpp_guard([&] { return build_plan(root, best_path, tlist, custom_plans); });
}

}  // namespace

}  // namespace simjoin::pg::cs

namespace simjoin::pg {

void custom_scan_init() {
  using namespace cs;
  DefineCustomBoolVariable("simjoin.enable_customscan",
                           "Lets the planner use the SimilarityJoin custom scan for joins on a "
                           "distance within a bound.",
                           nullptr, &enable_customscan, true, PGC_USERSET, 0, nullptr, nullptr,
                           nullptr);
  DefineCustomRealVariable("simjoin.customscan_startup_cost",
                           "Planner's fixed cost of starting a SimilarityJoin custom scan.",
                           nullptr, &startup_cost_setting, 100.0, 0.0, 1e10, PGC_USERSET, 0,
                           nullptr, nullptr, nullptr);
  DefineCustomRealVariable("simjoin.customscan_row_cost",
                           "Planner's cost of reading one input row's vector into the engine.",
                           nullptr, &row_cost_setting, 0.02, 0.0, 1e10, PGC_USERSET, 0, nullptr,
                           nullptr, nullptr);
  DefineCustomRealVariable("simjoin.customscan_pair_cost",
                           "Planner's cost of one candidate pair found by the engine (before the "
                           "recheck of the join clauses).",
                           nullptr, &pair_cost_setting, 0.005, 0.0, 1e10, PGC_USERSET, 0,
                           nullptr, nullptr, nullptr);
  DefineCustomIntVariable("simjoin.customscan_sample_rows",
                          "Rows sampled from each input to estimate a similarity join's size "
                          "(0: no sampling).",
                          nullptr, &sample_rows_setting, 2000, 0, 100000, PGC_USERSET, 0,
                          nullptr, nullptr, nullptr);
  init_exec_methods();
  RegisterCustomScanMethods(&scan_methods);
  register_form_invalidation();
  prev_join_pathlist_hook = set_join_pathlist_hook;
  set_join_pathlist_hook = join_pathlist_hook;
}

}  // namespace simjoin::pg
