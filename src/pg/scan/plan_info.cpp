// The SimilarityJoin custom scan's private data (pg/scan/plan_info.h) in PostgreSQL's node lists:
// the only place that knows their positions. Numbers are Integer nodes, expressions stay
// expressions (in the plan: custom_exprs, which setrefs fixes up), so that both lists copy and
// serialize as nodes.
#include "pg/scan/plan_info.h"

extern "C" {
#include "nodes/makefuncs.h"
#include "nodes/value.h"
}

#include <initializer_list>

namespace simjoin::pg::cs {

namespace {

// The path's custom_private: these, then per box clause its clause, enlarged side, r and n.
enum PathIndex {
  PATH_RESTRICTLIST = 0,
  PATH_OUTER_KEY,
  PATH_INNER_KEY,
  PATH_EPS,
  PATH_CLAUSE,
  PATH_SCALE,  // Match::scale (its steps: scale_step_op, scale_step_factor)
  PATH_PROBE,  // IndexProbe: the index, then per key its numbers and value (probe_list)
  PATH_NEAREST_DISTANCE,
  PATH_KIND,
  PATH_METRIC,
  PATH_COSINE,
  PATH_DWITHIN,
  PATH_FLOAT32,
  PATH_STRICT,
  PATH_RADIUS_SIDE,
  PATH_EXACT,
  PATH_KEY_ORDER,
  PATH_JOIN_TYPE,
  PATH_OUTPUT_MODE,
  PATH_COUNT
};
constexpr int kPathBoxFields = 4;

// The plan's custom_private (Integers): these, then per box clause its position and enlarged
// side, then per operation on the distance its ScaleOp.
enum PrivateIndex {
  PRIV_KIND = 0,
  PRIV_METRIC,
  PRIV_COSINE,
  PRIV_DWITHIN,
  PRIV_FLOAT32,
  PRIV_OUTER_COLUMNS,
  PRIV_DISTANCE_QUAL,
  PRIV_STRICT,
  PRIV_SAME_SCAN,
  PRIV_INNER_REREADABLE,
  PRIV_BOX_COUNT,
  PRIV_RADIUS_SIDE,
  PRIV_SCALE_COUNT,
  PRIV_KEY_ORDER,
  PRIV_JOIN_TYPE,
  PRIV_OUTPUT_MODE,
  PRIV_PARALLEL_OK,
  PRIV_PROBE_INDEX,
  PRIV_PROBE_COUNT,
  PRIV_OUTER_TABLE,  // then the outer side's id_attno, id_position, and the same of the inner
  PRIV_INNER_TABLE = PRIV_OUTER_TABLE + 3,
  PRIV_COUNT = PRIV_INNER_TABLE + 3
};
// (Then per index probe key its attno, strategy, subtype, function and collation.)
// The plan's custom_exprs: these, then per box clause its r and n, then per operation on the
// distance its factor, then per index probe key its value.
enum ExprIndex {
  EXPR_OUTER_KEY = 0,
  EXPR_INNER_KEY,
  EXPR_EPS,
  EXPR_QUAL,
  EXPR_OTHER_QUAL,
  EXPR_NEAREST_DISTANCE,  // (NULL: none)
  EXPR_COUNT
};

int int_at(List* list, int index) { return intVal(list_nth(list, index)); }
Expr* expr_at(List* list, int index) { return static_cast<Expr*>(list_nth(list, index)); }
Expr* copy_expr(Expr* expr) { return static_cast<Expr*>(copyObjectImpl(expr)); }

// Integers appended in order.
List* append_ints(List* list, std::initializer_list<int> values) {
  for (const int value : values) list = lappend(list, makeInteger(value));
  return list;
}

constexpr int kProbeKeyInts = 5;

// A probe key's numbers appended, and read back from position `at` with its value.
List* append_probe_key(List* list, const ProbeKey& key) {
  return append_ints(list, {key.attno, key.strategy, static_cast<int>(key.subtype),
                            static_cast<int>(key.function), static_cast<int>(key.collation)});
}
ProbeKey probe_key_at(List* list, int at, Expr* value) {
  return ProbeKey{int_at(list, at), int_at(list, at + 1), static_cast<Oid>(int_at(list, at + 2)),
                  static_cast<Oid>(int_at(list, at + 3)), static_cast<Oid>(int_at(list, at + 4)),
                  value};
}

// An IndexProbe as a node list: the index, then per key its numbers and its value.
List* probe_list(const IndexProbe& probe) {
  List* list = list_make1(makeInteger(static_cast<int>(probe.index)));
  for (int k = 0; k < probe.n_keys; ++k)
    list = lappend(append_probe_key(list, probe.keys[k]), probe.keys[k].value);
  return list;
}

IndexProbe probe_of_list(List* list) {
  IndexProbe probe{static_cast<Oid>(int_at(list, 0)), 0, nullptr};
  probe.n_keys = (list_length(list) - 1) / (kProbeKeyInts + 1);
  probe.keys = static_cast<ProbeKey*>(palloc0(sizeof(ProbeKey) * Max(probe.n_keys, 1)));
  for (int k = 0; k < probe.n_keys; ++k) {
    const int first = 1 + (kProbeKeyInts + 1) * k;
    probe.keys[k] = probe_key_at(list, first, expr_at(list, first + kProbeKeyInts));
  }
  return probe;
}

}  // namespace

List* form_path_private(const JoinPathInfo& info) {
  const Match& m = info.match;
  List* priv = list_make5(info.restrictlist, m.outer_key, m.inner_key, m.eps, m.clause);
  priv = lappend(priv, m.scale);
  priv = lappend(priv, probe_list(info.probe));
  priv = lappend(priv, info.nearest_distance);
  priv = append_ints(priv, {m.form.kind, static_cast<int>(m.form.metric), m.form.cosine,
                            m.form.dwithin, m.form.float32, m.strict, m.radius_side, info.exact,
                            info.key_order, info.jointype, info.output_mode});
  for (int k = 0; k < info.n_boxes; ++k) {
    const BoxClause& box = info.boxes[k];
    priv = list_concat(priv, list_make4(box.clause, makeInteger(box.enlarged_side), box.r, box.n));
  }
  return priv;
}

JoinPathInfo deform_path_private(const CustomPath* path) {
  List* priv = path->custom_private;
  JoinPathInfo info;
  info.restrictlist = static_cast<List*>(list_nth(priv, PATH_RESTRICTLIST));
  Match& m = info.match;
  m.outer_key = expr_at(priv, PATH_OUTER_KEY);
  m.inner_key = expr_at(priv, PATH_INNER_KEY);
  m.eps = expr_at(priv, PATH_EPS);
  m.clause = expr_at(priv, PATH_CLAUSE);
  m.scale = static_cast<List*>(list_nth(priv, PATH_SCALE));
  info.probe = probe_of_list(static_cast<List*>(list_nth(priv, PATH_PROBE)));
  info.nearest_distance = expr_at(priv, PATH_NEAREST_DISTANCE);
  m.form.kind = static_cast<KeyKind>(int_at(priv, PATH_KIND));
  m.form.metric = static_cast<Metric>(int_at(priv, PATH_METRIC));
  m.form.cosine = int_at(priv, PATH_COSINE) != 0;
  m.form.dwithin = int_at(priv, PATH_DWITHIN) != 0;
  m.form.float32 = int_at(priv, PATH_FLOAT32) != 0;
  m.strict = int_at(priv, PATH_STRICT) != 0;
  m.radius_side = int_at(priv, PATH_RADIUS_SIDE);
  info.exact = int_at(priv, PATH_EXACT) != 0;
  info.key_order = static_cast<KeyOrder>(int_at(priv, PATH_KEY_ORDER));
  info.jointype = static_cast<JoinType>(int_at(priv, PATH_JOIN_TYPE));
  info.output_mode = static_cast<OutputMode>(int_at(priv, PATH_OUTPUT_MODE));
  info.n_boxes = (list_length(priv) - PATH_COUNT) / kPathBoxFields;
  info.boxes = static_cast<BoxClause*>(palloc0(sizeof(BoxClause) * Max(info.n_boxes, 1)));
  for (int k = 0; k < info.n_boxes; ++k) {
    const int first = PATH_COUNT + kPathBoxFields * k;
    info.boxes[k] = BoxClause{expr_at(priv, first), int_at(priv, first + 1),
                              expr_at(priv, first + 2), expr_at(priv, first + 3)};
  }
  return info;
}

// The keys, eps, r, n and factors are copied (the path's are shared with its clauses).
void form_plan_private(const JoinPlanInfo& info, CustomScan* cscan) {
  List* priv = append_ints(
      NIL, {info.form.kind, static_cast<int>(info.form.metric), info.form.cosine,
            info.form.dwithin, info.form.float32, info.outer_columns, info.distance_qual,
            info.strict, info.same_scan, info.inner_rereadable, info.n_boxes, info.radius_side,
            info.n_scale, info.key_order, info.jointype, info.output_mode, info.parallel_ok,
            static_cast<int>(info.probe.index), info.probe.n_keys});
  for (const RowIdentity& rows : info.rows)
    priv = append_ints(priv, {static_cast<int>(rows.table), rows.id_attno, rows.id_position});
  List* exprs = list_make5(copy_expr(info.outer_key), copy_expr(info.inner_key),
                           copy_expr(info.eps), info.quals, info.other_quals);
  exprs = lappend(exprs, copy_expr(info.nearest_distance));
  for (int k = 0; k < info.n_boxes; ++k) {
    priv = append_ints(priv, {info.boxes[k].position, info.boxes[k].enlarged_side});
    exprs = lappend(lappend(exprs, copy_expr(info.boxes[k].r)), copy_expr(info.boxes[k].n));
  }
  for (int k = 0; k < info.n_scale; ++k) {
    priv = append_ints(priv, {static_cast<int>(info.scale[k].op)});
    exprs = lappend(exprs, copy_expr(info.scale[k].factor));
  }
  for (int k = 0; k < info.probe.n_keys; ++k) {
    priv = append_probe_key(priv, info.probe.keys[k]);
    exprs = lappend(exprs, copy_expr(info.probe.keys[k].value));
  }
  cscan->custom_private = priv;
  cscan->custom_exprs = exprs;
}

JoinPlanInfo* deform_plan_private(const CustomScan* cscan) {
  List* priv = cscan->custom_private;
  List* exprs = cscan->custom_exprs;
  JoinPlanInfo* info = static_cast<JoinPlanInfo*>(palloc0(sizeof(JoinPlanInfo)));
  info->form.kind = static_cast<KeyKind>(int_at(priv, PRIV_KIND));
  info->form.metric = static_cast<Metric>(int_at(priv, PRIV_METRIC));
  info->form.cosine = int_at(priv, PRIV_COSINE) != 0;
  info->form.dwithin = int_at(priv, PRIV_DWITHIN) != 0;
  info->form.float32 = int_at(priv, PRIV_FLOAT32) != 0;
  info->outer_columns = int_at(priv, PRIV_OUTER_COLUMNS);
  info->distance_qual = int_at(priv, PRIV_DISTANCE_QUAL);
  info->strict = int_at(priv, PRIV_STRICT) != 0;
  info->same_scan = int_at(priv, PRIV_SAME_SCAN) != 0;
  info->inner_rereadable = int_at(priv, PRIV_INNER_REREADABLE) != 0;
  info->radius_side = int_at(priv, PRIV_RADIUS_SIDE);
  info->key_order = static_cast<KeyOrder>(int_at(priv, PRIV_KEY_ORDER));
  info->jointype = static_cast<JoinType>(int_at(priv, PRIV_JOIN_TYPE));
  info->output_mode = static_cast<OutputMode>(int_at(priv, PRIV_OUTPUT_MODE));
  info->parallel_ok = int_at(priv, PRIV_PARALLEL_OK) != 0;
  for (int side = 0; side < 2; ++side) {
    const int base = side == 0 ? PRIV_OUTER_TABLE : PRIV_INNER_TABLE;
    info->rows[side] = RowIdentity{static_cast<Oid>(int_at(priv, base)), int_at(priv, base + 1),
                                   int_at(priv, base + 2)};
  }
  info->outer_key = expr_at(exprs, EXPR_OUTER_KEY);
  info->inner_key = expr_at(exprs, EXPR_INNER_KEY);
  info->eps = expr_at(exprs, EXPR_EPS);
  info->quals = static_cast<List*>(list_nth(exprs, EXPR_QUAL));
  info->other_quals = static_cast<List*>(list_nth(exprs, EXPR_OTHER_QUAL));
  info->nearest_distance = expr_at(exprs, EXPR_NEAREST_DISTANCE);
  info->n_boxes = int_at(priv, PRIV_BOX_COUNT);
  info->boxes = static_cast<PlanBox*>(palloc0(sizeof(PlanBox) * Max(info->n_boxes, 1)));
  for (int k = 0; k < info->n_boxes; ++k)
    info->boxes[k] = PlanBox{int_at(priv, PRIV_COUNT + 2 * k), int_at(priv, PRIV_COUNT + 2 * k + 1),
                             expr_at(exprs, EXPR_COUNT + 2 * k),
                             expr_at(exprs, EXPR_COUNT + 2 * k + 1)};
  info->n_scale = int_at(priv, PRIV_SCALE_COUNT);
  info->scale =
      static_cast<PlanScaleStep*>(palloc0(sizeof(PlanScaleStep) * Max(info->n_scale, 1)));
  const int first_op = PRIV_COUNT + 2 * info->n_boxes;
  const int first_factor = EXPR_COUNT + 2 * info->n_boxes;
  for (int k = 0; k < info->n_scale; ++k)
    info->scale[k] = PlanScaleStep{static_cast<ScaleOp>(int_at(priv, first_op + k)),
                                   expr_at(exprs, first_factor + k)};
  IndexProbe& probe = info->probe;
  probe.index = static_cast<Oid>(int_at(priv, PRIV_PROBE_INDEX));
  probe.n_keys = int_at(priv, PRIV_PROBE_COUNT);
  probe.keys = static_cast<ProbeKey*>(palloc0(sizeof(ProbeKey) * Max(probe.n_keys, 1)));
  const int first_key = first_op + info->n_scale;
  const int first_value = first_factor + info->n_scale;
  for (int k = 0; k < probe.n_keys; ++k)
    probe.keys[k] =
        probe_key_at(priv, first_key + kProbeKeyInts * k, expr_at(exprs, first_value + k));
  return info;
}

}  // namespace simjoin::pg::cs
