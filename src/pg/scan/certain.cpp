// The certain bounds of the rechecked forms (pg/scan/internal.h: has_certain_bound): an
// engine pair within one satisfies the distance clause for sure and skips its recheck; only the
// pairs between it and the candidate bound go to the operator (pg/scan/pairs.cpp).
//
// Point keys: PostgreSQL 15's pt_contained_circle (point <@ circle) and circle_contain_pt
// (circle @> point) are  point_dt(&circle->center, point) <= circle->radius  (geo_ops.c), and
// circle(point, float8) keeps its arguments as they are: so  k2 <@ circle(k1, r)  is
// point_dt(k1, k2) <= r, the distance clause itself when r equals eps (point_dt is symmetric:
// pg_hypot of the differences' absolute values). Such clauses are decided with it.
#include "pg/scan/form_state.h"
#include "pg/scan/keys/keys.h"
#include "pg/scan/plan_info.h"

#include "engine/bounds/certain_bound.h"

extern "C" {
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "optimizer/optimizer.h"
#include "utils/fmgroids.h"
}

namespace simjoin::pg::cs {

bool has_certain_bound(int kind, Expr* clause, List* scale, int radius_side) {
  if (scale != NIL || radius_side >= 0) return false;
  if (kind == KEY_POINT) return true;
  return kind == KEY_GEOGRAPHY && geography_clause_certain(clause);
}

double certain_bound(const FormInfo& form, double eps, const KeyRef& ref) {
  if (form.kind == KEY_POINT) return planar_certain_bound(eps);
  if (form.kind == KEY_GEOGRAPHY) return geography_certain_bound(eps, ref);
  return -1;
}

double certain_recheck_share(const FormInfo& form) {
  if (form.kind == KEY_GEOGRAPHY) return geography_recheck_share();
  if (form.kind != KEY_POINT) return 1;
  return recheck_share(planar_certain_bound(1), engine_bound(form, 1, KeyRef{2}));
}

namespace {

// The radius of  k2 <@ circle(k1, r)  or  circle(k1, r) @> k2  with {k1, k2} the two keys, r
// free of the pair's columns and not volatile; nullptr for any other clause.
Expr* circle_radius_of_keys(Node* clause, Node* outer_key, Node* inner_key) {
  if (!IsA(clause, OpExpr)) return nullptr;
  const OpExpr* op = reinterpret_cast<const OpExpr*>(clause);
  if (list_length(op->args) != 2) return nullptr;
  Node* point;
  Node* circle;
  if (op->opfuncid == F_PT_CONTAINED_CIRCLE) {
    point = static_cast<Node*>(linitial(op->args));
    circle = static_cast<Node*>(lsecond(op->args));
  } else if (op->opfuncid == F_CIRCLE_CONTAIN_PT) {
    circle = static_cast<Node*>(linitial(op->args));
    point = static_cast<Node*>(lsecond(op->args));
  } else {
    return nullptr;
  }
  if (!IsA(circle, FuncExpr)) return nullptr;
  const FuncExpr* make = reinterpret_cast<const FuncExpr*>(circle);
  if (make->funcid != F_CIRCLE_POINT_FLOAT8 || list_length(make->args) != 2) return nullptr;
  Node* centre = static_cast<Node*>(linitial(make->args));
  Node* radius = static_cast<Node*>(lsecond(make->args));
  const bool keys = (equal(centre, outer_key) && equal(point, inner_key)) ||
                    (equal(centre, inner_key) && equal(point, outer_key));
  if (!keys || contain_var_clause(radius) || contain_volatile_functions(radius)) return nullptr;
  return reinterpret_cast<Expr*>(radius);
}

}  // namespace

void begin_certain_qual(SimJoinState* st) {
  FormState* fs = st->form_state;
  if (fs->certain_position < 0) return;
  List* quals = st->plan->quals;
  Node* outer_key = reinterpret_cast<Node*>(st->plan->outer_key);
  Node* inner_key = reinterpret_cast<Node*>(st->plan->inner_key);
  fs->circle_radius = static_cast<ExprState**>(palloc0(sizeof(ExprState*) * (list_length(quals) + 1)));
  List* others = NIL;
  int position = 0;
  ListCell* lc;
  foreach (lc, quals) {
    Node* clause = static_cast<Node*>(lfirst(lc));
    if (position++ == fs->certain_position) continue;
    Expr* radius =
        st->form.kind == KEY_POINT ? circle_radius_of_keys(clause, outer_key, inner_key) : nullptr;
    if (radius)
      fs->circle_radius[fs->n_circles++] = ExecInitExpr(radius, &st->css.ss.ps);
    else
      others = lappend(others, clause);
  }
  fs->certain_qual = ExecInitQual(others, &st->css.ss.ps);
}

double scan_certain_bound(SimJoinState* st, double eps) {
  FormState* fs = st->form_state;
  ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
  for (int k = 0; k < fs->n_circles; ++k) {
    bool isnull;
    const Datum radius = ExecEvalExprSwitchContext(fs->circle_radius[k], econtext, &isnull);
    if (isnull || !(DatumGetFloat8(radius) == eps)) return -1;
  }
  return certain_bound(st->form, eps, st->ref);
}

}  // namespace simjoin::pg::cs
