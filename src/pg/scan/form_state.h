// The SimilarityJoin custom scan's executor state for the forms beyond  dist(x, y) <= c  (their
// planner side: pg/scan/match.h) and for the rows its errors name:
//   pg/scan/form_state.cpp  arithmetic on the distance, a per-row radius, the engine's bound
//   pg/scan/pairs.cpp       a self-join's key order (unordered pairs, tried both ways)
//   pg/scan/errors.cpp      the table and unique key of the rows in an error
#pragma once

#include "pg/scan/state.h"

#include <cmath>

namespace simjoin::pg::cs {

// One monotone operation on the distance (Match::scale), its factor evaluated once per scan.
struct ScaleStepState {
  ScaleOp op;
  ExprState* factor;
  bool factor_is_float4;
  double value;  // this scan's
};

// A column of a side's child tuple that errors show.
struct NamedColumn {
  char* name;  // nullptr: none
  int position;
  FmgrInfo output;
};

// How errors name the rows of one side (JoinPlanInfo::rows).
struct RowNaming {
  char* table;      // nullptr: the side is no scan of a table
  NamedColumn id;   // a unique column of the table in the child's tuple
  NamedColumn key;  // else the key, where it is a column of the table
};

struct FormState {
  // A per-row bound  dist(x, y) <= b.radius: the engine joins with the largest finite radius of
  // that side (rows with a NULL radius never match; an infinite or NaN one, or a negative one
  // for ST_DWithin, makes its row wild: paired with every row and rechecked).
  int radius_side;  // -1: eps is one value per scan; 0 / 1: the outer / inner row's
  ExprState* radius;
  bool radius_is_float4;
  double max_radius;  // of the rows read (-Infinity: none)

  // PostGIS keys with an extent (Side::boxes): the engine joins the boxes' centres within the
  // bound plus both sides' largest radius; each candidate's boxes must then be within
  // box_bound (squared: box_bound_sq) before the clauses decide it (boxes_near).
  bool box_filter;
  double box_bound;
  double box_bound_sq;

  // Arithmetic on the distance, outermost first: the engine's bound is eps (or the largest
  // radius) through inverse_bound (engine/bounds/clause_bound.h) at each step; every pair is rechecked.
  int n_scale;
  ScaleStepState* scale;

  // A self-join's key order clause (pg/scan/match.h: KeyOrder) with a shared outer side: the
  // engine's pair (p, q) is taken as the unordered pair {p, q} when p < q (dropped when p >= q:
  // its mirror is reported too, and p = q is a row with itself), tried as (p, q), then as (q, p)
  // (for KEY_ORDER_ONE_WAY only when (p, q) failed).
  int key_order;
  bool mirror_pending;  // (mirror_outer, mirror_inner) is the next candidate
  bool mirror_needed;   // the pair last returned by next_candidate has a mirror to try
  uint32 mirror_outer;
  uint32 mirror_inner;

  // An outer, semi- or anti-join (JoinPlanInfo::jointype): which outer rows have a match; after the
  // pairs, LEFT emits the outer rows without one null-extended, ANTI only those. SEMI and ANTI
  // skip the candidates of an outer row that has its match.
  int join_type;
  ExprState* other_qual;  // an outer or anti-join's clauses pushed down from WHERE (or nullptr)
  uint8* matched;         // per outer row
  uint32 matched_cap;
  uint32 next_unmatched;  // the next outer row the unmatched phase looks at

  // Errors: the rows of each side, and those of the pair being checked (pg/scan/errors.cpp).
  RowNaming naming[2];
  TupleTableSlot* error_rows[2];  // the rows an error names now (nullptr: none)
  ErrorContextCallback error_context;

  // A rechecked form with a certain bound (has_certain_bound; JoinPlanInfo::distance_qual <= -2): the
  // distance clause's position in the qual (-1: none), the other clauses (checked on the
  // engine's pairs within the bound instead of engine_qual; nullptr: none), this scan's bound on
  // the engine's distance (negative: nothing certain), and the engine's pairs decided by it (for
  // EXPLAIN).
  int certain_position;
  ExprState* certain_qual;
  double certain_bound;
  uint64 decided_by_engine;
  // Point keys: the clauses  k2 <@ circle(k1, r)  and  circle(k1, r) @> k2  on the join's keys,
  // left out of certain_qual: their radii, which must equal eps in a scan for the bound to apply.
  int n_circles;
  ExprState** circle_radius;
};

// ---- pg/scan/certain.cpp -----------------------------------------------------------------
// At BeginCustomScan: certain_qual (the join's clauses but the distance clause and the circle
// clauses it decides too).
void begin_certain_qual(SimJoinState* st);
// Once eps is known: this scan's certain bound (negative: nothing certain).
double scan_certain_bound(SimJoinState* st, double eps);

// Whether the engine's pair at `pos` of the current batch satisfies the distance clause for sure.
inline bool certain_pair(const SimJoinState* st, size_t pos) {
  return st->batch.distance != nullptr && st->batch.distance[pos] <= st->form_state->certain_bound;
}

// ---- pg/scan/form_state.cpp --------------------------------------------------------------
// From the plan (create_state) and at BeginCustomScan (expressions).
FormState* create_form_state(const JoinPlanInfo& plan);
void begin_form_state(SimJoinState* st);
// A scan's eps and factors; false when nothing can match (one of them NULL). Sets st->eps and
// st->all_wild (eps NaN, ST_DWithin's eps < 0, a factor the inverse cannot take).
bool evaluate_scan_eps(SimJoinState* st);
// The engine's bound once both sides are read (a per-row radius known).
double scan_bound(SimJoinState* st);
// A row of `side` read with key status `status` (KEY_OK, KEY_WILD, KEY_SKIP): its status under
// a per-row radius (read here for the radius's side), or -1 when it never matches (a NULL
// radius).
int radius_row_status(SimJoinState* st, const Side* side, TupleTableSlot* slot, int status);
// Whether rows of `side` carry the radius (its largest value is reset when the side is read).
bool reads_radius(const SimJoinState* st, const Side* side);
// Whether the join emits the outer rows without a match (LEFT, ANTI): the outer side keeps
// every row, a row without a key too.
bool emits_unmatched(const SimJoinState* st);
// The outer side read: no outer row has a match yet.
void reset_matches(SimJoinState* st);
// SEMI, ANTI: whether the outer row has its match already (its other candidates are skipped).
inline bool has_match(const SimJoinState* st, uint32 outer_row) {
  const FormState* fs = st->form_state;
  return (fs->join_type == JOIN_SEMI || fs->join_type == JOIN_ANTI) && fs->matched[outer_row];
}
// A pair that passed the join's clauses (in the scan tuple): records the outer row's match and
// tells whether the pair is a row of the join (ANTI: never; LEFT: if it passes the clauses
// pushed down from WHERE).
bool emits_match(SimJoinState* st, uint32 outer_row, ExprContext* econtext);

// A key with an extent read into `point` of `side` (its arrays grown when `grown`): keeps its box
// (the boxes of the side's earlier points are the points) and the side's largest radius.
void note_key_extent(SimJoinState* st, Side* side, uint32 point, const KeyExtent& extent,
                     bool grown);
// Whether an engine pair's boxes are within the scan's box_bound: the distance of two boxes is
// at most that of the geometries in them.
inline bool boxes_near(const SimJoinState* st, uint32 outer_point, uint32 inner_point) {
  const double* a = st->outer.boxes ? st->outer.boxes + 4 * static_cast<Size>(outer_point)
                                    : st->outer.points + 2 * static_cast<Size>(outer_point);
  const double* b = st->inner.boxes ? st->inner.boxes + 4 * static_cast<Size>(inner_point)
                                    : st->inner.points + 2 * static_cast<Size>(inner_point);
  return box_gap_sq(a, st->outer.boxes ? 2 : 0, b, st->inner.boxes ? 2 : 0) <=
         st->form_state->box_bound_sq;
}

// ---- pg/scan/errors.cpp ------------------------------------------------------------------
void begin_row_naming(SimJoinState* st, CustomScan* cscan);
// Names `outer_row` / `inner_row` (slots holding a side's row, or nullptr) in the CONTEXT of
// errors raised until pop_error_rows.
void push_error_rows(SimJoinState* st, TupleTableSlot* outer_row, TupleTableSlot* inner_row);
void pop_error_rows(SimJoinState* st);
// ExecQual on a pair with a wild row (held in the sides' slots): simjoin's error for vectors of
// different dimensions is raised again naming the table and the row's key.
bool check_wild_pair(SimJoinState* st, ExprState* qual, ExprContext* econtext);

}  // namespace simjoin::pg::cs
