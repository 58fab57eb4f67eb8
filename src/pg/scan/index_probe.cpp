// The outer side of a SimilarityJoin read through an index of its table (IndexProbe), planned.
//
// Against a small inner side, reading and indexing every row of a large outer table costs more
// than the join (299 buffered centres against 199,568 indexed places: 60 of 90 ms), and
// PostgreSQL's nested loop wins with one index scan per inner row. So the scan can do the same
// for its outer side: per inner row one scan of an index of the outer table, with the
// conditions PostgreSQL itself derived from the join's clauses for that nested loop's inner
// index scan (a parameterized index path: `b.g && st_expand(a.g, d)` for ST_DWithin,
// `b.c <@ cube_enlarge(a.c, r, n)`, ...). Every outer row of a pair satisfies them, so the rows
// the probes return (each once) hold every pair; the engine then joins them as it joins a side
// read whole, and the join's clauses are checked as before.
#include "pg/pg_guard.h"
#include "pg/scan/index_probe.h"

extern "C" {
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
}

namespace simjoin::pg::cs {

bool enable_index_probe = true;
double index_probe_cost = 1.0;  // the settings' defaults (custom_scan.cpp)
double index_probe_row_cost = 0.1;

namespace {

// Whether `node` is the index column `attno` of relation `relid`.
bool is_index_column(Node* node, Index relid, AttrNumber attno) {
  node = without_relabel(node);
  if (!node || !IsA(node, Var)) return false;
  const Var* var = castNode(Var, node);
  return var->varno == static_cast<int>(relid) && var->varattno == attno && var->varlevelsup == 0;
}

// An index condition `column op value` (or `value op column`) of the index path as a scan key
// whose value is computed from the inner row alone; false otherwise.
bool probe_key_of(PlannerInfo* root, RelOptInfo* outerrel, RelOptInfo* innerrel,
                  IndexOptInfo* index, int column, Expr* clause, ProbeKey* key) {
  if (!IsA(clause, OpExpr) || list_length(castNode(OpExpr, clause)->args) != 2) return false;
  const OpExpr* op = castNode(OpExpr, clause);
  const AttrNumber attno = index->indexkeys[column];
  if (attno <= 0) return false;  // an expression index
  Node* left = static_cast<Node*>(linitial(op->args));
  Node* right = static_cast<Node*>(lsecond(op->args));
  Oid opno = op->opno;
  Node* value = right;
  if (!is_index_column(left, outerrel->relid, attno)) {
    if (!is_index_column(right, outerrel->relid, attno)) return false;
    opno = get_commutator(opno);
    value = left;
  }
  if (!OidIsValid(opno) || !op_in_opfamily(opno, index->opfamily[column])) return false;
  if (!bms_is_subset(pull_varnos(root, value), innerrel->relids) ||
      contain_volatile_functions(value) || reads_params_or_subplans(value, nullptr))
    return false;
  int strategy;
  Oid lefttype, righttype;
  get_op_opfamily_properties(opno, index->opfamily[column], false, &strategy, &lefttype,
                             &righttype);
  *key = ProbeKey{column + 1, strategy, righttype, get_opcode(opno), index->indexcollations[column],
                  reinterpret_cast<Expr*>(value)};
  return true;
}

// The keys of a parameterized index path of the outer relation, or none.
IndexProbe probe_of_path(PlannerInfo* root, RelOptInfo* outerrel, RelOptInfo* innerrel,
                         IndexPath* path) {
  IndexProbe probe{InvalidOid, 0, nullptr};
  IndexOptInfo* index = path->indexinfo;
  if (!index->amhasgettuple) return probe;
  int conditions = 0;
  ListCell* lc;
  foreach (lc, path->indexclauses)
    conditions += list_length(lfirst_node(IndexClause, lc)->indexquals);
  probe.keys = static_cast<ProbeKey*>(palloc0(sizeof(ProbeKey) * Max(conditions, 1)));
  foreach (lc, path->indexclauses) {
    IndexClause* clause = lfirst_node(IndexClause, lc);
    if (clause->indexcols != NIL) continue;  // a row comparison
    ListCell* qc;
    foreach (qc, clause->indexquals) {
      ProbeKey key;
      if (probe_key_of(root, outerrel, innerrel, index, clause->indexcol,
                       lfirst_node(RestrictInfo, qc)->clause, &key))
        probe.keys[probe.n_keys++] = key;
    }
  }
  if (probe.n_keys > 0) probe.index = index->indexoid;
  return probe;
}

// The index path of `indexed` parameterized by `probing` (an index scan, or a bitmap scan of one
// index: add_path may have kept only that one), or nullptr.
IndexPath* parameterized_index_path(RelOptInfo* indexed, RelOptInfo* probing) {
  ListCell* lc;
  foreach (lc, indexed->pathlist) {
    Path* path = static_cast<Path*>(lfirst(lc));
    if (!bms_equal(PATH_REQ_OUTER(path), probing->relids)) continue;
    if (IsA(path, BitmapHeapPath)) path = reinterpret_cast<BitmapHeapPath*>(path)->bitmapqual;
    if (IsA(path, IndexPath)) return reinterpret_cast<IndexPath*>(path);
  }
  return nullptr;
}

}  // namespace

IndexProbe find_index_probe(PlannerInfo* root, RelOptInfo* outerrel, RelOptInfo* innerrel,
                            JoinType jointype) {
  IndexProbe none{InvalidOid, 0, nullptr};
  // Outer rows without a pair are kept by LEFT and anti-joins: those read the side whole.
  if (!enable_index_probe || (jointype != JOIN_INNER && jointype != JOIN_SEMI) ||
      outerrel->reloptkind != RELOPT_BASEREL || innerrel->reloptkind != RELOPT_BASEREL ||
      outerrel->rtekind != RTE_RELATION || root->rowMarks != NIL)
    return none;
  // Row-level security: the policies' quals come first (PostgreSQL's own parameterized paths
  // respect that; no probe is taken where there are any).
  if (planner_rt_fetch(outerrel->relid, root)->securityQuals != NIL) return none;
  IndexPath* path = parameterized_index_path(outerrel, innerrel);
  if (!path) return none;
  return probe_of_path(root, outerrel, innerrel, path);
}

Cost probe_read_cost(double probes, double rows_read) {
  return probes * index_probe_cost +
         rows_read * (index_probe_row_cost + cpu_tuple_cost + row_cost_setting);
}

double nested_loop_time(RelOptInfo* outerrel, RelOptInfo* innerrel, JoinType jointype,
                        double rows_read, int computed_keys) {
  double best = -1;
  if (!enable_nestloop) return best;  // (set off, PostgreSQL's plan does not compete)
  auto consider = [&](RelOptInfo* probing, RelOptInfo* indexed) {
    if (!probing->cheapest_total_path || !parameterized_index_path(indexed, probing)) return;
    const Path* scan = probing->cheapest_total_path;
    const double time = scan->total_cost + scan->rows * index_probe_cost +
                        rows_read * (index_probe_row_cost + kCallTime + computed_keys * kKeyTime);
    best = best < 0 ? time : Min(best, time);
  };
  consider(outerrel, innerrel);  // (LEFT, semi- and anti-joins: the outer side probes)
  if (jointype == JOIN_INNER) consider(innerrel, outerrel);
  return best;
}

bool probe_values_in_tlist(const IndexProbe& probe, List* inner_tlist) {
  for (int k = 0; k < probe.n_keys; ++k) {
    List* vars = pull_var_clause(reinterpret_cast<Node*>(probe.keys[k].value),
                                 PVC_RECURSE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS |
                                     PVC_INCLUDE_PLACEHOLDERS);
    ListCell* lc;
    foreach (lc, vars)
      if (!tlist_member(static_cast<Expr*>(lfirst(lc)), inner_tlist)) return false;
  }
  return true;
}

}  // namespace simjoin::pg::cs
