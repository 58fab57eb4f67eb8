// The planner part of the SimilarityJoinAggregate scan (pg/scan/aggregate/aggregate.h): the join
// hook keeps each SimilarityJoin path it makes (KeptJoinPath, pg/scan/internal.h); the upper-path
// hook, for a grouping over such a join relation, checks the query's shape and adds a CustomPath
// to the grouped relation whose child is that join path, projected to the group key and the
// distance.
//
// Accepted: no HAVING, grouping sets, window functions or set-returning functions; at most one
// GROUP BY item, a hashable column of one side (that side becomes the outer one); aggregates
// count(*), count(<NOT NULL column>), and min / max of one float8 expression of the pair; no
// FILTER, DISTINCT or ORDER BY in them; the join an inner join whose only clauses are the
// distance clause and cube's box clauses (decided on the engine's pairs), or such a left join
// grouped by its kept side with count(<NOT NULL column of the other side>) (no count(*): a row
// without a partner counts 1 there). How the engine's pairs are decided and measured
// (PairDecision, pg/scan/aggregate/plan_info.h): by the engine, where it decides the clause and
// its double is the min's argument (simjoin's operators on real[] / float8[], distance.h; cube's
// distances and PostGIS's ST_Distance of points, probed; the keys either way round); by
// PostgreSQL's own point arithmetic reproduced in the engine (point <-> point, probed); else
// each candidate checked with the join's clause where the engine does not decide it and the
// argument evaluated by PostgreSQL on each pair. Any other shape gets no path, and the query
// runs as before.
#include "pg/scan/aggregate/aggregate.h"
#include "pg/scan/aggregate/plan_info.h"

#include "pg/pg_guard.h"
#include "pg/scan/plan_info.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_attribute.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
}

namespace simjoin::pg::cs {

namespace {

// ---- the query's shape ------------------------------------------------------------------------

// What the SimilarityJoin path says of its join.
struct JoinFacts {
  JoinType jointype;       // JOIN_INNER, or JOIN_LEFT (the outer input's rows kept)
  Path* outer_path;
  Relids inner_relids;
  Expr* distance;          // the distance expression of the clause (nullptr: ST_DWithin)
  bool distance_is_exact;  // the engine's double is the distance expression's value
  PairDecision decision;   // how the aggregate decides the engine's pairs
  Expr* folded;            // the min's and max's argument, once one is taken (engine_aggregate)
};

// Whether the join suits the aggregate: an inner or left join with no clause but the distance
// clause (and cube's box clauses, decided on the engine's pairs). The engine decides its pairs
// (exact), or planar_point_distance does (point <-> point, probed), or the clause's operator
// rechecks them (every other form: the certain band without it).
bool join_facts(PlannerInfo* root, const CustomPath* path, JoinFacts* facts) {
  const JoinPathInfo info = deform_path_private(path);
  if (info.output_mode != OUTPUT_UNORDERED) return false;  // an ordered variant
  if (list_length(info.restrictlist) != 1 + info.n_boxes) return false;
  facts->jointype = info.jointype;
  if (facts->jointype != JOIN_INNER && facts->jointype != JOIN_LEFT) return false;
  facts->outer_path = static_cast<Path*>(linitial(path->custom_paths));
  facts->inner_relids = static_cast<Path*>(lsecond(path->custom_paths))->parent->relids;
  facts->distance = nullptr;
  facts->folded = nullptr;
  Expr* clause = info.match.clause;
  if (IsA(clause, OpExpr)) {
    ListCell* lc;
    foreach (lc, reinterpret_cast<OpExpr*>(clause)->args)
      if (bms_num_members(pull_varnos(root, static_cast<Node*>(lfirst(lc)))) == 2)
        facts->distance = static_cast<Expr*>(lfirst(lc));
  }
  const KeyKind kind = info.match.form.kind;
  const Metric metric = info.match.form.metric;
  const bool dwithin = info.match.form.dwithin;
  const bool plain = info.match.scale == NIL && !dwithin && facts->distance != nullptr &&
                     exprType(reinterpret_cast<Node*>(facts->distance)) == FLOAT8OID;
  if (!info.exact) {
    // point <-> point compared with a constant: PostgreSQL's arithmetic in the engine.
    const bool planar = plain && kind == KEY_POINT && info.match.radius_side < 0 &&
                        exact_point_distance();
    facts->decision = planar ? PAIRS_PLANAR : PAIRS_RECHECKED;
    // (rechecked, any float8 expression of the pair is evaluated by PostgreSQL: engine_aggregate)
    facts->distance_is_exact = planar;
    return true;
  }
  facts->decision = PAIRS_EXACT;
  // simjoin's own operators compute exact_distance on the doubles the engine reads (distance.h),
  // and so do cube's three distances where the arithmetic probe found them equal (engine_is_exact);
  // the cosine distance and the other types' operators are not proven bitwise equal. The engine's
  // distance is the clause's only where no arithmetic is applied to it (info.match.scale).
  const bool same_arithmetic =
      (kind == KEY_FLOAT_ARRAY && metric != Metric::Cosine) || kind == KEY_CUBE;
  facts->distance_is_exact = plain && same_arithmetic;
  // PostGIS's ST_DWithin on points decided by the engine: ST_Distance(outer key, inner key) is
  // the engine's distance where its own probe shows the same arithmetic (wild rows' pairs, such
  // as polygons, come from the child with PostGIS's value).
  if (Expr* st_distance = postgis_distance_of(info.match)) {
    facts->distance = st_distance;
    facts->distance_is_exact = true;
  }
  return true;
}

// Whether a distance expression is the clause's, or the same function of the two keys swapped:
// the engine's distances and PostgreSQL's point arithmetic are symmetric bit for bit (the keys'
// differences are squared or taken absolutely; PostGIS's ST_Distance of two points, probed, is
// the engine's).
bool same_or_swapped(Expr* expr, Expr* distance) {
  if (equal(expr, distance)) return true;
  List* args = nullptr;
  List* distance_args = nullptr;
  if (IsA(expr, OpExpr) && IsA(distance, OpExpr)) {
    const OpExpr* a = reinterpret_cast<OpExpr*>(expr);
    const OpExpr* b = reinterpret_cast<OpExpr*>(distance);
    if (a->opfuncid != b->opfuncid) return false;
    args = a->args;
    distance_args = b->args;
  } else if (IsA(expr, FuncExpr) && IsA(distance, FuncExpr)) {
    const FuncExpr* a = reinterpret_cast<FuncExpr*>(expr);
    const FuncExpr* b = reinterpret_cast<FuncExpr*>(distance);
    if (a->funcid != b->funcid) return false;
    args = a->args;
    distance_args = b->args;
  }
  return list_length(args) == 2 && list_length(distance_args) == 2 &&
         equal(linitial(args), lsecond(distance_args)) &&
         equal(lsecond(args), linitial(distance_args));
}

// Whether a rechecked join's aggregate can evaluate `expr` on each pair as its distance: float8,
// of the join's own columns, no volatile function, subplan or aggregate.
bool evaluable_distance(PlannerInfo* root, RelOptInfo* joinrel, Expr* expr) {
  Node* node = reinterpret_cast<Node*>(expr);
  return exprType(node) == FLOAT8OID && !contain_volatile_functions(node) &&
         !contain_subplans(node) && !contain_agg_clause(node) &&
         bms_is_subset(pull_varnos(root, node), joinrel->relids);
}

// A column of the join's relations declared NOT NULL (count(column) counts every pair then).
bool not_null_column(PlannerInfo* root, RelOptInfo* joinrel, Expr* expr) {
  return IsA(expr, Var) && bms_is_member(reinterpret_cast<Var*>(expr)->varno, joinrel->relids) &&
         is_not_null_column(root, reinterpret_cast<Node*>(expr));
}

// Whether a unique, immediate, non-partial index on exactly this column proves it unique among
// its table's rows (NULLs aside) under the GROUP BY's equality: each outer point is then its own
// group. The index's equality must be the grouping's operator, and no finer than its collation:
// under a deterministic collation equal means identical, so any collation's uniqueness will do;
// under a nondeterministic one ('a' = 'A' case-insensitively) only an index of that collation.
bool unique_column(PlannerInfo* root, const Var* var, Oid eq_operator, Oid collation) {
  RelOptInfo* rel = find_base_rel(root, var->varno);
  const bool any_collation = !OidIsValid(collation) || get_collation_isdeterministic(collation);
  ListCell* lc;
  foreach (lc, rel->indexlist) {
    const IndexOptInfo* index = lfirst_node(IndexOptInfo, lc);
    if (index->unique && index->immediate && index->indpred == NIL && index->nkeycolumns == 1 &&
        index->indexkeys[0] == var->varattno && op_in_opfamily(eq_operator, index->opfamily[0]) &&
        (any_collation || index->indexcollations[0] == collation))
      return true;
  }
  return false;
}

// The engine's aggregate for an Aggref, or -1. A left join's rows without a partner count 0:
// count(<NOT NULL column of the inner side>) only (*counted: that column).
int engine_aggregate(PlannerInfo* root, RelOptInfo* joinrel, JoinFacts& facts,
                     const Aggref* agg, Expr** counted) {
  if (agg->aggfilter || agg->aggdistinct != NIL || agg->aggorder != NIL || agg->agglevelsup != 0 ||
      agg->aggsplit != AGGSPLIT_SIMPLE || agg->aggkind != AGGKIND_NORMAL)
    return -1;
  Expr* arg = list_length(agg->args) == 1 ? linitial_node(TargetEntry, agg->args)->expr : nullptr;
  switch (agg->aggfnoid) {
    case F_COUNT_:
      return facts.jointype == JOIN_INNER ? AGG_COUNT : -1;
    case F_COUNT_ANY:
      if (!arg || !not_null_column(root, joinrel, arg)) return -1;
      if (facts.jointype == JOIN_INNER) return AGG_COUNT;
      if (!bms_is_member(reinterpret_cast<Var*>(arg)->varno, facts.inner_relids)) return -1;
      if (!*counted) *counted = arg;
      return AGG_COUNT;
    case F_MIN_FLOAT8:
    case F_MAX_FLOAT8:
      if (!arg) return -1;
      if (!facts.folded) {  // the first min or max: its argument is the folded distance
        if (facts.decision == PAIRS_RECHECKED ||
            !(facts.distance_is_exact && same_or_swapped(arg, facts.distance))) {
          // PostgreSQL evaluates it on each pair (an exact join's pairs then need no check)
          if (!evaluable_distance(root, joinrel, arg)) return -1;
          facts.decision = PAIRS_RECHECKED;
        }
        facts.folded = arg;
      }
      if (!equal(arg, facts.folded)) return -1;
      return agg->aggfnoid == F_MIN_FLOAT8 ? AGG_MIN_DISTANCE : AGG_MAX_DISTANCE;
    default:
      return -1;
  }
}

// A self-join's inner input made to return the outer input's columns (its own Vars), where both
// scan one table: the SimilarityJoin plan then reads the table once for both sides (same_scan in
// pg/scan/plan.cpp, which checks the rest). The grouped side's key is often a column only the
// outer input returns.
Path* inner_like_outer(PlannerInfo* root, Path* outer, Path* inner) {
  if (!IsA(outer, Path) || !IsA(inner, Path) || outer->pathtype != T_SeqScan ||
      inner->pathtype != T_SeqScan)
    return inner;
  RelOptInfo* outer_rel = outer->parent;
  RelOptInfo* inner_rel = inner->parent;
  if (outer_rel->reloptkind != RELOPT_BASEREL || inner_rel->reloptkind != RELOPT_BASEREL ||
      planner_rt_fetch(outer_rel->relid, root)->relid !=
          planner_rt_fetch(inner_rel->relid, root)->relid)
    return inner;
  PathTarget* target = copy_pathtarget(outer->pathtarget);
  target->exprs = static_cast<List*>(copyObjectImpl(target->exprs));  // the Vars are shared
  ChangeVarNodes(reinterpret_cast<Node*>(target->exprs), outer_rel->relid, inner_rel->relid, 0);
  ListCell* lc;
  foreach (lc, inner->pathtarget->exprs)  // and its own (then the scans differ and are not shared)
    if (!list_member(target->exprs, lfirst(lc)))
      add_column_to_pathtarget(target, static_cast<Expr*>(lfirst(lc)), 0);
  Path* copy = makeNode(Path);
  *copy = *inner;
  copy->pathtarget = target;
  return copy;
}

// ---- the path and its plan --------------------------------------------------------------------

Plan* plan_aggregate(PlannerInfo*, RelOptInfo*, CustomPath* best_path, List* tlist, List*,
                     List* custom_plans) {
  const AggregatePathInfo info = deform_aggregate_path_private(best_path);
  CustomScan* cscan = makeNode(CustomScan);
  cscan->scan.plan.targetlist = tlist;
  cscan->scan.plan.qual = NIL;
  cscan->scan.scanrelid = 0;
  cscan->flags = best_path->flags;
  cscan->custom_plans = custom_plans;
  cscan->custom_exprs = NIL;
  // The scan tuple: the group key (if any), then the aggregates; setrefs maps the target list's
  // Aggrefs and key onto it.
  List* scan_tlist = NIL;
  AttrNumber resno = 1;
  ListCell* lc;
  foreach (lc, info.key_and_aggs)
    scan_tlist = lappend(scan_tlist, makeTargetEntry(static_cast<Expr*>(copyObjectImpl(lfirst(lc))),
                                                     resno++, nullptr, false));
  cscan->custom_scan_tlist = scan_tlist;
  cscan->custom_private = form_aggregate_plan_private(info.plan);
  cscan->methods = &aggregate_scan_methods;
  return &cscan->scan.plan;
}

const CustomPathMethods aggregate_path_methods = {"SimilarityJoinAggregate", plan_aggregate};

}  // namespace

void add_aggregate_path(PlannerInfo* root, UpperRelationKind stage, RelOptInfo* input_rel,
                        RelOptInfo* grouped_rel) {
  Query* parse = root->parse;
  const bool distinct = stage == UPPERREL_DISTINCT;
  List* group_clause = distinct ? parse->distinctClause : parse->groupClause;
  if (!first_kept_join_path() || parse->groupingSets != NIL || parse->havingQual || parse->hasWindowFuncs ||
      parse->hasTargetSRFs || list_length(group_clause) > 1 ||
      bms_num_members(input_rel->relids) != 2)
    return;
  if (distinct ? parse->hasDistinctOn || parse->hasAggs || parse->groupClause != NIL ||
                     group_clause == NIL
               : !parse->hasAggs && group_clause == NIL)
    return;
  // A DISTINCT's rel has no target of its own: its rows are the join's final target.
  PathTarget* target = distinct ? input_rel->reltarget : grouped_rel->reltarget;
  Var* key = nullptr;
  Oid eq_operator = InvalidOid;
  if (group_clause != NIL) {
    SortGroupClause* group = linitial_node(SortGroupClause, group_clause);
    Node* expr = get_sortgroupclause_expr(group, parse->targetList);
    if (!IsA(expr, Var) || !group->hashable || !OidIsValid(group->eqop)) return;
    key = reinterpret_cast<Var*>(expr);
    if (key->varlevelsup != 0 || !bms_is_member(key->varno, input_rel->relids)) return;
    eq_operator = group->eqop;
  }
  // The join path: the grouped side outer; the cheapest of the usable ones.
  const CustomPath* join = nullptr;
  JoinFacts facts{};
  ListCell* lc;
  for (const KeptJoinPath* kept = first_kept_join_path(); kept; kept = kept->next) {
    JoinFacts candidate;
    if (kept->root != root || kept->joinrel != input_rel ||
        !join_facts(root, kept->path, &candidate))
      continue;
    if (key && !bms_is_member(key->varno, candidate.outer_path->parent->relids)) continue;
    if (!join || kept->path->path.total_cost < join->path.total_cost) {
      join = kept->path;
      facts = candidate;
    }
  }
  if (!join) return;

  // The grouped target: the key (or expressions of it) and the aggregates the engine computes.
  List* aggs = NIL;
  List* kinds = NIL;
  bool need_distance = false;
  Expr* counted = nullptr;  // a left join's counted column
  List* items = pull_var_clause(reinterpret_cast<Node*>(target->exprs),
                                PVC_INCLUDE_AGGREGATES | PVC_INCLUDE_WINDOWFUNCS |
                                    PVC_INCLUDE_PLACEHOLDERS);
  foreach (lc, items) {
    Node* item = static_cast<Node*>(lfirst(lc));
    if (IsA(item, Var) && key && equal(item, key)) continue;
    if (!IsA(item, Aggref)) return;
    if (list_member(aggs, item)) continue;
    const int kind =
        engine_aggregate(root, input_rel, facts, reinterpret_cast<Aggref*>(item), &counted);
    if (kind < 0) return;
    need_distance = need_distance || kind != AGG_COUNT;
    aggs = lappend(aggs, item);
    kinds = lappend_int(kinds, kind);
  }
  if (aggs == NIL && !key) return;  // (a GROUP BY without aggregates: the groups alone)

  // The child: the join path projected to the key, the distance and a left join's counted column
  // (the pairs with a wild row; a left join's outer rows without a partner among them).
  CustomPath* child = makeNode(CustomPath);
  *child = *join;
  Path* inner_path = static_cast<Path*>(lsecond(join->custom_paths));
  child->custom_paths = list_make2(
      facts.outer_path, facts.jointype == JOIN_INNER
                            ? inner_like_outer(root, facts.outer_path, inner_path)
                            : inner_path);
  PathTarget* child_target = create_empty_pathtarget();
  if (key) add_column_to_pathtarget(child_target, reinterpret_cast<Expr*>(key), 0);
  if (need_distance) add_column_to_pathtarget(child_target, facts.folded, 0);
  if (counted) add_column_to_pathtarget(child_target, counted, 0);
  child->path.pathtarget = set_pathtarget_cost_width(root, child_target);

  // Cost: the join path without handing its pairs on (each pair is one fold in the engine's
  // sink, within the pair cost already), a hash lookup per outer row with a partner, one row
  // per group.
  const double pairs = join->path.rows;
  const double outer_rows = facts.outer_path->rows;
  const double grouped_rows = facts.jointype == JOIN_LEFT ? outer_rows : Min(pairs, outer_rows);
  const double groups =
      key ? estimate_num_groups(root, list_make1(key), Max(grouped_rows, 1.0), nullptr, nullptr)
          : 1;
  // (a left join's groups without a partner come from the child: never read in place)
  const bool unique = key && facts.jointype == JOIN_INNER &&
                      unique_column(root, key, eq_operator, exprCollation(reinterpret_cast<Node*>(key)));
  // (pairs decided or measured in the fold: a call each, and an evaluated distance's expression)
  QualCost evaluation{0, 0};
  if (need_distance && facts.decision == PAIRS_RECHECKED)
    cost_qual_eval_node(&evaluation, reinterpret_cast<Node*>(facts.folded), root);
  const Cost folded = join->path.total_cost - pairs * cpu_tuple_cost +
                      (facts.decision != PAIRS_EXACT
                           ? pairs * (cpu_operator_cost + evaluation.per_tuple)
                           : 0) +
                      (key && !unique ? grouped_rows * 2 * cpu_operator_cost : 0) +
                      list_length(aggs) * groups * cpu_operator_cost;

  CustomPath* cpath = makeNode(CustomPath);
  cpath->path.pathtype = T_CustomScan;
  cpath->path.parent = grouped_rel;
  cpath->path.pathtarget = target;
  cpath->path.param_info = nullptr;
  cpath->path.parallel_aware = false;
  cpath->path.parallel_safe = false;
  cpath->path.parallel_workers = 0;
  cpath->path.rows = groups;
  cpath->path.startup_cost = folded;
  cpath->path.total_cost = folded + groups * cpu_tuple_cost;
  cpath->path.pathkeys = NIL;
  cpath->flags = 0;
  cpath->custom_paths = list_make1(child);
  AggregatePathInfo info;
  info.key_and_aggs = key ? lcons(key, list_copy(aggs)) : aggs;
  AggregatePlanInfo& plan = info.plan;
  plan.grouped = key != nullptr;
  plan.eq_operator = eq_operator;
  plan.collation = key ? exprCollation(reinterpret_cast<Node*>(key)) : InvalidOid;
  plan.distance_column = need_distance ? (key ? 1 : 0) : -1;
  plan.key_unique = unique;
  plan.counted_column = counted ? Max(plan.distance_column, key ? 0 : -1) + 1 : -1;
  plan.pair_decision = facts.decision;
  plan.n_aggs = list_length(kinds);
  plan.kinds = static_cast<int*>(palloc(sizeof(int) * Max(plan.n_aggs, 1)));
  int k = 0;
  foreach (lc, kinds) plan.kinds[k++] = lfirst_int(lc);
  cpath->custom_private = form_aggregate_path_private(info);
  cpath->methods = &aggregate_path_methods;
  add_path(grouped_rel, &cpath->path);
}

}  // namespace simjoin::pg::cs
