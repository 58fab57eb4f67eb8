// The SimilarityJoin custom scan's private data as structs: the path's (made by the join path
// hook, pg/scan/join_path.cpp; read by the plan and by the paths derived from it) and the plan's
// (made by pg/scan/plan.cpp; read by the executor). Only pg/scan/plan_info.cpp knows how they
// are laid out in the node lists PostgreSQL keeps, copies and serializes.
#pragma once

#include "pg/scan/match.h"

namespace simjoin::pg::cs {

// The outer side read through an index of its table (pg/scan/index_probe.cpp): one index scan
// per inner row, its keys' values computed from that row, instead of a full read. The keys are
// conditions PostgreSQL derived from the join's clauses for a nested loop's inner index scan:
// every outer row of a pair satisfies them.
struct ProbeKey {
  int attno;     // the index column
  int strategy;  // the operator's strategy in the column's operator family
  Oid subtype;   // the operator's right-hand type
  Oid function;  // the operator's function
  Oid collation;
  Expr* value;   // over the inner row's columns
};
struct IndexProbe {
  Oid index;  // InvalidOid: no probe, the outer side is read whole
  int n_keys;
  ProbeKey* keys;
};

// ---- the path (CustomPath::custom_private) ---------------------------------------------------
struct JoinPathInfo {
  List* restrictlist;       // the join's clauses (RestrictInfos)
  Match match;              // the distance clause taken
  bool exact;               // the engine decides the distance clause (engine_is_exact)
  int n_boxes;              // cube's box clauses decided natively (an exact plan only)
  BoxClause* boxes;
  KeyOrder key_order;       // a self-join's key order clause (applies to a shared scan)
  JoinType jointype;        // JOIN_INNER, JOIN_LEFT, JOIN_SEMI or JOIN_ANTI
  OutputMode output_mode;   // grouped by outer row (pg/scan/ordered.cpp, nearest_path.cpp)
  IndexProbe probe;         // the outer side read through an index (an unordered inner or semi-join)
  // OUTPUT_NEAREST of a form the engine does not measure: the ORDER BY's distance, evaluated by
  // PostgreSQL on each candidate (pg/scan/nearest.cpp); nullptr otherwise.
  Expr* nearest_distance;
};
List* form_path_private(const JoinPathInfo& info);
JoinPathInfo deform_path_private(const CustomPath* path);
// The cost of checking the join's clauses on one candidate pair of the path (those the engine
// does not decide; the certain bound's share; pg/scan/join_path.cpp).
QualCost checked_clauses_cost(PlannerInfo* root, const JoinPathInfo& info);

// ---- the plan (CustomScan::custom_private: numbers; custom_exprs: expressions) -------------
// A cube box clause decided natively: its position in the qual, the enlarged key's side (0: the
// outer key is x of cube_enlarge(x, r, n)), r and n.
struct PlanBox {
  int position;
  int enlarged_side;
  Expr* r;
  Expr* n;
};
// One monotone operation on the distance (Match::scale), outermost first.
struct PlanScaleStep {
  ScaleOp op;
  Expr* factor;
};
// The rows of a side named in errors (pg/scan/errors.cpp): the table a scan child reads
// (InvalidOid: another plan), the unique column naming its rows and its position in the child's
// tuple (0 and -1: none).
struct RowIdentity {
  Oid table;
  int id_attno;
  int id_position;
};

struct JoinPlanInfo {
  FormInfo form;
  int outer_columns;       // the scan tuple's first columns, the outer child's
  int distance_qual;       // position of the distance clause in `quals` where the engine is exact;
                           // -2 - position: a certain bound decides part of the engine's pairs;
                           // -1: every clause is checked
  bool strict;             // the distance clause is dist < eps
  bool same_scan;          // both children scan the same rows (a self-join, pg/scan/plan.cpp)
  bool inner_rereadable;   // the inner child returns the same rows when read again
  int radius_side;         // -1: eps is one value per scan; 0 / 1: the outer / inner row's radius
  KeyOrder key_order;      // a self-join's key order clause
  JoinType jointype;       // JOIN_INNER, JOIN_LEFT (the outer rows kept), JOIN_SEMI or JOIN_ANTI
  OutputMode output_mode;  // grouped by outer row in the outer input's order
  bool parallel_ok;        // the planner allows parallel workers (glob->parallelModeOK)
  RowIdentity rows[2];     // outer, inner
  Expr* outer_key;
  Expr* inner_key;
  Expr* eps;
  List* quals;             // the join's clauses, which decide the pairs, in cost order
  List* other_quals;       // an outer or anti-join's clauses pushed down from WHERE: filter rows
  int n_boxes;
  PlanBox* boxes;
  int n_scale;
  PlanScaleStep* scale;
  IndexProbe probe;  // the outer side read through an index (index.index valid)
  Expr* nearest_distance;  // JoinPathInfo::nearest_distance, over the scan tuple
};
// Sets cscan's custom_private and custom_exprs (the expressions, which setrefs fixes up).
void form_plan_private(const JoinPlanInfo& info, CustomScan* cscan);
// The plan's data, palloc'd in the current memory context (its expressions are the plan's).
JoinPlanInfo* deform_plan_private(const CustomScan* cscan);

}  // namespace simjoin::pg::cs
