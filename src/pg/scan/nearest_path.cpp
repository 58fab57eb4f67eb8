// The nearest row of the other side within the bound, per outer row, as the engine computes it:
//   SELECT DISTINCT ON (a.k) a.k, b.k, a.v <-> b.v AS d FROM a JOIN b ON a.v <-> b.v <= eps
//   ORDER BY a.k, a.v <-> b.v [, b.k ...]
#include "pg/pg_guard.h"
#include "pg/scan/plan_info.h"

extern "C" {
#include "catalog/pg_type_d.h"
#include "access/stratnum.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/tlist.h"
#include "utils/memutils.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"
}

#include <cmath>

namespace simjoin::pg::cs {

// PostgreSQL's own plan produces every pair, sorts all of them by (a.k, d, b.k) and keeps the
// first of each a.k. Here the SimilarityJoin runs in a "nearest" mode (pg/scan/nearest.cpp):
// the engine's pairs are folded per outer point, keeping only the partner with the smallest
// (distance, inner row); the outer rows are handed out in their input's order, which is sorted
// by the DISTINCT ON keys; an Incremental Sort on the ORDER BY (presorted on the DISTINCT ON
// keys: its groups are the rows of one key, usually one row) and PostgreSQL's Unique go on top.
//
// Mechanism: the upper-path hook at UPPERREL_DISTINCT over a join relation (pg/scan/custom_scan.cpp:
// add_nearest_paths, after other extensions' hooks), not the join path hook: the nearest scan
// returns fewer rows than the join, so it may only appear under the DISTINCT ON that discards
// the others. The join path hook (pg/scan/join_path.cpp) keeps each unordered path it makes
// (KeptJoinPath, before add_path, which may free it); the distinct hook finds those of the
// query's top join relation by (root, join relation) and derives the nearest path from them.
//
// Correctness of each part:
// - Only where the engine decides the distance clause exactly (engine_is_exact, no arithmetic
//   on the distance, one bound for every pair, not ST_DWithin) and the distance in the ORDER BY
//   is equal() to the clause's: the engine's distance is then the operator's value bit for bit,
//   so its smallest is the first in PostgreSQL's ORDER BY; or point <-> point, which the fold
//   measures and decides with PostgreSQL's arithmetic (planar_point_distance, probed). Other
//   rechecked forms (geography, pgvector, PostGIS shapes): the fold checks each candidate with
//   the join's clause and evaluates the ORDER BY's distance on it (a float8 expression of both
//   sides, JoinPathInfo::nearest_distance), so its smallest is again PostgreSQL's first.
// - The join's clauses are the distance clause and cube's box clauses decided natively on the
//   engine's pairs (the fold checks them: pg/scan/nearest.cpp), and at most a self-join's
//   a.k <> b.k on a unique NOT NULL column, which rejects one inner row per outer row: the fold
//   keeps the two nearest and the scan checks the clause on both. Another clause could reject
//   any number of the nearest (a.k < b.k too), and is not taken. An inner or LEFT join, the last of the
//   query's joins (of all its relations), with no aggregate, window function, set-returning
//   function or GROUP BY between it and the DISTINCT. A LEFT join's outer row without a partner comes out
//   null-extended after its (failed) candidates, as in the ordered output; its NULL distance
//   sorts where the ORDER BY puts NULLs, among the rows of its key.
// - The DISTINCT ON keys are computed from the outer relation alone (the outer input is sorted
//   on them: an index path or a Sort); the ORDER BY continues with the distance ascending and
//   then only expressions of the inner relation: the inner input is sorted on those, so that its
//   row number is the tie-break the fold uses (ties beyond them: the first inner row, as
//   unspecified in PostgreSQL). Rows of the outer side sharing a key come out in their input's
//   order; the Incremental Sort puts them in ORDER BY order and Unique keeps the first, which is
//   PostgreSQL's answer: the first row of the key over all pairs is the nearest pair of one of
//   its outer rows. Pairs with rows the engine cannot represent (wild rows) are all handed out,
//   checked with the clause by the operator, and take part in that sort.

namespace {

// Whether the join's clauses beyond the distance clause and cube's box clauses are at most a
// self-join's  a.k <> b.k  (match_key_order's KEY_ORDER_BOTH_WAYS) on a NOT NULL column: it
// rejects exactly one inner row of an outer row (the row itself), so that the nearest accepted
// partner is one of the two nearest (the fold keeps two; the scan checks the clause on them).
bool other_clauses_allowed(PlannerInfo* root, const JoinPathInfo& info) {
  const int others = list_length(info.restrictlist) - 1 - info.n_boxes;
  if (others == 0) return true;
  if (others != 1 || info.key_order != KEY_ORDER_BOTH_WAYS) return false;
  ListCell* lc;
  foreach (lc, info.restrictlist) {
    Expr* clause = lfirst_node(RestrictInfo, lc)->clause;
    bool known = equal(clause, info.match.clause);
    for (int k = 0; k < info.n_boxes; ++k) known = known || equal(clause, info.boxes[k].clause);
    if (known) continue;
    if (!IsA(clause, OpExpr)) return false;
    ListCell* arg;
    foreach (arg, reinterpret_cast<OpExpr*>(clause)->args)
      if (!is_not_null_column(root, static_cast<Node*>(lfirst(arg)))) return false;
  }
  return true;
}

// What the nearest path of a kept join measures: the clause's distance expression (the
// engine's, or PostgreSQL's point arithmetic in the fold), or, where the engine does not measure
// the form, the ORDER BY's distance evaluated on each candidate (evaluated, distance nullptr).
struct NearestMeasure {
  Expr* distance;
  bool evaluated;
};

// The measure of a kept join where the nearest path may derive from it (see the top: an inner
// or LEFT join, the query's top join, one bound, the distance clause and cube's box clauses its
// only clauses but for a.k <> b.k); {nullptr, false} otherwise.
NearestMeasure nearest_measure(PlannerInfo* root, const KeptJoinPath* kept) {
  const JoinPathInfo info = deform_path_private(kept->path);
  const Match& match = info.match;
  if ((info.jointype != JOIN_INNER && info.jointype != JOIN_LEFT) ||
      !bms_equal(kept->joinrel->relids, root->all_baserels) || match.scale != NIL ||
      match.radius_side >= 0 || !other_clauses_allowed(root, info))
    return {nullptr, false};
  // point <-> point: the fold measures and decides each candidate with PostgreSQL's own
  // arithmetic (planar_point_distance, probed), its value the operator's bit for bit.
  const bool planar = match.form.kind == KEY_POINT && !match.form.dwithin && exact_point_distance();
  if (!info.exact && !planar) return {nullptr, true};
  // PostGIS's ST_DWithin on points: ST_Distance of the keys, where its probe passes.
  if (match.form.dwithin) {
    Expr* st_distance = postgis_distance_of(match);
    return {st_distance, st_distance == nullptr};
  }
  if (!IsA(match.clause, OpExpr)) return {nullptr, false};
  // The distance: the comparison's argument that is not the bound.
  const OpExpr* op = reinterpret_cast<const OpExpr*>(match.clause);
  return {static_cast<Expr*>(linitial(op->args) == match.eps ? lsecond(op->args)
                                                             : linitial(op->args)),
          false};
}

// The ORDER BY's distance where PostgreSQL evaluates it on each candidate: a member of the
// pathkey's class that reads both sides of the join, float8, no volatile function or subplan.
Expr* evaluated_distance(const KeptJoinPath* join, const PathKey* pk) {
  const EquivalenceClass* ec = pk->pk_eclass;
  if (ec->ec_has_volatile) return nullptr;
  ListCell* lc;
  foreach (lc, ec->ec_members) {
    const EquivalenceMember* em = static_cast<EquivalenceMember*>(lfirst(lc));
    Node* expr = reinterpret_cast<Node*>(em->em_expr);
    if (em->em_is_child || em->em_is_const || exprType(expr) != FLOAT8OID ||
        !bms_overlap(em->em_relids, join->outerrel->relids) ||
        !bms_overlap(em->em_relids, join->innerrel->relids) ||
        !bms_is_subset(em->em_relids, join->joinrel->relids) || contain_subplans(expr) ||
        contain_volatile_functions(expr))
      continue;
    return em->em_expr;
  }
  return nullptr;
}

// Whether an expression of the pathkey's class is computed from `relids` alone.
bool pathkey_reads_only(const PathKey* pk, Relids relids) {
  const EquivalenceClass* ec = pk->pk_eclass;
  if (ec->ec_has_volatile) return false;
  ListCell* lc;
  foreach (lc, ec->ec_members) {
    const EquivalenceMember* em = static_cast<EquivalenceMember*>(lfirst(lc));
    if (!em->em_is_child && !em->em_is_const && !bms_is_empty(em->em_relids) &&
        bms_is_subset(em->em_relids, relids))
      return true;
  }
  return false;
}

// Whether the pathkey is `distance` ascending in float8's default order.
bool is_distance_ascending(const PathKey* pk, Expr* distance) {
  if (pk->pk_strategy != BTLessStrategyNumber || exprType(reinterpret_cast<Node*>(distance)) !=
                                                     FLOAT8OID)
    return false;
  TypeCacheEntry* type = lookup_type_cache(FLOAT8OID, TYPECACHE_BTREE_OPFAMILY);
  if (pk->pk_opfamily != type->btree_opf) return false;
  ListCell* lc;
  foreach (lc, pk->pk_eclass->ec_members) {
    const EquivalenceMember* em = static_cast<EquivalenceMember*>(lfirst(lc));
    if (!em->em_is_child && equal(em->em_expr, distance)) return true;
  }
  return false;
}

// The cheapest unparameterized path of `rel` sorted on `pathkeys`: one that has them, or its
// cheapest path sorted.
Path* sorted_input(PlannerInfo* root, RelOptInfo* rel, Path* cheapest, List* pathkeys) {
  if (pathkeys == NIL) return cheapest;
  Path* best = reinterpret_cast<Path*>(create_sort_path(root, rel, cheapest, pathkeys, -1.0));
  ListCell* lc;
  foreach (lc, rel->pathlist) {
    Path* path = static_cast<Path*>(lfirst(lc));
    if (!PATH_REQ_OUTER(path) && pathkeys_contained_in(pathkeys, path->pathkeys) &&
        path->total_cost < best->total_cost)
      best = path;
  }
  return best;
}

// The nearest path of one kept join, whose clause computes `distance`, if the query's shape
// allows it (see the top).
void add_nearest_path(PlannerInfo* root, const KeptJoinPath* join, NearestMeasure measure,
                      RelOptInfo* input_rel, RelOptInfo* distinct_rel, List* needed,
                      int n_distinct) {
  for (int k = 0; k < n_distinct; ++k)
    if (!pathkey_reads_only(static_cast<PathKey*>(list_nth(needed, k)), join->outerrel->relids))
      return;
  const PathKey* distance_key = static_cast<PathKey*>(list_nth(needed, n_distinct));
  Expr* distance =
      measure.evaluated ? evaluated_distance(join, distance_key) : measure.distance;
  if (!distance || !is_distance_ascending(distance_key, distance)) return;
  List* tie_keys = list_copy_tail(needed, n_distinct + 1);
  ListCell* lc;
  foreach (lc, tie_keys)
    if (!pathkey_reads_only(static_cast<PathKey*>(lfirst(lc)), join->innerrel->relids)) return;

  const CustomPath* unordered = join->path;
  Path* outer = sorted_input(root, join->outerrel,
                             static_cast<Path*>(linitial(unordered->custom_paths)),
                             list_truncate(list_copy(needed), n_distinct));
  Path* inner = sorted_input(root, join->innerrel,
                             static_cast<Path*>(lsecond(unordered->custom_paths)), tie_keys);
  // Cost: both inputs read (and sorted), each row into the engine, the engine's pairs, each
  // folded into its outer row's best (one comparison), and one row per outer row with a match.
  const double rows_o = outer->rows, rows_i = inner->rows;
  JoinPathInfo info = deform_path_private(unordered);
  // A key-ordered self-join's unordered plan takes each unordered pair once (a shared scan);
  // the nearest mode reads both sides and takes every pair both ways: twice the candidates.
  const double candidates = join->candidates * (info.key_order != KEY_ORDER_NONE ? 2 : 1);
  // The outer rows with a match (a LEFT join: every outer row).
  const double matched = info.jointype == JOIN_LEFT
                             ? rows_o
                             : rows_o * (1 - std::exp(-candidates / Max(rows_o, 1.0)));
  const Cost per_row = cpu_tuple_cost + row_cost_setting;
  PathTarget* target = input_rel->reltarget;
  CustomPath* path = makeNode(CustomPath);
  *path = *unordered;
  path->path.pathtarget = target;
  path->path.rows = clamp_row_est(matched);
  // (an evaluated distance: the join's clauses on each candidate, the distance on each pair)
  Cost evaluation = 0;
  if (measure.evaluated) {
    QualCost distance_cost;
    cost_qual_eval_node(&distance_cost, reinterpret_cast<Node*>(distance), root);
    evaluation = candidates * (checked_clauses_cost(root, info).per_tuple + cpu_tuple_cost) +
                 unordered->path.rows * distance_cost.per_tuple;
  }
  path->path.startup_cost = outer->total_cost + inner->total_cost + startup_cost_setting +
                            (rows_o + rows_i) * per_row +
                            candidates * (pair_cost_setting + cpu_operator_cost) + evaluation;
  path->path.total_cost = path->path.startup_cost +
                          path->path.rows * (cpu_tuple_cost + target->cost.per_tuple);
  path->path.pathkeys = list_truncate(list_copy(needed), n_distinct);
  path->custom_paths = list_make2(outer, inner);
  info.output_mode = OUTPUT_NEAREST;
  info.nearest_distance = measure.evaluated ? distance : nullptr;
  path->custom_private = form_path_private(info);

  // ORDER BY within the rows of one key, then the first of each key.
  Path* sorted = reinterpret_cast<Path*>(
      create_incremental_sort_path(root, distinct_rel, &path->path, needed, n_distinct, -1.0));
  List* distinct_exprs = get_sortgrouplist_exprs(root->parse->distinctClause,
                                                 root->parse->targetList);
  const double groups =
      Min(sorted->rows, estimate_num_groups(root, distinct_exprs, sorted->rows, nullptr, nullptr));
  add_path(distinct_rel, reinterpret_cast<Path*>(create_upper_unique_path(
                             root, distinct_rel, sorted, n_distinct, groups)));
}

}  // namespace

void add_nearest_paths(PlannerInfo* root, RelOptInfo* input_rel, RelOptInfo* distinct_rel) {
  const Query* parse = root->parse;
  if (!parse->hasDistinctOn || parse->hasAggs || parse->groupClause != NIL ||
      parse->groupingSets != NIL || parse->hasWindowFuncs || parse->hasTargetSRFs ||
      root->hasHavingQual)
    return;
  // The order the DISTINCT ON needs (create_final_distinct_paths): the ORDER BY where it is
  // longer than the DISTINCT ON keys, which it begins with.
  const int n_distinct = list_length(root->distinct_pathkeys);
  List* needed = root->sort_pathkeys;
  if (n_distinct == 0 || list_length(needed) <= n_distinct ||
      !pathkeys_contained_in(root->distinct_pathkeys, needed))
    return;
  // The last kept first (add_path keeps the first of two paths it finds equal).
  for (const KeptJoinPath* join = last_kept_join_path(); join; join = join->previous) {
    if (join->root != root || join->joinrel != input_rel) continue;
    const NearestMeasure measure = nearest_measure(root, join);
    if (measure.distance || measure.evaluated)
      add_nearest_path(root, join, measure, input_rel, distinct_rel, needed, n_distinct);
  }
}

}  // namespace simjoin::pg::cs
