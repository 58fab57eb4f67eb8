// Where PostgreSQL enters the SimilarityJoin custom scans, installed once from _PG_init: their
// settings, their executor methods and the planner's hooks, one a stage, each chained to the hook
// it replaced. A hook decides whether the scans have anything to do at its stage; the work is in
// the files it calls:
//   set_rel_pathlist_hook    a base relation's distance clauses sized from samples (estimate.cpp),
//                            then the SimJoin Nearest Scan path of a k-nearest-neighbour LATERAL
//                            subquery's relation (nearest_scan/path.cpp)
//   set_join_pathlist_hook   the SimilarityJoin path of a join (join_path.cpp)
//   create_upper_paths_hook  over a join: the nearest row under DISTINCT ON (nearest_path.cpp),
//                            then aggregates computed in the engine (aggregate/path.cpp)
#include "pg/scan/custom_scan.h"

#include "pg/pg_guard.h"
#include "pg/scan/aggregate/aggregate.h"
#include "pg/scan/index_probe.h"
#include "pg/scan/internal.h"
#include "pg/scan/nearest_scan/nearest_scan.h"

extern "C" {
#include "nodes/extensible.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/syscache.h"
}

namespace simjoin::pg::cs {

bool enable_customscan = true;
bool enable_aggregates = true;
bool enable_nearest_scan = true;
double startup_cost_setting = 100.0;
double row_cost_setting = 0.02;
double pair_cost_setting = 0.005;
int sample_rows_setting = 2000;

namespace {

set_rel_pathlist_hook_type prev_rel_pathlist_hook = nullptr;
set_join_pathlist_hook_type prev_join_pathlist_hook = nullptr;
create_upper_paths_hook_type prev_upper_paths_hook = nullptr;

void rel_pathlist_hook(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte) {
  if (prev_rel_pathlist_hook) prev_rel_pathlist_hook(root, rel, rti, rte);
  if (!enable_customscan || rel->reloptkind != RELOPT_BASEREL) return;
  if (rel->joininfo != NIL) cpp_guard([&] { size_join_clauses(root, rel, rti); });
  if (enable_nearest_scan && root->parent_root != nullptr)
    cpp_guard([&] { add_nearest_scan_path(root, rel, rti, rte); });
}

void join_pathlist_hook(PlannerInfo* root, RelOptInfo* joinrel, RelOptInfo* outerrel,
                        RelOptInfo* innerrel, JoinType jointype, JoinPathExtraData* extra) {
  if (prev_join_pathlist_hook)
    prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
  if (!enable_customscan) return;
  cpp_guard([&] { add_join_paths(root, joinrel, outerrel, innerrel, jointype, extra); });
}

// Both upper paths build on a SimilarityJoin path of the join relation below. (input_rel is NULL
// at some stages: UPPERREL_SETOP.)
void upper_paths_hook(PlannerInfo* root, UpperRelationKind stage, RelOptInfo* input_rel,
                      RelOptInfo* output_rel, void* extra) {
  if (prev_upper_paths_hook) prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
  if ((stage != UPPERREL_GROUP_AGG && stage != UPPERREL_DISTINCT) || !enable_customscan ||
      !enable_aggregates || input_rel->reloptkind != RELOPT_JOINREL)
    return;
  if (stage == UPPERREL_DISTINCT) cpp_guard([&] { add_nearest_paths(root, input_rel, output_rel); });
  cpp_guard([&] { add_aggregate_path(root, stage, input_rel, output_rel); });
}

}  // namespace

}  // namespace simjoin::pg::cs

namespace simjoin::pg {

void custom_scan_init() {
  using namespace cs;
  DefineCustomBoolVariable("simjoin.enable_customscan",
                           "Lets the planner use the SimilarityJoin custom scan for joins on a "
                           "distance within a bound.",
                           nullptr, &enable_customscan, true, PGC_USERSET, 0, nullptr, nullptr,
                           nullptr);
  DefineCustomBoolVariable("simjoin.enable_aggregates",
                           "Lets the planner compute aggregates over a similarity join (counts, "
                           "minimum and maximum distances, the nearest row) in the engine.",
                           nullptr, &enable_aggregates, true, PGC_USERSET, 0, nullptr, nullptr,
                           nullptr);
  DefineCustomBoolVariable("simjoin.enable_nearest_scan",
                           "Lets the planner use the SimJoin Nearest Scan for a k-nearest-neighbour "
                           "LATERAL subquery (ORDER BY a distance to the outer row LIMIT k).",
                           nullptr, &enable_nearest_scan, true, PGC_USERSET, 0, nullptr, nullptr,
                           nullptr);
  DefineCustomBoolVariable("simjoin.enable_index_probe",
                           "Lets the SimilarityJoin read its outer side through an index of the "
                           "outer table, one index scan per inner row, where that is cheaper than "
                           "reading the table whole.",
                           nullptr, &enable_index_probe, true, PGC_USERSET, 0, nullptr, nullptr,
                           nullptr);
  DefineCustomRealVariable("simjoin.index_probe_cost",
                           "Planner's cost of one index scan of the outer table per inner row "
                           "(simjoin.enable_index_probe).",
                           nullptr, &index_probe_cost, 1.0, 0.0, 1e10, PGC_USERSET, 0, nullptr,
                           nullptr, nullptr);
  DefineCustomRealVariable("simjoin.index_probe_row_cost",
                           "Planner's cost of fetching one outer row an index scan returns "
                           "(simjoin.enable_index_probe), beside reading its vector.",
                           nullptr, &index_probe_row_cost, 0.1, 0.0, 1e10, PGC_USERSET, 0,
                           nullptr, nullptr, nullptr);
  DefineCustomRealVariable("simjoin.customscan_startup_cost",
                           "Planner's fixed cost of starting a SimilarityJoin custom scan.",
                           nullptr, &startup_cost_setting, 100.0, 0.0, 1e10, PGC_USERSET, 0,
                           nullptr, nullptr, nullptr);
  DefineCustomRealVariable("simjoin.customscan_row_cost",
                           "Planner's cost of reading one input row's vector into the engine.",
                           nullptr, &row_cost_setting, 0.02, 0.0, 1e10, PGC_USERSET, 0, nullptr,
                           nullptr, nullptr);
  DefineCustomRealVariable("simjoin.customscan_pair_cost",
                           "Planner's cost of one candidate pair found by the engine (before the "
                           "recheck of the join clauses).",
                           nullptr, &pair_cost_setting, 0.005, 0.0, 1e10, PGC_USERSET, 0,
                           nullptr, nullptr, nullptr);
  DefineCustomIntVariable("simjoin.customscan_sample_rows",
                          "Rows sampled from each input to estimate a similarity join's size "
                          "(0: no sampling).",
                          nullptr, &sample_rows_setting, 2000, 0, 100000, PGC_USERSET, 0,
                          nullptr, nullptr, nullptr);
  RegisterCustomScanMethods(&scan_methods);
  RegisterCustomScanMethods(&aggregate_scan_methods);
  RegisterCustomScanMethods(&nearest_scan_methods);
  // The distance forms found in the catalogs are looked up again after a change to them.
  CacheRegisterSyscacheCallback(PROCOID, invalidate_forms, 0);
  CacheRegisterSyscacheCallback(OPEROID, invalidate_forms, 0);
  CacheRegisterSyscacheCallback(TYPEOID, invalidate_forms, 0);
  prev_rel_pathlist_hook = set_rel_pathlist_hook;
  set_rel_pathlist_hook = rel_pathlist_hook;
  prev_join_pathlist_hook = set_join_pathlist_hook;
  set_join_pathlist_hook = join_pathlist_hook;
  prev_upper_paths_hook = create_upper_paths_hook;
  create_upper_paths_hook = upper_paths_hook;
}

}  // namespace simjoin::pg
