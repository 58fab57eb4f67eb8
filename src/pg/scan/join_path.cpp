// The SimilarityJoin path of a join (called by the join path hook, pg/scan/custom_scan.cpp) and
// its cost.
//
// For an inner, LEFT, semi- or anti-join whose clauses hold a distance clause
// (pg/scan/match.h: f(dist(x, y)) <= c, < c, c >= f(dist), c > f(dist), or PostGIS
// ST_DWithin(x, y, c), f monotone arithmetic, x from one input and y from the other, c free of
// Vars or one side's radius), the hook offers a CustomPath "SimilarityJoin" next to PostgreSQL's
// own paths, costed from a sampled estimate of the result size. The plan (pg/scan/plan.cpp)
// keeps every clause of the join: the executor (pg/scan/exec.cpp) produces candidate pairs
// with the engine and checks each with those clauses, so the rows are exactly those of
// PostgreSQL's own plans. For simjoin's own distances compared with one eps (and cube's and
// PostGIS's where their arithmetic probe passes: engine_is_exact) the engine's pairs are exactly
// those the distance clause accepts, and only the other clauses are checked on them; cube's box
// clauses on the same keys are then decided natively too. At DEBUG1 the hook says why a clause
// computing a distance between the two inputs is not taken.
#include "pg/pg_guard.h"
#include "pg/scan/index_probe.h"
#include "pg/scan/plan_info.h"

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
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

#include <cmath>
#include <utility>

namespace simjoin::pg::cs {

namespace {

KeptJoinPath* first_kept = nullptr;
KeptJoinPath* last_kept = nullptr;

void forget_kept_path(void* arg) {
  KeptJoinPath* kept = static_cast<KeptJoinPath*>(arg);
  (kept->previous ? kept->previous->next : first_kept) = kept->next;
  (kept->next ? kept->next->previous : last_kept) = kept->previous;
}

void keep_join_path(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                    RelOptInfo* innerrel, const CustomPath* path, double candidates) {
  KeptJoinPath* kept = static_cast<KeptJoinPath*>(palloc0(sizeof(KeptJoinPath)));
  kept->root = root;
  kept->joinrel = joinrel;
  kept->outerrel = outerrel;
  kept->innerrel = innerrel;
  kept->path = makeNode(CustomPath);
  *kept->path = *path;
  kept->candidates = candidates;
  kept->forget.func = forget_kept_path;
  kept->forget.arg = kept;
  MemoryContextRegisterResetCallback(CurrentMemoryContext, &kept->forget);
  kept->previous = last_kept;
  (last_kept ? last_kept->next : first_kept) = kept;
  last_kept = kept;
}

CustomPathMethods path_methods = {
    "SimilarityJoin",
    plan_custom_path,
    nullptr,
};

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

// Whether a clause of the join decides which pairs match: for an outer or anti-join not one
// pushed down from WHERE (those filter the join's rows, null-extended ones included).
bool is_join_clause(RestrictInfo* rinfo, RelOptInfo* joinrel, JoinType jointype) {
  return !IS_OUTER_JOIN(jointype) || !RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids);
}

// The distance clause of the join, if one is taken. The hook sees an inner join twice (each
// input as the outer one): the DEBUG1 lines of the clauses not taken come from the first call.
bool find_distance_clause(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                          RelOptInfo* innerrel, JoinType jointype, JoinPathExtraData* extra,
                          Match* match, RestrictInfo** matched) {
  const bool report =
      message_level_is_interesting(DEBUG1) &&
      (jointype != JOIN_INNER ||
       bms_next_member(outerrel->relids, -1) < bms_next_member(innerrel->relids, -1));
  List* reasons = NIL;
  ListCell* lc;
  foreach (lc, extra->restrictlist) {
    const char* reason = nullptr;
    RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
    if (!is_join_clause(rinfo, joinrel, jointype)) continue;
    switch (match_clause(root, rinfo, outerrel, innerrel, match, &reason)) {
      case ClauseMatch::Matched:
        *matched = rinfo;
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
  return false;
}

// Why the join cannot take its distance clause where its inputs or the query forbid it, or nullptr.
const char* unusable_reason(PlannerInfo* root, RelOptInfo* joinrel, JoinType jointype,
                            Path* outer_path, Path* inner_path) {
  if (PATH_REQ_OUTER(outer_path) || PATH_REQ_OUTER(inner_path))
    return "an input is parameterized by another relation";
  if (!bms_is_empty(joinrel->lateral_relids)) return "the join reads a LATERAL reference";
  // Both sides on one foreign server that runs the whole join (postgres_fdw, its `extensions`
  // naming simjoin): the server's own simjoin joins there, and no row crosses the network.
  ListCell* lc;
  foreach (lc, joinrel->pathlist) {
    if (IsA(lfirst(lc), ForeignPath)) return "its foreign server runs the whole join";
  }
  if (jointype != JOIN_INNER && (root->parse->commandType != CMD_SELECT || root->rowMarks != NIL))
    // EvalPlanQual rechecks a pushed-down join as an inner join (recheck_scan_tuple).
    return "an outer, semi- or anti-join in a query that updates or locks rows";
  return nullptr;
}

// The pairs the path's cost rests on.
struct PairCounts {
  double pairs;            // within the bound
  double checked;          // that the operator checks (more where PostGIS keys have an extent)
  double extent_fraction;  // of both sides' sampled rows with a PostGIS key with an extent
  double extent_pairs;     // the pairs of such rows (wild in an exact plan)
};

// Pairs within the bound: the clause's selectivity set before the join search
// (pg/scan/estimate.cpp: sampled, or a default) where it joins two base relations; else a
// selective join is assumed (similarity joins usually are), capped by PostgreSQL's estimate.
// PostGIS keys with an extent: the operator checks more pairs than match (their centres within
// the bound plus both sides' largest radius).
PairCounts count_pairs(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                       RelOptInfo* innerrel, const Match& match, RestrictInfo* distance_rinfo) {
  const Path* outer_path = outerrel->cheapest_total_path;
  const Path* inner_path = innerrel->cheapest_total_path;
  PairCounts counts;
  const double selectivity = sized_clause_selectivity(root, distance_rinfo);
  counts.pairs = selectivity >= 0
                     ? selectivity * outerrel->rows * innerrel->rows
                     : Min(joinrel->rows, default_pairs(outer_path->rows, inner_path->rows));
  counts.extent_fraction =
      sampled_extent_fraction(root, outerrel, match.outer_key, match.form) +
      sampled_extent_fraction(root, innerrel, match.inner_key, match.form);
  counts.extent_pairs = counts.extent_fraction * outer_path->rows * inner_path->rows;
  counts.checked = Max(counts.pairs, counts.extent_fraction > 0
                                         ? sampled_clause_candidates(root, distance_rinfo)
                                         : 0.0);
  return counts;
}

// What the path does (JoinPathInfo). The engine decides the clause itself only where it compares
// the distance with one eps; an exact plan leaves PostGIS keys with an extent wild (each paired
// with every row of the other side), taken where that is fewer checks than one per candidate.
// cube's box clauses on the same keys (implied by the distance for r >= eps): decided natively
// where the cube distance is exact (and left out of the row estimate: pg/scan/estimate.cpp).
JoinPathInfo describe_path(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                           RelOptInfo* innerrel, JoinType jointype, JoinPathExtraData* extra,
                           const Match& match, const PairCounts& counts) {
  JoinPathInfo info;
  info.nearest_distance = nullptr;
  info.restrictlist = extra->restrictlist;
  info.match = match;
  info.exact = engine_is_exact(match.form) && match.scale == NIL && match.radius_side < 0 &&
               counts.extent_pairs <= Max(counts.checked, 0.0);
  info.jointype = jointype;
  info.output_mode = OUTPUT_UNORDERED;
  info.probe = IndexProbe{InvalidOid, 0, nullptr};
  info.n_boxes = 0;
  info.boxes = static_cast<BoxClause*>(palloc0(sizeof(BoxClause) *
                                               Max(list_length(extra->restrictlist), 1)));
  // A self-join's key order clause (a.k < b.k on a unique column).
  info.key_order = KEY_ORDER_NONE;
  ListCell* lc;
  foreach (lc, jointype == JOIN_INNER ? extra->restrictlist : NIL) {
    info.key_order = match_key_order(root, lfirst_node(RestrictInfo, lc), outerrel, innerrel);
    if (info.key_order != KEY_ORDER_NONE) break;
  }
  foreach (lc, extra->restrictlist) {
    RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
    BoxClause box;
    if (rinfo->clause != match.clause && match.form.kind == KEY_CUBE && !rinfo->pseudoconstant &&
        is_join_clause(rinfo, joinrel, jointype) && match_box_clause(rinfo->clause, match, &box) &&
        info.exact)
      info.boxes[info.n_boxes++] = box;
  }
  return info;
}

// The path's costs, and the engine's candidate pairs.
struct PathCost {
  Cost startup;
  Cost total;
  double candidates;
};

}  // namespace

// Each candidate pair is checked with the join's clauses; where the engine is exact (simjoin's
// own distances) its pairs are the result of the distance clause and only the others remain.
// Where a certain bound decides the engine's pairs within it, the operator checks only the share
// beyond it (certain_recheck_share).
QualCost checked_clauses_cost(PlannerInfo* root, const JoinPathInfo& info) {
  const Match& match = info.match;
  QualCost qual_cost;
  cost_qual_eval(&qual_cost, info.restrictlist, root);
  QualCost distance_cost;
  cost_qual_eval_node(&distance_cost, reinterpret_cast<Node*>(match.clause), root);
  if (!info.exact && has_certain_bound(match.form.kind, match.clause, match.scale,
                                       match.radius_side))
    qual_cost.per_tuple = Max(qual_cost.per_tuple - (1 - certain_recheck_share(match.form)) *
                                                        distance_cost.per_tuple,
                              0.0);
  if (info.exact) {
    qual_cost.per_tuple = Max(qual_cost.per_tuple - distance_cost.per_tuple, 0.0);
    for (int k = 0; k < info.n_boxes; ++k) {
      QualCost native_cost;
      cost_qual_eval_node(&native_cost, reinterpret_cast<Node*>(info.boxes[k].clause), root);
      qual_cost.per_tuple = Max(qual_cost.per_tuple - native_cost.per_tuple, 0.0);
    }
  }
  return qual_cost;
}

namespace {

// Keys with an extent: a box distance on each of the engine's candidates leaves the clauses
// the pairs whose boxes are within the bound, the sampled `pairs` (pg/scan/sample.cpp).
// A semi- or anti-join stops at an outer row's first match: one check per outer row with a
// match, plus the share of the other survivors (the same 0.2 margin). A computed key stored as
// a column (key_stored_as_column) is still priced in each check, in PostGIS's declared units, as
// PostgreSQL prices its other plans; against PostgreSQL's index nested loop the path is priced
// in time instead (add_similarity_join_path).
PathCost cost_path(PlannerInfo* root, RelOptInfo* joinrel, const Path* outer_path,
                   const Path* inner_path, const JoinPathInfo& info, const PairCounts& counts) {
  const bool exact = info.exact;
  const JoinType jointype = info.jointype;
  const double pairs = counts.pairs;
  const QualCost qual_cost = checked_clauses_cost(root, info);
  const double candidates = exact ? pairs + 1 : counts.checked * 1.2 + 1;
  double rechecked = exact ? candidates : Min(candidates, pairs * 1.2 + 1);
  if (!exact && (jointype == JOIN_SEMI || jointype == JOIN_ANTI)) {
    const double matched_outer =
        jointype == JOIN_SEMI ? joinrel->rows : Max(outer_path->rows - joinrel->rows, 0.0);
    rechecked = Min(rechecked, matched_outer + pairs * 0.2 + 1);
  }
  const double box_check = counts.extent_fraction > 0 && !exact ? cpu_operator_cost : 0;
  const double rows_o = outer_path->rows, rows_i = inner_path->rows;
  const double per_row = cpu_tuple_cost + row_cost_setting;
  const Cost startup = inner_path->total_cost + outer_path->startup_cost + startup_cost_setting +
                       rows_i * per_row + qual_cost.startup;
  Cost run = (outer_path->total_cost - outer_path->startup_cost) + rows_o * per_row +
             candidates * (pair_cost_setting + box_check) + rechecked * qual_cost.per_tuple +
             pairs * (cpu_tuple_cost + joinrel->reltarget->cost.per_tuple);
  if (jointype == JOIN_LEFT || jointype == JOIN_ANTI)  // the outer rows without a match
    run += rows_o * (cpu_tuple_cost + joinrel->reltarget->cost.per_tuple);
  return PathCost{startup, startup + run, candidates};
}

// The unordered path; its rows: the join relation's, which PostgreSQL computed with the
// clause's selectivity.
CustomPath* make_path(RelOptInfo* joinrel, Path* outer_path, Path* inner_path,
                      const JoinPathInfo& info, const PathCost& cost) {
  CustomPath* cpath = makeNode(CustomPath);
  cpath->path.pathtype = T_CustomScan;
  cpath->path.parent = joinrel;
  cpath->path.pathtarget = joinrel->reltarget;
  cpath->path.param_info = nullptr;
  cpath->path.parallel_aware = false;
  cpath->path.parallel_safe = false;
  cpath->path.parallel_workers = 0;
  cpath->path.rows = joinrel->rows;
  cpath->path.startup_cost = cost.startup;
  cpath->path.total_cost = cost.total;
  cpath->path.pathkeys = NIL;
  cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
  cpath->custom_paths = list_make2(outer_path, inner_path);
  cpath->custom_private = form_path_private(info);
  cpath->methods = &path_methods;
  return cpath;
}

// Whether a key is computed (not a column): PostgreSQL's nested loop computes it on every
// candidate, the scan once per row.
bool computed(Expr* key) {
  Node* node = without_relabel(reinterpret_cast<Node*>(key));
  return node && !IsA(node, Var);
}

// The rows an index scan per row of one side returns from the other: the candidates, with a
// margin for the index's boxes around the bound.
double probed_rows(const PairCounts& counts, double rows_o, double rows_i) {
  return Min(1.5 * Max(counts.checked, counts.pairs) + 1, rows_o * rows_i);
}

// What the path takes in time where PostgreSQL's nested loop over an index competes
// (index_probe.h: nested_loop_time, in the same units): reading the sides (`read`), the engine's
// candidates, a call on each candidate the clauses recheck, a computed key once per row read.
double path_time(const JoinPathInfo& info, const PathCost& cost, const PairCounts& counts,
                 Cost read, double key_rows) {
  const double rechecked = info.exact ? 0 : cost.candidates;
  return kEngineStartTimePerCost * startup_cost_setting + read +
         cost.candidates * pair_cost_setting + rechecked * kCallTime + key_rows * kKeyTime +
         counts.pairs * cpu_tuple_cost;
}

// Against PostgreSQL's nested loop over an index (nl_time: nested_loop_time), the path priced in
// time, the startup's share of its cost kept; false where it is not faster than that loop.
// outer_rows: the outer rows read (a computed outer key is computed on each).
bool priced_against_nested_loop(const JoinPathInfo& info, const PairCounts& counts,
                                double nl_time, Cost read, double outer_rows, double inner_rows,
                                PathCost* cost) {
  const Match& m = info.match;
  const double key_rows =
      (computed(m.outer_key) ? outer_rows : 0) + (computed(m.inner_key) ? inner_rows : 0);
  const double time = path_time(info, *cost, counts, read, key_rows);
  if (time >= nl_time) return false;
  cost->startup = cost->total > 0 ? time * (cost->startup / cost->total) : 0;
  cost->total = time;
  return true;
}

// The same join reading its outer side through an index of its table (pg/scan/index_probe.cpp)
// in place of its SeqScan. Against PostgreSQL's nested loop over that index (nl_time >= 0) it is
// priced in time and offered where faster; else where it costs less than reading the side whole.
void add_probe_path(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                    RelOptInfo* innerrel, Path* outer_path, Path* inner_path,
                    const JoinPathInfo& plain, const PairCounts& counts, const PathCost& cost,
                    double rows_read, double nl_time) {
  if (outer_path->pathtype != T_SeqScan || plain.output_mode != OUTPUT_UNORDERED) return;
  JoinPathInfo info = plain;
  info.probe = find_index_probe(root, outerrel, innerrel, plain.jointype);
  if (!OidIsValid(info.probe.index)) return;
  const double rows_o = outer_path->rows, rows_i = inner_path->rows;
  const double per_row = cpu_tuple_cost + row_cost_setting;
  const Cost probe_read = probe_read_cost(rows_i, rows_read);
  PathCost probed = cost;
  if (nl_time >= 0) {
    if (!priced_against_nested_loop(info, counts, nl_time,
                                    inner_path->total_cost + rows_i * per_row + probe_read,
                                    rows_read, rows_i, &probed))
      return;
  } else {
    const Cost full_read = outer_path->total_cost + rows_o * per_row;
    if (probe_read >= full_read) return;
    probed.startup = cost.startup - outer_path->startup_cost + probe_read;
    probed.total = cost.total - full_read + probe_read;
  }
  add_path(joinrel, &make_path(joinrel, outer_path, inner_path, info, probed)->path);
}

void add_similarity_join_path(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                              RelOptInfo* innerrel, JoinType jointype, JoinPathExtraData* extra) {
  Path* outer_path = outerrel->cheapest_total_path;
  Path* inner_path = innerrel->cheapest_total_path;
  if (!outer_path || !inner_path) return;
  Match match;
  RestrictInfo* distance_rinfo;
  if (!find_distance_clause(root, joinrel, outerrel, innerrel, jointype, extra, &match,
                            &distance_rinfo))
    return;
  if (const char* unusable = unusable_reason(root, joinrel, jointype, outer_path, inner_path)) {
    elog(DEBUG1, "simjoin: join of %s with %s: the distance clause not taken: %s",
         relation_names(root, outerrel->relids), relation_names(root, innerrel->relids),
         unusable);
    return;
  }
  const PairCounts counts = count_pairs(root, joinrel, outerrel, innerrel, match, distance_rinfo);
  const JoinPathInfo info =
      describe_path(root, joinrel, outerrel, innerrel, jointype, extra, match, counts);
  PathCost cost = cost_path(root, joinrel, outer_path, inner_path, info, counts);
  // Where PostgreSQL's nested loop can probe an index of one side per row of the other, both are
  // priced in time, and a path slower than that loop is not offered (nor built on).
  const double rows_o = outer_path->rows, rows_i = inner_path->rows;
  const double rows_read = probed_rows(counts, rows_o, rows_i);
  const double nl_time = nested_loop_time(outerrel, innerrel, jointype, rows_read,
                                          computed(match.outer_key) + computed(match.inner_key));
  const PathCost plain_cost = cost;
  const Cost full_read = outer_path->total_cost + inner_path->total_cost +
                         (rows_o + rows_i) * (cpu_tuple_cost + row_cost_setting);
  if (nl_time >= 0 &&
      !priced_against_nested_loop(info, counts, nl_time, full_read, rows_o, rows_i, &cost)) {
    add_probe_path(root, joinrel, outerrel, innerrel, outer_path, inner_path, info, counts,
                   plain_cost, rows_read, nl_time);
    return;
  }
  CustomPath* cpath = make_path(joinrel, outer_path, inner_path, info, cost);
  // For the upper-path hook, and the same join grouped by outer row on each outer input path
  // with useful pathkeys (before add_path, which may free cpath).
  keep_join_path(root, joinrel, outerrel, innerrel, cpath, cost.candidates);
  if (ordered_output_fits(cost.candidates))
    add_ordered_paths(root, joinrel, outerrel, jointype, cpath, cost.candidates);
  add_path(joinrel, &cpath->path);
  add_probe_path(root, joinrel, outerrel, innerrel, outer_path, inner_path, info, counts,
                 plain_cost, rows_read, nl_time);
}

// At DEBUG1, a FULL join whose clauses hold a distance clause: not taken. (The other join types
// the hook sees are taken, or mirrors of those: JOIN_RIGHT, unique-ified inputs.)
void report_join_type(PlannerInfo* root, RelOptInfo* outerrel, RelOptInfo* innerrel,
                      JoinType jointype, JoinPathExtraData* extra) {
  if (jointype != JOIN_FULL || !message_level_is_interesting(DEBUG1) ||
      bms_next_member(outerrel->relids, -1) > bms_next_member(innerrel->relids, -1))
    return;  // (a FULL join is seen from both sides)
  ListCell* lc;
  foreach (lc, extra->restrictlist) {
    Match match;
    const char* reason;
    if (match_clause(root, lfirst_node(RestrictInfo, lc), outerrel, innerrel, &match, &reason) ==
        ClauseMatch::Matched) {
      elog(DEBUG1, "simjoin: join of %s with %s: the distance clause not taken: FULL joins are "
           "not supported", relation_names(root, outerrel->relids),
           relation_names(root, innerrel->relids));
      return;
    }
  }
}

}  // namespace

const KeptJoinPath* first_kept_join_path() { return first_kept; }
const KeptJoinPath* last_kept_join_path() { return last_kept; }

void add_join_paths(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                    RelOptInfo* innerrel, JoinType jointype, JoinPathExtraData* extra) {
  // LEFT: the outer input's rows are kept; SEMI (EXISTS, IN) and ANTI (NOT EXISTS): the outer
  // input's rows with a match and without one.
  if (jointype == JOIN_INNER || jointype == JOIN_LEFT || jointype == JOIN_SEMI ||
      jointype == JOIN_ANTI)
    add_similarity_join_path(root, joinrel, outerrel, innerrel, jointype, extra);
  else
    report_join_type(root, outerrel, innerrel, jointype, extra);
}

}  // namespace simjoin::pg::cs
