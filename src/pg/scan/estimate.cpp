// The selectivity of the distance clauses the SimilarityJoin takes, for PostgreSQL's own join size
// estimates. PostgreSQL estimates  f(dist(a.v, b.v)) <= c  with the comparison's default (1/3 of
// the cross product) and ST_DWithin with PostGIS's box-overlap estimate; every join relation
// holding the clause (in every join order, the plan above the join: sorts, aggregates, a third
// table) inherits that size, whichever path wins. So before the join search (set_rel_pathlist
// runs for every base relation first) the relation hook (pg/scan/custom_scan.cpp) has
// size_join_clauses set the clause's cached selectivity
// (RestrictInfo norm_selec, and outer_selec for outer, semi- and anti-joins), which
// clause_selectivity returns from then on: the sampled fraction of pairs within the bound, or
// for a semi- or anti-join's clause the fraction of its outer rows with a match. Parameterized
// scans of one relation compute their clauses' selectivity afresh (not cached): untouched.
#include "pg/scan/match.h"

extern "C" {
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/pathnode.h"
#include "utils/lsyscache.h"
}

#include <cmath>
#include <utility>
#include <vector>

#include "pg/pg_guard.h"

namespace simjoin::pg::cs {

namespace {

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

// The bound for the estimate: eps (or each row's radius) through the inverse of the arithmetic
// on the distance (inverse_bound). false: unknown (a parameter, a factor that is one).
bool planning_bound(PlannerInfo* root, const Match& match, PairBound* bound) {
  std::vector<std::pair<ScaleOp, double>> steps;
  ListCell* lc;
  foreach (lc, match.scale) {
    List* step = lfirst_node(List, lc);
    double factor;
    bool factor_null;
    if (!planning_value(root, scale_step_factor(step), &factor, &factor_null)) return false;
    if (factor_null) factor = NAN;  // the clause is NULL: nothing matches
    steps.emplace_back(scale_step_op(step), factor);
  }
  auto invert = [steps](double c) {
    if (std::isinf(c)) return c < 0 ? NAN : c;  // a NULL radius; an infinite one holds all
    for (const auto& [op, factor] : steps)
      c = std::isnan(factor) ? NAN : inverse_bound(c, op, factor);
    return c;
  };
  bound->radius_side = match.radius_side;
  if (match.radius_side >= 0) {
    bound->radius = match.eps;
    bound->radius_eps = invert;
    return true;
  }
  double eps;
  bool is_null;
  if (!planning_value(root, match.eps, &eps, &is_null)) return false;
  // NULL: nothing matches; NaN: above every distance (PostgreSQL's order), all match.
  bound->eps = is_null ? NAN : invert(std::isnan(eps) ? INFINITY : eps);
  return true;
}

// The semi- or anti-join whose clause this is, with `left` its outer (syntactic left) side.
const SpecialJoinInfo* semi_or_anti_join(PlannerInfo* root, Index a, Index b, Index* left) {
  ListCell* lc;
  foreach (lc, root->join_info_list) {
    const SpecialJoinInfo* sj = lfirst_node(SpecialJoinInfo, lc);
    if (sj->jointype != JOIN_SEMI && sj->jointype != JOIN_ANTI) continue;
    if (bms_is_member(a, sj->syn_lefthand) && bms_is_member(b, sj->syn_righthand)) {
      *left = a;
      return sj;
    }
    if (bms_is_member(b, sj->syn_lefthand) && bms_is_member(a, sj->syn_righthand)) {
      *left = b;
      return sj;
    }
  }
  return nullptr;
}

// The two base relations of a distance clause the scan takes, outer first (a semi- or
// anti-join's outer side, else the lower range-table index), and the match between them.
bool distance_clause_rels(PlannerInfo* root, RestrictInfo* rinfo, RelOptInfo** outer,
                          RelOptInfo** inner, Match* match, bool* semi) {
  if (rinfo->pseudoconstant || bms_num_members(rinfo->clause_relids) != 2) return false;
  const Index a = bms_next_member(rinfo->clause_relids, -1);
  const Index b = bms_next_member(rinfo->clause_relids, a);
  if (static_cast<int>(b) >= root->simple_rel_array_size) return false;
  RelOptInfo* rel_a = root->simple_rel_array[a];
  RelOptInfo* rel_b = root->simple_rel_array[b];
  if (!rel_a || !rel_b || rel_a->reloptkind != RELOPT_BASEREL ||
      rel_b->reloptkind != RELOPT_BASEREL)
    return false;
  Index left = a;
  *semi = semi_or_anti_join(root, a, b, &left) != nullptr;
  *outer = left == a ? rel_a : rel_b;
  *inner = left == a ? rel_b : rel_a;
  const char* reason;
  return match_clause(root, rinfo, *outer, *inner, match, &reason) == ClauseMatch::Matched;
}

// The sampled pairs of a distance clause between outer and inner at its planning-time bound
// (none where the bound is NULL). false: unknown (a parameter, a side that cannot be sampled).
bool sampled_pairs(PlannerInfo* root, const Match& match, RelOptInfo* outer, RelOptInfo* inner,
                   PairEstimate* estimate) {
  PairBound bound;
  if (!planning_bound(root, match, &bound)) return false;
  if (bound.radius_side < 0 && std::isnan(bound.eps)) return true;
  return estimate_pairs(root, outer, match.outer_key, inner, match.inner_key, match.form, bound,
                        estimate);
}

// Sets the selectivity of one distance clause (and of cube's box clauses it implies).
void size_distance_clause(PlannerInfo* root, RestrictInfo* rinfo, List* joininfo) {
  RelOptInfo* outer;
  RelOptInfo* inner;
  Match match;
  bool semi;
  if (!distance_clause_rels(root, rinfo, &outer, &inner, &match, &semi)) return;
  const double rows_o = Max(outer->rows, 1.0), rows_i = Max(inner->rows, 1.0);
  PairEstimate estimate;  // no pairs where the bound is NULL
  const bool assumed = !sampled_pairs(root, match, outer, inner, &estimate);
  if (assumed) estimate.pairs = default_pairs(rows_o, rows_i);
  const double selectivity = Min(1.0, estimate.pairs / (rows_o * rows_i));
  rinfo->norm_selec = selectivity;
  // An outer join's size: PostgreSQL keeps at least the outer rows. A semi- or anti-join's: the
  // fraction of outer rows with a match: those with one in the inner sample, or where matches
  // spread evenly (Poisson) with the estimated mean per keyed outer row, more; PostgreSQL's own
  // (a third) where the pairs are only assumed.
  if (!semi)
    rinfo->outer_selec = selectivity;
  else if (!assumed) {
    const double mean =
        estimate.outer_keyed > 0 ? estimate.pairs / (rows_o * estimate.outer_keyed) : 0;
    rinfo->outer_selec = Min(1.0, Max(estimate.outer_matched,
                                      estimate.outer_keyed * (1 - std::exp(-mean))));
  }
  // cube's box clauses on the same keys are implied by the distance (r >= eps): no further
  // selectivity (as the scan decides them with the distance).
  ListCell* lc;
  foreach (lc, joininfo) {
    RestrictInfo* other = lfirst_node(RestrictInfo, lc);
    BoxClause box;
    if (other != rinfo && match.form.kind == KEY_CUBE && !other->pseudoconstant &&
        match_box_clause(other->clause, match, &box)) {
      other->norm_selec = 1.0;
      other->outer_selec = 1.0;
    }
  }
}

}  // namespace

double default_pairs(double rows_o, double rows_i) {
  constexpr double kMatchesPerRow = 10;
  return Min(rows_o * rows_i, kMatchesPerRow * Min(rows_o, rows_i));
}

double sized_clause_selectivity(PlannerInfo* root, RestrictInfo* rinfo) {
  RelOptInfo* outer;
  RelOptInfo* inner;
  Match match;
  bool semi;
  if (rinfo->norm_selec < 0 || !distance_clause_rels(root, rinfo, &outer, &inner, &match, &semi))
    return -1;
  return rinfo->norm_selec;
}

double sampled_clause_candidates(PlannerInfo* root, RestrictInfo* rinfo) {
  RelOptInfo* outer;
  RelOptInfo* inner;
  Match match;
  bool semi;
  PairEstimate estimate;
  if (!distance_clause_rels(root, rinfo, &outer, &inner, &match, &semi) ||
      !sampled_pairs(root, match, outer, inner, &estimate))
    return -1;
  return estimate.candidates;
}

void size_join_clauses(PlannerInfo* root, RelOptInfo* rel, Index rti) {
  // Each clause once, from its later relation (every base relation's hook runs before joins).
  ListCell* lc;
  foreach (lc, rel->joininfo) {
    RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
    int last = -1, member = -1;
    while ((member = bms_next_member(rinfo->clause_relids, member)) >= 0) last = member;
    if (last == static_cast<int>(rti)) size_distance_clause(root, rinfo, rel->joininfo);
  }
}

}  // namespace simjoin::pg::cs
