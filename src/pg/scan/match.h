// The join clauses the SimilarityJoin custom scan recognizes (pg/scan/match.cpp), for its
// planner part (pg/scan/join_path.cpp): the distance clause with monotone arithmetic on the distance
// and a per-row bound, contrib cube's box clause, and the key order of a self-join; and, for a
// clause that computes a distance between the two sides in a form the scan cannot take, why.
#pragma once

#include "pg/scan/internal.h"

extern "C" {
#include "nodes/pathnodes.h"
}

namespace simjoin::pg::cs {

// A distance clause  f(dist(x, y)) <= c  (or < c, c >= f(...), c > f(...)), or
// ST_DWithin(x, y, c), x from the outer input and y from the inner one (either order in SQL).
struct Match {
  FormInfo form;
  Expr* outer_key;
  Expr* inner_key;
  Expr* eps;         // c: free of this level's Vars, or the radius of one side's row
  Expr* clause;      // the clause itself
  bool strict;       // f(dist) < c (or c > f(dist))
  int radius_side;   // -1: c is the same for every pair; 0: the outer row's, 1: the inner row's
  // f: the monotone operations on the distance (scale_step: d * k, k * d, d / k, d + s, s + d,
  // d - s), outermost first; NIL when the clause compares the distance itself.
  List* scale;
};

// One step of Match::scale: a list of its ScaleOp (an Integer) and its factor (free of Vars).
ScaleOp scale_step_op(List* step);
Expr* scale_step_factor(List* step);

// What a join clause is to the scan: the distance clause it takes (Matched, *m filled in),
// nothing like one (NotDistance), or a distance between the two inputs in a form the scan cannot
// take (Rejected, *reason says why, for the planner's DEBUG1 line).
enum class ClauseMatch { Matched, NotDistance, Rejected };
ClauseMatch match_clause(PlannerInfo* root, RestrictInfo* rinfo, RelOptInfo* outerrel,
                         RelOptInfo* innerrel, Match* m, const char** reason);

// contrib cube's box clause: cube_enlarge(x, r, n) @> y or y <@ cube_enlarge(x, r, n) (the
// operators, or cube_contains / cube_contained called by name), x one key of the distance clause
// and y the other, r and n free of Vars. enlarged_side: 0 when x is the outer key.
struct BoxClause {
  Expr* clause;
  int enlarged_side;
  Expr* r;
  Expr* n;
};
bool match_box_clause(Expr* clause, const Match& m, BoxClause* box);

// The key order clause of a self-join,  a.k < b.k,  a.k > b.k  or  a.k <> b.k  (a btree
// operator of the column's unique index), on a column that a unique, immediate, non-partial
// index of the one table both inputs scan proves unique. Where the executor's outer side is the
// inner side's rows (a shared scan), the engine's pairs of one row with itself are dropped (the
// clause is false on them) and each other pair is taken as an unordered pair whose orientations
// are tried in turn: for < and > the second only when the first fails the join's clauses (at
// most one of them holds). The clause is still checked on every pair. (KeyOrder:
// pg/scan/internal.h.)
KeyOrder match_key_order(PlannerInfo* root, RestrictInfo* rinfo, RelOptInfo* outerrel,
                         RelOptInfo* innerrel);

// A PostGIS ST_DWithin(x, y, d) clause on points decided by the engine (no arithmetic on the
// distance): ST_Distance(x, y), whose value is the engine's distance where PostGIS's own probe
// shows it (exact_postgis_distance); nullptr for other clauses or where the probe fails. For the
// aggregates and DISTINCT ON's nearest row, which fold the engine's distance.
Expr* postgis_distance_of(const Match& match);

}  // namespace simjoin::pg::cs
