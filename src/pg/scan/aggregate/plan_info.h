// The SimilarityJoinAggregate scan's private data as structs (pg/scan/aggregate/aggregate.h):
// the path's, made by the upper-path hook (pg/scan/aggregate/path.cpp), and the plan's, read by
// the executor (pg/scan/aggregate/exec.cpp). Only pg/scan/aggregate/plan_info.cpp knows their
// layout in the node lists.
#pragma once

extern "C" {
#include "postgres.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"
}

namespace simjoin::pg::cs {

// How the aggregate decides the engine's pairs and takes their distance.
enum PairDecision : int {
  PAIRS_EXACT = 0,     // the engine decides: its pairs are the join's, its distance the clause's
  PAIRS_PLANAR = 1,    // point <-> point: the engine's candidates decided and measured by
                       // planar_point_distance (PostgreSQL's arithmetic, probed)
  PAIRS_RECHECKED = 2  // the engine's candidates checked with the join's clause where the
                       // engine does not decide it (PostgreSQL's operator; the certain band
                       // without it), the distance evaluated by PostgreSQL on each pair
};

// The plan (CustomScan::custom_private, Integers).
struct AggregatePlanInfo {
  bool grouped;         // GROUP BY a column of the outer side (custom_scan_tlist's first)
  Oid eq_operator;      // the group key's equality operator
  Oid collation;        // the group key's collation
  int distance_column;  // the distance's position in the child's target list (-1: none)
  bool key_unique;      // a unique index proves the group key unique (NULLs aside)
  int counted_column;   // a left join's counted column in the child's target list (-1: none,
                        // each child row counts 1)
  int pair_decision;    // PairDecision
  int n_aggs;           // the aggregates, in the order of custom_scan_tlist after the group key
  int* kinds;           // EngineAggregate of each
};
List* form_aggregate_plan_private(const AggregatePlanInfo& info);
// palloc'd arrays in the current memory context.
AggregatePlanInfo deform_aggregate_plan_private(const CustomScan* cscan);

// The path (CustomPath::custom_private): the scan tuple's expressions and the plan's data.
struct AggregatePathInfo {
  List* key_and_aggs;  // the group key (if any), then the Aggrefs
  AggregatePlanInfo plan;
};
List* form_aggregate_path_private(const AggregatePathInfo& info);
AggregatePathInfo deform_aggregate_path_private(const CustomPath* path);

}  // namespace simjoin::pg::cs
