// The SimilarityJoin custom scan's arithmetic on the distance and per-row radius
// (pg/scan/form_state.h): their plan entries, their values per scan and per row, and the
// engine's bound they give.
#include "pg/scan/form_state.h"
#include "pg/scan/plan_info.h"

extern "C" {
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
}

#include <cmath>
#include <cstring>

namespace simjoin::pg::cs {

namespace {

double float_datum(Datum value, bool is_float4) {
  return is_float4 ? static_cast<double>(DatumGetFloat4(value)) : DatumGetFloat8(value);
}

}  // namespace

FormState* create_form_state(const JoinPlanInfo& plan) {
  FormState* fs = static_cast<FormState*>(palloc0(sizeof(FormState)));
  fs->radius_side = plan.radius_side;
  fs->n_scale = plan.n_scale;
  fs->key_order = plan.key_order;
  fs->scale = static_cast<ScaleStepState*>(palloc0(sizeof(ScaleStepState) * Max(fs->n_scale, 1)));
  for (int k = 0; k < fs->n_scale; ++k) fs->scale[k].op = plan.scale[k].op;
  fs->max_radius = -HUGE_VAL;
  fs->join_type = plan.jointype;
  fs->certain_position = plan.distance_qual <= -2 ? -2 - plan.distance_qual : -1;
  fs->certain_bound = -1;
  return fs;
}

void begin_form_state(SimJoinState* st) {
  FormState* fs = st->form_state;
  const JoinPlanInfo* plan = st->plan;
  for (int k = 0; k < fs->n_scale; ++k) {
    Expr* factor = plan->scale[k].factor;
    fs->scale[k].factor = ExecInitExpr(factor, &st->css.ss.ps);
    fs->scale[k].factor_is_float4 = exprType(reinterpret_cast<Node*>(factor)) == FLOAT4OID;
  }
  fs->other_qual = ExecInitQual(plan->other_quals, &st->css.ss.ps);
  if (fs->radius_side >= 0) {
    // Evaluated on the side's child tuples, as its key: the inner side's columns follow the
    // outer side's in the scan tuple.
    Expr* radius = static_cast<Expr*>(copyObjectImpl(plan->eps));
    fs->radius_is_float4 = exprType(reinterpret_cast<Node*>(radius)) == FLOAT4OID;
    if (fs->radius_side == 1) {
      int shift = st->outer_columns;
      shift_index_vars(reinterpret_cast<Node*>(radius), &shift);
      // A change of what the radius reads rereads the inner side, as a change of its key's.
      st->inner_key_params = bms_union(st->inner_key_params, pull_paramids(radius));
    }
    fs->radius = ExecInitExpr(radius, nullptr);
  }
}

bool evaluate_scan_eps(SimJoinState* st) {
  FormState* fs = st->form_state;
  ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
  bool isnull;
  st->all_wild = false;
  st->eps = -HUGE_VAL;  // a per-row radius: scan_bound takes the largest one read
  if (fs->radius_side < 0) {
    const Datum eps = ExecEvalExprSwitchContext(st->eps_expr, econtext, &isnull);
    if (isnull) return false;  // dist <= NULL and ST_DWithin(x, y, NULL) are never true
    st->eps = float_datum(eps, st->eps_is_float4);
    // eps NaN: PostgreSQL's float order puts NaN above everything, so d <= NaN holds for every
    // d; ST_DWithin with a negative eps raises an error. Both: every pair goes to the recheck.
    // A geography ST_DWithin with an infinite eps holds for every pair the engine could
    // represent, so the engine can prune nothing, and PostGIS's answer for such an eps depends on
    // its per-call cache (a pair repeated right after itself can come out false): every pair
    // goes to the recheck in the outer rows' order, as a nested loop calls it.
    st->all_wild = std::isnan(st->eps) || (st->form.dwithin && st->eps < 0) ||
                   (st->form.kind == KEY_GEOGRAPHY && std::isinf(st->eps));
  }
  for (int k = 0; k < fs->n_scale; ++k) {
    ScaleStepState& step = fs->scale[k];
    const Datum factor = ExecEvalExprSwitchContext(step.factor, econtext, &isnull);
    if (isnull) return false;  // f(d) is NULL for every pair
    step.value = float_datum(factor, step.factor_is_float4);
    // A factor the inverse cannot take (k <= 0, infinite, NaN): every pair goes to the recheck.
    if (std::isnan(inverse_bound(1.0, step.op, step.value))) st->all_wild = true;
  }
  return true;
}

namespace {

// The largest coordinate magnitude of a side's points.
double points_reach(const Side* side) {
  double reach = 0;
  for (Size k = 0; k < 2 * static_cast<Size>(side->n_points); ++k)
    reach = std::fmax(reach, std::fabs(side->points[k]));
  return reach;
}

}  // namespace

void note_key_extent(SimJoinState* st, Side* side, uint32 point, const KeyExtent& extent,
                     bool grown) {
  const Size bytes = sizeof(double) * 4 * static_cast<Size>(side->points_cap);
  if (!side->boxes) {  // the first box: the earlier points are their own boxes
    side->boxes = static_cast<double*>(MemoryContextAllocHuge(st->arrays_mcxt, bytes));
    for (uint32 p = 0; p < point; ++p) {
      const double* xy = side->points + 2 * static_cast<Size>(p);
      double* box = side->boxes + 4 * static_cast<Size>(p);
      box[0] = box[2] = xy[0];
      box[1] = box[3] = xy[1];
    }
    side->box_reach = points_reach(side);
  } else if (grown) {
    side->boxes = static_cast<double*>(repalloc_huge(side->boxes, bytes));
  }
  double* box = side->boxes + 4 * static_cast<Size>(point);
  box[0] = extent.xmin;
  box[1] = extent.ymin;
  box[2] = extent.xmax;
  box[3] = extent.ymax;
  for (int k = 0; k < 4; ++k) side->box_reach = std::fmax(side->box_reach, std::fabs(box[k]));
  side->max_key_radius = std::fmax(side->max_key_radius, extent.radius);
}

namespace {

// A side's outsized boxes (outsized_radius, few_outsized) become wild rows (paired with every
// row, PostGIS deciding), only before anything indexes the side's points (its first scan) and
// where every row's tuple is kept. Leaves the side's largest radius.
void demote_outsized_boxes(SimJoinState* st, Side* side, double bound) {
  if (!side->boxes || side->values_only || side->ordered || side->values) return;
  const uint32 n = side->n_points;
  double sum = 0;
  for (uint32 p = 0; p < n; ++p)
    sum += box_radius(side->boxes + 4 * static_cast<Size>(p), side->points + 2 * static_cast<Size>(p));
  const double cap = outsized_radius(bound, sum / Max(n, 1));
  uint32 outsized = 0;
  for (uint32 p = 0; p < n; ++p)
    if (box_radius(side->boxes + 4 * static_cast<Size>(p), side->points + 2 * static_cast<Size>(p)) > cap)
      ++outsized;
  if (outsized == 0 || !few_outsized(outsized, n)) return;
  uint32 kept = 0;
  side->max_key_radius = 0;
  for (uint32 p = 0; p < n; ++p) {
    const double* box = side->boxes + 4 * static_cast<Size>(p);
    const double* centre = side->points + 2 * static_cast<Size>(p);
    const double radius = box_radius(box, centre);
    if (radius > cap) {
      ensure_capacity(st->arrays_mcxt, &side->wild, &side->wild_cap, side->n_wild + 1);
      side->wild[side->n_wild++] = side->point_row[p];
      st->wild_rows++;
      continue;
    }
    std::memmove(side->boxes + 4 * static_cast<Size>(kept), box, sizeof(double) * 4);
    std::memmove(side->points + 2 * static_cast<Size>(kept), centre, sizeof(double) * 2);
    side->point_row[kept++] = side->point_row[p];
    side->max_key_radius = std::fmax(side->max_key_radius, radius);
  }
  side->n_points = kept;
}

}  // namespace

double scan_bound(SimJoinState* st) {
  FormState* fs = st->form_state;
  fs->box_filter = false;
  fs->certain_bound = -1;
  // An exact plan holds no key with an extent (evaluate_key makes them wild).
  if (st->distance_qual >= 0) return exact_bound(st->eps, st->strict);
  double eps = fs->radius_side >= 0 ? fs->max_radius : st->eps;
  for (int k = 0; k < fs->n_scale; ++k) eps = inverse_bound(eps, fs->scale[k].op, fs->scale[k].value);
  const double bound = engine_bound(st->form, eps, st->ref);
  if (std::isnan(bound)) return bound;
  if (fs->certain_position >= 0) fs->certain_bound = scan_certain_bound(st, eps);
  demote_outsized_boxes(st, &st->inner, bound);
  if (!st->outer_shared) demote_outsized_boxes(st, &st->outer, bound);
  // (A shared outer side is the inner side's, shared after this.)
  const Side* outer = st->outer_shared ? &st->inner : &st->outer;
  const double radii = outer->max_key_radius + st->inner.max_key_radius;
  if (!(radii > 0) || std::isnan(bound)) return bound;
  // Keys with an extent: PostGIS's distance of two geometries within eps is within the widened
  // bound of their true distance, which is at least their boxes' (computed with a few roundings
  // of coordinates up to reach): a margin of 1e-9 of the magnitudes covers both generously.
  const double reach = (outer->boxes ? outer->box_reach : points_reach(outer)) +
                       (st->inner.boxes ? st->inner.box_reach : points_reach(&st->inner));
  fs->box_filter = true;
  fs->box_bound = bound * (1 + 1e-9) + 1e-9 * reach;
  fs->box_bound_sq = fs->box_bound * fs->box_bound * (1 + 1e-9);
  // Their centres are within the box bound plus both radii (each geometry lies within its radius
  // of its centre).
  return engine_bound(st->form, (fs->box_bound + radii) * (1 + 1e-9), st->ref);
}

bool reads_radius(const SimJoinState* st, const Side* side) {
  const int radius_side = st->form_state->radius_side;
  return radius_side >= 0 && side == (radius_side == 0 ? &st->outer : &st->inner);
}

int radius_row_status(SimJoinState* st, const Side* side, TupleTableSlot* slot, int status) {
  FormState* fs = st->form_state;
  if (fs->radius_side < 0) return status;
  // A NaN distance (a KEY_SKIP key: pgvector's cosine of a zero vector) is not above a NaN
  // radius: on either side such a row is paired with every row and left to the operator.
  if (status == KEY_SKIP) status = KEY_WILD;
  if (!reads_radius(st, side)) return status;
  ExprContext* econtext = st->key_cxt;
  econtext->ecxt_scantuple = slot;
  bool isnull;
  const Datum value = ExecEvalExprSwitchContext(fs->radius, econtext, &isnull);
  if (isnull) return -1;  // the clause is NULL for every pair of the row
  const double radius = float_datum(value, fs->radius_is_float4);
  // d <= NaN holds for every d, d <= Infinity for every d but NaN, and ST_DWithin raises an
  // error on a negative distance: the operator decides these rows' pairs.
  if (!std::isfinite(radius) || (st->form.dwithin && radius < 0)) return KEY_WILD;
  if (status == KEY_OK && radius > fs->max_radius) fs->max_radius = radius;
  return status;
}

bool emits_unmatched(const SimJoinState* st) {
  return st->form_state->join_type == JOIN_LEFT || st->form_state->join_type == JOIN_ANTI;
}

void reset_matches(SimJoinState* st) {
  FormState* fs = st->form_state;
  fs->next_unmatched = 0;
  if (fs->join_type == JOIN_INNER) return;
  ensure_capacity(st->arrays_mcxt, &fs->matched, &fs->matched_cap, Max(st->outer.n, 1));
  memset(fs->matched, 0, st->outer.n);
}

bool emits_match(SimJoinState* st, uint32 outer_row, ExprContext* econtext) {
  FormState* fs = st->form_state;
  if (fs->join_type == JOIN_INNER) return true;
  fs->matched[outer_row] = 1;
  if (fs->join_type == JOIN_ANTI) return false;
  if (fs->join_type == JOIN_LEFT && fs->other_qual && !ExecQual(fs->other_qual, econtext)) {
    InstrCountFiltered2(&st->css.ss, 1);
    return false;
  }
  return true;
}

}  // namespace simjoin::pg::cs
