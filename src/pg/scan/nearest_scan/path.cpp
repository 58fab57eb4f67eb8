// The SimJoin Nearest Scan's planner part: the path of the k-nearest-neighbour LATERAL
// subquery's base relation, its cost and its plan.
//
// Taken only where the result is PostgreSQL's own, row for row:
// - the subquery (root->parent_root set) has a LIMIT, a single relation, a single ORDER BY key
//   (ascending, NULLS LAST, float8's btree order), no grouping, aggregates, window functions,
//   DISTINCT, set operations, set-returning functions or row marks;
// - that key is a recognized distance dist(outer, b.key) or dist(b.key, outer) (an OpExpr or
//   FuncExpr, strict, not volatile) whose form the engine computes exactly (engine_is_exact:
//   simjoin's real[] / float8[] distances, contrib cube's where its probe passes; point <-> point
//   with PostgreSQL's own arithmetic, planar_point_distance, where its probe passes; PostGIS's
//   ST_Distance and <-> on geometry points where their probes pass, other shapes and SRIDs
//   being wild rows): the engine's double is then the operator's value bit for bit, so the
//   order is PostgreSQL's; or any other recognized form (PostGIS's geography distances, with or
//   without a constant use_spheroid; pgvector's; forms whose probe failed), whose value the
//   engine's distance bounds (engine_bound): the executor measures rows with the ORDER BY
//   expression itself, in the engine's order, and emits each once no row left unmeasured can be
//   nearer (exec.cpp), so the order is again PostgreSQL's;
// - the outer argument holds a PARAM_EXEC (the outer query's key) and no Var; b's argument
//   holds b's Vars and no PARAM_EXEC;
// - b is a plain table without row-level security, no TABLESAMPLE, and no volatile qual;
// - the cache (rows * (dim + 2) doubles) fits in work_mem, at the planner's estimate.
// Ties (equal distances) come out in physical (TID) order: PostgreSQL leaves their order open.
#include "pg/scan/nearest_scan/nearest_scan.h"

#include "pg/pg_guard.h"

extern "C" {
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_class.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_proc_d.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/restrictinfo.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

#include <cmath>

namespace simjoin::pg::cs {

namespace {

// ---- the shape of the query --------------------------------------------------------------

bool has_exec_param_walker(Node* node, void*) {
  if (node == nullptr) return false;
  if (IsA(node, Param) && reinterpret_cast<Param*>(node)->paramkind == PARAM_EXEC) return true;
  return expression_tree_walker(
      node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(has_exec_param_walker)),
      nullptr);
}

bool has_exec_param(Node* node) { return has_exec_param_walker(node, nullptr); }

// Whether the subquery is the plain  SELECT ... FROM b WHERE ... ORDER BY d LIMIT k  shape.
bool subquery_shape_ok(PlannerInfo* root) {
  const Query* parse = root->parse;
  return root->parent_root != nullptr && parse->limitCount != nullptr &&
         parse->groupClause == NIL && parse->groupingSets == NIL && !parse->hasAggs &&
         !parse->hasWindowFuncs && parse->distinctClause == NIL &&
         parse->setOperations == nullptr && !parse->hasTargetSRFs && parse->rowMarks == NIL &&
         parse->havingQual == nullptr && list_length(parse->sortClause) == 1 &&
         list_length(root->query_pathkeys) == 1 && bms_num_members(root->all_baserels) == 1;
}

// Whether b may be read by TID from a cache of its rows: a plain table, no row-level security.
bool relation_ok(RelOptInfo* rel, RangeTblEntry* rte) {
  if (rte->rtekind != RTE_RELATION || rte->tablesample != nullptr || rte->securityQuals != NIL ||
      (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
      rel->reloptkind != RELOPT_BASEREL)
    return false;
  HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(rte->relid));
  if (!HeapTupleIsValid(tuple)) return false;
  const bool rls = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relrowsecurity;
  ReleaseSysCache(tuple);
  if (rls) return false;
  ListCell* lc;
  foreach (lc, rel->baserestrictinfo) {
    RestrictInfo* rinfo = lfirst_node(RestrictInfo, lc);
    if (contain_volatile_functions(reinterpret_cast<Node*>(rinfo->clause))) return false;
  }
  return true;
}

// The recognized distance of the ORDER BY: the expression, its form and its two arguments.
struct NearestKey {
  Expr* distance = nullptr;
  Expr* outer_key = nullptr;
  Expr* inner_key = nullptr;
  FormInfo form{};
  bool measured = false;  // the engine's distance bounds the operator's value (exec.cpp)
};

bool distance_call(Expr* expr, Oid* funcid, List** args) {
  if (IsA(expr, OpExpr)) {
    *funcid = reinterpret_cast<OpExpr*>(expr)->opfuncid;
    if (!OidIsValid(*funcid)) *funcid = get_opcode(reinterpret_cast<OpExpr*>(expr)->opno);
    *args = reinterpret_cast<OpExpr*>(expr)->args;
    return true;
  }
  if (IsA(expr, FuncExpr)) {
    *funcid = reinterpret_cast<FuncExpr*>(expr)->funcid;
    *args = reinterpret_cast<FuncExpr*>(expr)->args;
    return true;
  }
  return false;
}

// Two keys, or (ST_Distance on geography) two keys and a constant use_spheroid.
bool distance_arguments(List* args) {
  if (list_length(args) == 2) return true;
  if (list_length(args) != 3) return false;
  Node* third = static_cast<Node*>(lthird(args));
  return IsA(third, Const) && !reinterpret_cast<Const*>(third)->constisnull &&
         exprType(third) == BOOLOID;
}

// Whether arg is an outer key (a PARAM_EXEC, no Var of this query, not volatile).
bool is_outer_key(PlannerInfo* root, Expr* arg) {
  Node* node = reinterpret_cast<Node*>(arg);
  return has_exec_param(node) && bms_is_empty(pull_varnos(root, node)) &&
         !contain_volatile_functions(node);
}

// Whether arg is a key of b alone (b's Vars, no PARAM_EXEC, not volatile).
bool is_inner_key(PlannerInfo* root, Expr* arg, Index rti) {
  Node* node = reinterpret_cast<Node*>(arg);
  Relids varnos = pull_varnos(root, node);
  return bms_is_member(rti, varnos) && bms_num_members(varnos) == 1 && !has_exec_param(node) &&
         !contain_volatile_functions(node);
}

bool find_nearest_key(PlannerInfo* root, Index rti, NearestKey* key) {
  PathKey* pathkey = static_cast<PathKey*>(linitial(root->query_pathkeys));
  if (pathkey->pk_strategy != BTLessStrategyNumber || pathkey->pk_nulls_first ||
      get_opfamily_member(pathkey->pk_opfamily, FLOAT8OID, FLOAT8OID, BTLessStrategyNumber) !=
          Float8LessOperator)
    return false;
  EquivalenceClass* ec = pathkey->pk_eclass;
  if (ec->ec_has_volatile) return false;
  ListCell* lc;
  foreach (lc, ec->ec_members) {
    EquivalenceMember* em = static_cast<EquivalenceMember*>(lfirst(lc));
    Expr* expr = em->em_expr;
    while (IsA(expr, RelabelType)) expr = reinterpret_cast<RelabelType*>(expr)->arg;
    Oid funcid;
    List* args;
    if (exprType(reinterpret_cast<Node*>(expr)) != FLOAT8OID ||
        !distance_call(expr, &funcid, &args) || !distance_arguments(args))
      continue;
    FormInfo form;
    if (!lookup_distance_function(funcid, &form) || form.dwithin || !func_strict(funcid) ||
        func_volatile(funcid) == PROVOLATILE_VOLATILE)
      continue;
    // point <-> point: PostgreSQL's own arithmetic, planar_point_distance (probed); PostGIS's
    // ST_Distance and <-> on geometry points where they compute the engine's distance (probed);
    // every other form measured by its own function in the engine's order (exec.cpp)
    const bool exact = engine_is_exact(form) ||
                       (form.kind == KEY_POINT && exact_point_distance()) ||
                       (form.kind == KEY_GEOMETRY && exact_postgis_distance_function(funcid));
    for (int outer = 0; outer < 2; ++outer) {
      Expr* outer_arg = static_cast<Expr*>(list_nth(args, outer));
      Expr* inner_arg = static_cast<Expr*>(list_nth(args, 1 - outer));
      if (is_outer_key(root, outer_arg) && is_inner_key(root, inner_arg, rti)) {
        key->distance = expr;
        key->outer_key = outer_arg;
        key->inner_key = inner_arg;
        key->form = form;
        key->measured = !exact;
        return true;
      }
    }
  }
  return false;
}

// ---- the cost ---------------------------------------------------------------------------

// The key's dimension as the statistics suggest (the column's average width), else 16.
double estimated_dimension(RangeTblEntry* rte, Expr* inner_key, const FormInfo& form) {
  if (form.kind == KEY_POINT || form.kind == KEY_GEOMETRY) return 2;
  if (form.kind == KEY_GEOGRAPHY) return 3;  // unit normals
  while (IsA(inner_key, RelabelType)) inner_key = reinterpret_cast<RelabelType*>(inner_key)->arg;
  if (!IsA(inner_key, Var)) return 16;
  const Var* var = reinterpret_cast<const Var*>(inner_key);
  const int32 width = get_attavgwidth(rte->relid, var->varattno);
  if (width <= 0) return 16;
  const double element = var->vartype == FLOAT4ARRAYOID || form.kind == KEY_PGVECTOR ? 4 : 8;
  const double header = form.kind == KEY_FLOAT_ARRAY ? 24 : 8;
  return std::fmax(1.0, (width - header) / element);
}

// Outer rows expected to rescan the scan: the largest base relation of the outer query whose
// Vars the subquery's Params carry (already sized: it comes first in FROM), at least 1.
double estimated_loops(PlannerInfo* root) {
  PlannerInfo* parent = root->parent_root;
  double loops = 1;
  ListCell* lc;
  foreach (lc, parent->plan_params) {
    PlannerParamItem* item = static_cast<PlannerParamItem*>(lfirst(lc));
    if (!IsA(item->item, Var)) continue;
    const Var* var = reinterpret_cast<const Var*>(item->item);
    if (var->varno < 1 || var->varno >= parent->simple_rel_array_size)
      continue;
    RelOptInfo* outer = parent->simple_rel_array[var->varno];
    if (outer != nullptr && outer->rows > loops) loops = outer->rows;
  }
  return loops;
}

// Per loop: a share of caching b (read once per execution: its cost spread over the expected
// loops), the engine's distances to every cached row and the first chunk's selection, before the
// first row; each row emitted then costs a fetch by TID and the quals. PostgreSQL's plan pays a
// full scan, the operator on every row and a top-N sort per loop: it wins for one loop.
// Measured forms: each loop also measures about the LIMIT's rows (`measured` > 0), a fetch and
// the operator each (some 40 operators: PostGIS's geodesic).
void cost_nearest_path(PlannerInfo* root, RelOptInfo* rel, double dim, double loops,
                       double measured, Path* path) {
  const double tuples = std::fmax(rel->tuples, 1.0);
  QualCost quals;
  cost_qual_eval(&quals, extract_actual_clauses(rel->baserestrictinfo, false), root);
  const double cache = seq_page_cost * rel->pages +
                       (cpu_tuple_cost + quals.per_tuple + cpu_operator_cost) * tuples +
                       quals.startup;
  // Measured on a 2-core VM (docs/benchmarks/knn.md): 100k rows, 1.8 ms a loop in 3-D and 11 ms
  // in 100-D, against 21 and 47 ms for PostgreSQL's plan: a coordinate about 1/64 of an operator.
  const double distances = tuples * cpu_operator_cost * (0.25 + dim / 64.0);
  const double selection = tuples * cpu_operator_cost;
  const double measuring = measured * (cpu_tuple_cost + 40 * cpu_operator_cost);
  path->startup_cost = cache / loops + distances + selection + measuring;
  const double per_row = cpu_tuple_cost + quals.per_tuple;
  path->total_cost = path->startup_cost + rel->rows * per_row;
  path->rows = rel->rows;
}

CustomPathMethods path_methods;  // filled in below (PlanCustomPath needs the function)

// The plan: b's quals split into those free of PARAM_EXEC (checked once, while caching) and the
// others (checked on each emitted row: plan.qual, shown as Filter).
Plan* plan_nearest_path(PlannerInfo*, RelOptInfo* rel, CustomPath* best_path, List* tlist,
                        List* clauses, List*) {
  return cpp_guard([&]() -> Plan* {
    CustomScan* cscan = makeNode(CustomScan);
    List* cache_quals = NIL;
    List* row_quals = NIL;
    ListCell* lc;
    foreach (lc, extract_actual_clauses(clauses, false)) {
      Node* qual = static_cast<Node*>(lfirst(lc));
      if (has_exec_param(qual))
        row_quals = lappend(row_quals, qual);
      else
        cache_quals = lappend(cache_quals, qual);
    }
    cscan->scan.plan.targetlist = tlist;
    cscan->scan.plan.qual = row_quals;
    cscan->scan.scanrelid = rel->relid;
    cscan->flags = best_path->flags;
    cscan->methods = &nearest_scan_methods;
    List* exprs = best_path->custom_private;  // distance, outer key, inner key, limit, measured
    cscan->custom_exprs =
        list_make4(linitial(exprs), lsecond(exprs), lthird(exprs),
                   cache_quals == NIL ? reinterpret_cast<Expr*>(makeBoolConst(true, false))
                                      : make_ands_explicit(cache_quals));
    cscan->custom_private = list_make2(list_nth(exprs, 3), list_nth(exprs, 4));
    return &cscan->scan.plan;
  });
}

}  // namespace

void add_nearest_scan_path(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte) {
  if (!subquery_shape_ok(root) || !relation_ok(rel, rte)) return;
  NearestKey key;
  if (!find_nearest_key(root, rti, &key)) return;
  const double dim = estimated_dimension(rte, key.inner_key, key.form);
  // The cache: per row a TID and the key's coordinates (row index and distance per rescan).
  const double cache_bytes = std::fmax(rel->tuples, 1.0) * (dim * 8 + 24);
  if (cache_bytes > static_cast<double>(work_mem) * 1024.0) return;
  const double limit = root->limit_tuples > 0 ? root->limit_tuples : 10;

  path_methods.CustomName = "SimJoin Nearest Scan";
  path_methods.PlanCustomPath = plan_nearest_path;
  CustomPath* path = makeNode(CustomPath);
  path->path.pathtype = T_CustomScan;
  path->path.parent = rel;
  path->path.pathtarget = rel->reltarget;
  path->path.param_info = nullptr;
  path->path.parallel_aware = false;
  path->path.parallel_safe = false;
  path->path.parallel_workers = 0;
  path->path.pathkeys = root->query_pathkeys;
  path->flags = CUSTOMPATH_SUPPORT_PROJECTION;
  path->custom_paths = NIL;
  path->custom_private =
      list_make5(key.distance, key.outer_key, key.inner_key,
                 makeInteger(static_cast<int>(std::fmin(limit, 1e8))),
                 makeInteger(key.measured ? 1 : 0));
  path->methods = &path_methods;
  const double measured = key.measured ? limit + 8 : 0;
  cost_nearest_path(root, rel, dim, estimated_loops(root), measured, &path->path);
  add_path(rel, &path->path);
}

}  // namespace simjoin::pg::cs
