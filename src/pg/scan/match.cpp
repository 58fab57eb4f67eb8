// The join clauses the SimilarityJoin custom scan recognizes (pg/scan/match.h): the distance
// clause (with monotone arithmetic on the distance and a per-row bound), contrib cube's box
// clause, a self-join's key order, and why a clause that computes a distance between the two
// inputs is not taken.
#include "pg/scan/match.h"

extern "C" {
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
}

#include <cmath>

namespace simjoin::pg::cs {

namespace {

// A float comparison operator of pg_catalog: returns +1 for < and <= (distance on the left), -1
// for > and >= (distance on the right), 0 otherwise. *strict: the operator is < or >.
int comparison_direction(Oid opno, bool* strict) {
  HeapTuple tuple = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
  if (!HeapTupleIsValid(tuple)) return 0;
  const Form_pg_operator op = reinterpret_cast<Form_pg_operator>(GETSTRUCT(tuple));
  int direction = 0;
  const bool float_args = (op->oprleft == FLOAT8OID || op->oprleft == FLOAT4OID) &&
                          (op->oprright == FLOAT8OID || op->oprright == FLOAT4OID);
  if (op->oprnamespace == PG_CATALOG_NAMESPACE && float_args && op->oprresult == BOOLOID) {
    const char* name = NameStr(op->oprname);
    if (strcmp(name, "<") == 0 || strcmp(name, "<=") == 0)
      direction = 1;
    else if (strcmp(name, ">") == 0 || strcmp(name, ">=") == 0)
      direction = -1;
    *strict = strcmp(name, "<") == 0 || strcmp(name, ">") == 0;
  }
  ReleaseSysCache(tuple);
  return direction;
}

// Free of this level's Vars and placeholders (it may still be volatile: checked apart).
bool var_free(PlannerInfo* root, Node* node) {
  return node != nullptr && !contain_var_clause(node) && bms_is_empty(pull_varnos(root, node));
}

// Why an expression cannot be evaluated once per scan or per row (nullptr: it can).
const char* expression_problem(Node* node, const char* what_volatile, const char* what_subquery) {
  if (contain_volatile_functions(node)) return what_volatile;
  if (contain_subplans(node) || contain_agg_clause(node) || contain_window_function(node))
    return what_subquery;
  return nullptr;
}

// A key expression of one input: Vars of that input only.
bool reads_only(PlannerInfo* root, Node* key, Relids side) {
  Relids relids = pull_varnos(root, key);
  return !bms_is_empty(relids) && bms_is_subset(relids, side);
}

// The call (function and arguments) an OpExpr or FuncExpr makes.
bool call_of(Node* node, Oid* funcid, List** args) {
  if (IsA(node, OpExpr)) {
    *funcid = get_opcode(reinterpret_cast<OpExpr*>(node)->opno);
    *args = reinterpret_cast<OpExpr*>(node)->args;
    return true;
  }
  if (IsA(node, FuncExpr)) {
    *funcid = reinterpret_cast<FuncExpr*>(node)->funcid;
    *args = reinterpret_cast<FuncExpr*>(node)->args;
    return true;
  }
  return false;
}

// Whether a call's first two arguments are one from each input (in either order).
bool arguments_cross(PlannerInfo* root, List* args, RelOptInfo* outerrel, RelOptInfo* innerrel) {
  if (list_length(args) < 2) return false;
  Node* x = static_cast<Node*>(linitial(args));
  Node* y = static_cast<Node*>(lsecond(args));
  return (reads_only(root, x, outerrel->relids) && reads_only(root, y, innerrel->relids)) ||
         (reads_only(root, y, outerrel->relids) && reads_only(root, x, innerrel->relids));
}

// Whether `call` (function funcid on args) is a recognized distance between the two inputs;
// *reason tells why not when it is a recognized distance function in a form not taken.
bool match_distance_call(PlannerInfo* root, Oid funcid, List* args, RelOptInfo* outerrel,
                         RelOptInfo* innerrel, bool want_dwithin, Match* m, const char** reason) {
  FormInfo form;
  if (!lookup_distance_function(funcid, &form) || form.dwithin != want_dwithin) return false;
  // Geography's trailing use_spheroid: the candidates hold for either value (engine/bounds/geodetic_bound.h).
  const int nargs = want_dwithin ? 3 : 2;
  const bool spheroid_arg = form.kind == KEY_GEOGRAPHY && list_length(args) == nargs + 1;
  if (list_length(args) != nargs && !spheroid_arg) return false;
  Node* x = static_cast<Node*>(linitial(args));
  Node* y = static_cast<Node*>(lsecond(args));
  if (reads_only(root, x, outerrel->relids) && reads_only(root, y, innerrel->relids)) {
    m->outer_key = reinterpret_cast<Expr*>(x);
    m->inner_key = reinterpret_cast<Expr*>(y);
  } else if (reads_only(root, y, outerrel->relids) && reads_only(root, x, innerrel->relids)) {
    m->outer_key = reinterpret_cast<Expr*>(y);
    m->inner_key = reinterpret_cast<Expr*>(x);
  } else {
    *reason = "its keys are not one from each side of the join";
    return false;
  }
  *reason = expression_problem(reinterpret_cast<Node*>(list_make2(x, y)), "a key is volatile",
                               "a key has a subquery");
  if (!*reason && spheroid_arg)
    *reason = expression_problem(static_cast<Node*>(llast(args)), "use_spheroid is volatile",
                                 "use_spheroid has a subquery");
  if (!*reason && !func_strict(funcid)) *reason = "the distance function is not strict";
  if (*reason) return false;
  m->form = form;
  return true;
}

// The bound c of the clause: the same for every pair, or one side's row's (m->radius_side).
bool match_bound(PlannerInfo* root, Node* bound, RelOptInfo* outerrel, RelOptInfo* innerrel,
                 Match* m, const char** reason) {
  *reason = expression_problem(bound, "the bound is volatile", "the bound has a subquery");
  if (*reason) return false;
  m->radius_side = -1;
  if (!var_free(root, bound)) {
    if (reads_only(root, bound, outerrel->relids))
      m->radius_side = 0;
    else if (reads_only(root, bound, innerrel->relids))
      m->radius_side = 1;
    else {
      *reason = "the bound reads both sides of the join";
      return false;
    }
  }
  m->eps = reinterpret_cast<Expr*>(bound);
  return true;
}

// The functions of monotone arithmetic on a float8 distance: which argument may be the factor.
struct ScaleFunction {
  Oid funcid;
  ScaleOp op;
  bool factor_first;   // k * d, s + d
  bool factor_second;  // d * k, d / k, d + s, d - s
};

constexpr ScaleFunction kScaleFunctions[] = {
    {F_FLOAT8MUL, ScaleOp::Multiply, true, true},  {F_FLOAT84MUL, ScaleOp::Multiply, false, true},
    {F_FLOAT48MUL, ScaleOp::Multiply, true, false}, {F_FLOAT8DIV, ScaleOp::Divide, false, true},
    {F_FLOAT84DIV, ScaleOp::Divide, false, true},  {F_FLOAT8PL, ScaleOp::Add, true, true},
    {F_FLOAT84PL, ScaleOp::Add, false, true},      {F_FLOAT48PL, ScaleOp::Add, true, false},
    {F_FLOAT8MI, ScaleOp::Subtract, false, true},  {F_FLOAT84MI, ScaleOp::Subtract, false, true},
};

// Why a constant factor cannot be inverted (nullptr: it can; a parameter is checked per scan).
const char* factor_value_problem(Node* factor, ScaleOp op) {
  if (!IsA(factor, Const)) return nullptr;
  const Const* c = reinterpret_cast<const Const*>(factor);
  if (c->constisnull) return "a factor on the distance is NULL";
  const double value = c->consttype == FLOAT4OID ? DatumGetFloat4(c->constvalue)
                                                  : DatumGetFloat8(c->constvalue);
  const bool scaling = op == ScaleOp::Multiply || op == ScaleOp::Divide;
  if (!std::isfinite(value) || (scaling && !(value > 0)))
    return scaling ? "a factor on the distance is not a positive finite number"
                   : "a term added to the distance is not a finite number";
  return nullptr;
}

// Peels monotone arithmetic off the distance side of a comparison (d * k, k * d, d / k, d + s,
// s + d, d - s, nested), appending its steps to *scale outermost first; returns what is left.
// *reason: a factor that cannot be taken (volatile, a subquery, a constant out of range).
Node* peel_scale(PlannerInfo* root, Node* node, List** scale, const char** reason) {
  while (IsA(node, OpExpr) && list_length(reinterpret_cast<OpExpr*>(node)->args) == 2) {
    OpExpr* op = reinterpret_cast<OpExpr*>(node);
    const Oid funcid = get_opcode(op->opno);
    const ScaleFunction* f = nullptr;
    for (const ScaleFunction& candidate : kScaleFunctions)
      if (candidate.funcid == funcid) f = &candidate;
    if (!f) break;
    Node* a = static_cast<Node*>(linitial(op->args));
    Node* b = static_cast<Node*>(lsecond(op->args));
    Node* factor;
    if (f->factor_second && var_free(root, b) && !var_free(root, a)) {
      factor = b;
      node = a;
    } else if (f->factor_first && var_free(root, a) && !var_free(root, b)) {
      factor = a;
      node = b;
    } else {
      // Arithmetic with a row's value (d * a.w): no bound on d for the whole join.
      if (!*reason && !var_free(root, a) && !var_free(root, b))
        *reason = "a factor on the distance reads a row";
      break;
    }
    if (!*reason)
      *reason = expression_problem(factor, "a factor on the distance is volatile",
                                   "a factor on the distance has a subquery");
    if (!*reason) *reason = factor_value_problem(factor, f->op);
    *scale = lappend(*scale, list_make2(makeInteger(static_cast<int>(f->op)), factor));
  }
  return node;
}

struct CrossDistanceSearch {
  PlannerInfo* root;
  RelOptInfo* outerrel;
  RelOptInfo* innerrel;
};

// Whether an expression calls a recognized distance function on one key from each input.
bool contains_cross_distance(Node* node, void* context) {
  if (node == nullptr) return false;
  const CrossDistanceSearch* search = static_cast<CrossDistanceSearch*>(context);
  Oid funcid;
  List* args;
  FormInfo form;
  if (call_of(node, &funcid, &args) && lookup_distance_function(funcid, &form) &&
      arguments_cross(search->root, args, search->outerrel, search->innerrel))
    return true;
  return expression_tree_walker(
      node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(contains_cross_distance)),
      context);
}

// Why a clause holding a distance between the two inputs is no distance clause of the scan.
const char* shape_reason(Node* clause) {
  if (IsA(clause, BoolExpr))
    return reinterpret_cast<BoolExpr*>(clause)->boolop == OR_EXPR ? "the distance is inside OR"
                                                                   : "the distance is inside NOT";
  if (IsA(clause, OpExpr)) {
    bool strict = false;
    if (comparison_direction(reinterpret_cast<OpExpr*>(clause)->opno, &strict) != 0)
      return "the comparison does not bound the distance from above (or the distance is inside "
             "arithmetic the scan cannot invert)";
    return "the distance is compared by an operator other than <, <=, >= or >";
  }
  return "the distance is not compared with a bound directly";
}

}  // namespace

ScaleOp scale_step_op(List* step) { return static_cast<ScaleOp>(intVal(linitial(step))); }
Expr* scale_step_factor(List* step) { return static_cast<Expr*>(lsecond(step)); }

ClauseMatch match_clause(PlannerInfo* root, RestrictInfo* rinfo, RelOptInfo* outerrel,
                         RelOptInfo* innerrel, Match* m, const char** reason) {
  *reason = nullptr;
  if (rinfo->pseudoconstant) return ClauseMatch::NotDistance;
  Node* clause = reinterpret_cast<Node*>(rinfo->clause);
  Oid funcid;
  List* args;
  const char* scale_reason = nullptr;  // arithmetic on the distance not taken
  m->scale = NIL;
  m->strict = false;
  if (IsA(clause, OpExpr) && list_length(reinterpret_cast<OpExpr*>(clause)->args) == 2) {
    OpExpr* op = reinterpret_cast<OpExpr*>(clause);
    const int direction = comparison_direction(op->opno, &m->strict);
    if (direction != 0) {
      Node* dist = static_cast<Node*>(direction > 0 ? linitial(op->args) : lsecond(op->args));
      Node* bound = static_cast<Node*>(direction > 0 ? lsecond(op->args) : linitial(op->args));
      Node* core = peel_scale(root, dist, &m->scale, &scale_reason);
      if (call_of(core, &funcid, &args)) {
        if (match_distance_call(root, funcid, args, outerrel, innerrel, false, m, reason)) {
          *reason = scale_reason;
          if (!*reason && match_bound(root, bound, outerrel, innerrel, m, reason)) {
            m->clause = rinfo->clause;
            return ClauseMatch::Matched;
          }
          return ClauseMatch::Rejected;
        }
        if (*reason) return ClauseMatch::Rejected;
        FormInfo form;
        if (!lookup_distance_function(funcid, &form) &&
            arguments_cross(root, args, outerrel, innerrel)) {
          *reason = psprintf("%s is no distance the scan takes",
                             format_procedure(funcid));
          return ClauseMatch::Rejected;
        }
      }
    }
  } else if (IsA(clause, FuncExpr) &&
             reinterpret_cast<FuncExpr*>(clause)->funcresulttype == BOOLOID) {
    FuncExpr* fn = reinterpret_cast<FuncExpr*>(clause);
    if (match_distance_call(root, fn->funcid, fn->args, outerrel, innerrel, true, m, reason)) {
      if (match_bound(root, static_cast<Node*>(lthird(fn->args)), outerrel, innerrel, m,
                      reason)) {
        m->clause = rinfo->clause;
        return ClauseMatch::Matched;
      }
      return ClauseMatch::Rejected;
    }
    if (*reason) return ClauseMatch::Rejected;
  }
  CrossDistanceSearch search{root, outerrel, innerrel};
  if (!contains_cross_distance(clause, &search)) return ClauseMatch::NotDistance;
  *reason = scale_reason ? scale_reason : shape_reason(clause);
  return ClauseMatch::Rejected;
}

bool match_box_clause(Expr* clause, const Match& m, BoxClause* box) {
  Oid funcid;
  List* args;
  if (!call_of(reinterpret_cast<Node*>(clause), &funcid, &args) || list_length(args) != 2)
    return false;
  const CubeBoxRole role = cube_box_role(funcid);
  if (role != CUBE_BOX_CONTAINS && role != CUBE_BOX_CONTAINED) return false;
  Node* container = static_cast<Node*>(role == CUBE_BOX_CONTAINS ? linitial(args) : lsecond(args));
  Node* contained = static_cast<Node*>(role == CUBE_BOX_CONTAINS ? lsecond(args) : linitial(args));
  if (!IsA(container, FuncExpr)) return false;
  FuncExpr* enlarge = reinterpret_cast<FuncExpr*>(container);
  if (cube_box_role(enlarge->funcid) != CUBE_BOX_ENLARGE || list_length(enlarge->args) != 3)
    return false;
  Node* x = static_cast<Node*>(linitial(enlarge->args));
  Node* r = static_cast<Node*>(lsecond(enlarge->args));
  Node* n = static_cast<Node*>(lthird(enlarge->args));
  auto constant_per_scan = [](Node* e) {
    return !contain_var_clause(e) && !expression_problem(e, "", "");
  };
  if (!constant_per_scan(r) || !constant_per_scan(n)) return false;
  if (equal(x, m.outer_key) && equal(contained, m.inner_key))
    box->enlarged_side = 0;
  else if (equal(x, m.inner_key) && equal(contained, m.outer_key))
    box->enlarged_side = 1;
  else
    return false;
  box->clause = clause;
  box->r = reinterpret_cast<Expr*>(r);
  box->n = reinterpret_cast<Expr*>(n);
  return true;
}

KeyOrder match_key_order(PlannerInfo* root, RestrictInfo* rinfo, RelOptInfo* outerrel,
                         RelOptInfo* innerrel) {
  if (rinfo->pseudoconstant || !IsA(rinfo->clause, OpExpr)) return KEY_ORDER_NONE;
  if (outerrel->reloptkind != RELOPT_BASEREL || innerrel->reloptkind != RELOPT_BASEREL)
    return KEY_ORDER_NONE;
  OpExpr* op = reinterpret_cast<OpExpr*>(rinfo->clause);
  if (list_length(op->args) != 2) return KEY_ORDER_NONE;
  Node* left = static_cast<Node*>(linitial(op->args));
  Node* right = static_cast<Node*>(lsecond(op->args));
  if (!IsA(left, Var) || !IsA(right, Var)) return KEY_ORDER_NONE;
  const Var* a = reinterpret_cast<const Var*>(left);
  const Var* b = reinterpret_cast<const Var*>(right);
  if (a->varlevelsup != 0 || b->varlevelsup != 0 || a->varattno <= 0 ||
      a->varattno != b->varattno || a->vartype != b->vartype)
    return KEY_ORDER_NONE;
  const bool a_outer = static_cast<Index>(a->varno) == outerrel->relid &&
                       static_cast<Index>(b->varno) == innerrel->relid;
  const bool a_inner = static_cast<Index>(a->varno) == innerrel->relid &&
                       static_cast<Index>(b->varno) == outerrel->relid;
  if (!a_outer && !a_inner) return KEY_ORDER_NONE;
  RangeTblEntry* outer_rte = planner_rt_fetch(outerrel->relid, root);
  RangeTblEntry* inner_rte = planner_rt_fetch(innerrel->relid, root);
  if (outer_rte->rtekind != RTE_RELATION || inner_rte->rtekind != RTE_RELATION ||
      outer_rte->relid != inner_rte->relid)
    return KEY_ORDER_NONE;
  // The operator's btree meaning in the opfamily of a unique index on exactly this column.
  List* interpretations = get_op_btree_interpretation(op->opno);
  ListCell* lc;
  foreach (lc, outerrel->indexlist) {
    IndexOptInfo* index = lfirst_node(IndexOptInfo, lc);
    if (!index->unique || !index->immediate || index->indpred != NIL ||
        index->nkeycolumns != 1 || index->indexkeys[0] != a->varattno ||
        index->indexcollations[0] != op->inputcollid || index->relam != BTREE_AM_OID)
      continue;
    ListCell* ic;
    foreach (ic, interpretations) {
      const OpBtreeInterpretation* meaning = static_cast<OpBtreeInterpretation*>(lfirst(ic));
      if (meaning->opfamily_id != index->opfamily[0] || meaning->oplefttype != a->vartype ||
          meaning->oprighttype != a->vartype)
        continue;
      if (meaning->strategy == BTLessStrategyNumber ||
          meaning->strategy == BTGreaterStrategyNumber)
        return KEY_ORDER_ONE_WAY;
      if (meaning->strategy == ROWCOMPARE_NE) return KEY_ORDER_BOTH_WAYS;
    }
  }
  return KEY_ORDER_NONE;
}

bool is_not_null_column(PlannerInfo* root, Node* expr) {
  if (!IsA(expr, Var)) return false;
  const Var* var = reinterpret_cast<const Var*>(expr);
  if (var->varlevelsup != 0 || var->varattno <= 0) return false;
  const RangeTblEntry* rte = planner_rt_fetch(var->varno, root);
  if (rte->rtekind != RTE_RELATION) return false;
  HeapTuple tuple = SearchSysCache2(ATTNUM, ObjectIdGetDatum(rte->relid),
                                    Int16GetDatum(var->varattno));
  if (!HeapTupleIsValid(tuple)) return false;
  const bool not_null = reinterpret_cast<Form_pg_attribute>(GETSTRUCT(tuple))->attnotnull;
  ReleaseSysCache(tuple);
  return not_null;
}

Expr* postgis_distance_of(const Match& match) {
  if (match.form.kind != KEY_GEOMETRY || !match.form.dwithin || match.scale != NIL ||
      match.radius_side >= 0)
    return nullptr;
  const Oid st_distance = exact_postgis_distance();
  if (!OidIsValid(st_distance)) return nullptr;
  return reinterpret_cast<Expr*>(makeFuncExpr(st_distance, FLOAT8OID,
                                              list_make2(match.outer_key, match.inner_key),
                                              InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL));
}

}  // namespace simjoin::pg::cs
