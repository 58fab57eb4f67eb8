// Aggregates over a similarity join computed in the engine: the "SimilarityJoinAggregate" custom
// scan (planner part: pg/scan/aggregate/path.cpp; executor: pg/scan/aggregate/exec.cpp).
//
//   SELECT count(*) FROM a JOIN b ON <distance clause>
//   SELECT a.k, count(*), min(<distance>), max(<distance>) FROM a JOIN b ON ... GROUP BY a.k
//
// (and a left join's count(<NOT NULL column of its inner side>) per group of its outer side)
// where the SimilarityJoin scan took the join with no other join clause. Its child is that
// SimilarityJoin plan, which loads both sides and returns only the pairs with a wild row
// (SimJoinState::engine_by_caller): the engine's pairs are folded per point of the grouped
// (outer) side, never handed to the executor: by compute_neighbour_stats (pg/dispatch/dispatch.h)
// where the engine decides the clause and measures the distance, else from the child's pair
// stream, each candidate decided (point arithmetic, or the clause's operator) and measured
// (the engine's distance, PostgreSQL's point distance, or the argument evaluated) in the
// backend. The per-point results are combined per group value (a hash table: non-unique keys,
// NULL keys forming one group) and one row per group with a partner comes out.
#pragma once

extern "C" {
#include "postgres.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
}

namespace simjoin::pg::cs {

// The aggregates the engine computes (AggregatePlanInfo::kinds, pg/scan/aggregate/plan_info.h:
// one per aggregate in the order of custom_scan_tlist after the group key).
enum EngineAggregate : int {
  AGG_COUNT = 0,         // count(*), count(<NOT NULL column>)
  AGG_MIN_DISTANCE = 1,  // min(<the join's distance>)
  AGG_MAX_DISTANCE = 2,  // max(<the join's distance>)
};

// The upper-path hook over a join relation: the SimilarityJoinAggregate path of the grouped
// relation, where the query's shape and a remembered join allow. `stage`: UPPERREL_GROUP_AGG
// (aggregates, a GROUP BY of one column with or without them), or UPPERREL_DISTINCT (a DISTINCT
// of one column over the join, no aggregates: its groups). Inside cpp_guard.
void add_aggregate_path(PlannerInfo* root, UpperRelationKind stage, RelOptInfo* input_rel,
                        RelOptInfo* grouped_rel);

extern CustomScanMethods aggregate_scan_methods;

}  // namespace simjoin::pg::cs
