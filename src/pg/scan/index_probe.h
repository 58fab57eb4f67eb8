// The outer side of a SimilarityJoin read through an index of its table: planned in
// pg/scan/index_probe.cpp, read in pg/scan/load/probe_load.cpp.
#pragma once

#include "pg/scan/plan_info.h"

extern "C" {
#include "commands/explain.h"
}

namespace simjoin::pg::cs {

// simjoin.enable_index_probe; simjoin.index_probe_cost and simjoin.index_probe_row_cost
// (pg/scan/custom_scan.cpp): the planner's cost of one index scan of the outer table and of
// each row it returns (fetched by its TID), beside the row's reading into the engine.
extern bool enable_index_probe;
extern double index_probe_cost;
extern double index_probe_row_cost;

// The keys of an index scan of the outer relation per inner row, from PostgreSQL's own index
// paths of the outer relation parameterized by the inner one; index InvalidOid where there is
// none or the join cannot use one (LEFT and anti-joins keep outer rows without a pair; a base
// relation on both sides; no row-level security or row locks).
IndexProbe find_index_probe(PlannerInfo* root, RelOptInfo* outerrel, RelOptInfo* innerrel,
                            JoinType jointype);
// The cost of reading the outer side by `probes` index scans returning `rows_read` rows in all.
Cost probe_read_cost(double probes, double rows_read);

// Time in the planner's units (about 1.5 us each, as simjoin's costs: 200,000 rows read into the
// engine in 19 ms), measured on the 2-core VM with PostGIS 3.3: a call on a candidate row (a
// PostGIS or operator call, 0.1-0.5 us), computing a geometry key (ST_Buffer of a point: 6.5 us),
// and starting the engine on a join (about 1 ms: choosing the algorithm, its threads). PostGIS
// declares its functions at 10,000 operators a call (25 units) whatever they cost, so that
// PostgreSQL's nested loop below and the custom scan are compared in time, not in those units.
// The engine's start is 7 times simjoin.customscan_startup_cost (100 by default; 0 in the
// fuzzer, which wants the custom scan wherever it can run).
constexpr double kCallTime = 0.3;
constexpr double kKeyTime = 4.5;
constexpr double kEngineStartTimePerCost = 7.0;
// The time of PostgreSQL's nested loop probing an index of one side once per row of the other
// (a parameterized index path; for LEFT, semi- and anti-joins the outer side probes), its
// `rows_read` candidates each checked with the clause, which computes `computed_keys` keys per
// call; -1 where there is no such path (or enable_nestloop is off).
double nested_loop_time(RelOptInfo* outerrel, RelOptInfo* innerrel, JoinType jointype,
                        double rows_read, int computed_keys);
// Whether every column the probe keys' values read is in the inner child's target list.
bool probe_values_in_tlist(const IndexProbe& probe, List* inner_tlist);

// ---- the executor (pg/scan/load/probe_load.cpp) -------------------------------------------
struct SimJoinState;
struct Side;
// Prepares the probe keys' values (st->probe) from the plan: computed on the inner child's rows.
void begin_index_probe(SimJoinState* st, const IndexProbe& probe);
// Forgets the inner rows' key values (the inner side is read again).
void reset_probe_values(SimJoinState* st);
// Keeps the probe keys' values of an inner row with a key, read from its child's slot.
void note_probe_values(SimJoinState* st, TupleTableSlot* inner_slot);
// Reads the outer side through the index: each row the probes return, once, in TID order,
// filtered and projected as its SeqScan child would, then loaded as load_side loads a row.
// Returns false (nothing read) where the probes would not pay at run time (more inner rows
// than planned): the caller reads the side whole.
bool probe_load_side(SimJoinState* st, Side* side, PlanState* child, ExprState* key,
                     bool force_wild);
// EXPLAIN: the index, and with ANALYZE the probes and the rows they returned.
void explain_index_probe(const SimJoinState* st, ExplainState* es);

}  // namespace simjoin::pg::cs
