// The SimJoin Nearest Scan: a base-relation custom scan that returns the rows of a table nearest
// first to a key of the outer query, for the k-nearest-neighbour LATERAL subquery
//   ... CROSS JOIN LATERAL (SELECT ... FROM b [WHERE ...] ORDER BY q.v <-> b.v LIMIT k) n
// Its planner part (path.cpp) recognizes the subquery's single ORDER BY on a distance between a
// PARAM_EXEC (the outer key) and a key of b; its executor (exec.cpp) caches b's rows once per
// query execution (TIDs and key coordinates) and on each rescan emits them nearest first.
#pragma once

#include "pg/scan/internal.h"

namespace simjoin::pg::cs {

// simjoin.enable_nearest_scan (pg/scan/custom_scan.cpp).
extern bool enable_nearest_scan;

// From the relation hook, inside cpp_guard: adds the Nearest Scan path of base relation rti
// where the query's shape allows (see path.cpp).
void add_nearest_scan_path(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte);

// The plan node's methods (registered from custom_scan_init).
extern CustomScanMethods nearest_scan_methods;

// The plan's custom_exprs, by position, and its custom_private.
enum NearestExpr {
  NEAREST_DISTANCE = 0,      // the ORDER BY expression, dist(outer, inner) in either order
  NEAREST_OUTER_KEY = 1,     // the argument holding the outer key (Params, no Vars)
  NEAREST_INNER_KEY = 2,     // the argument of b's key
  NEAREST_CACHE_FILTER = 3,  // b's quals free of PARAM_EXEC, checked once while caching
};
// custom_private: two Integers, the rows the LIMIT is expected to take (the first chunk's size
// derives from it), and whether the rows are measured (1: the engine's distance only bounds the
// operator's value, exec.cpp) or ordered by the engine's distance itself (0).

}  // namespace simjoin::pg::cs
