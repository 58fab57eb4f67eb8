// A region plan (engine/partition/region_partition.h) as SQL sees it, a jsonb value: written by
// simjoin_region_plan(), read by simjoin_point_regions() and simjoin_shard_table(). Plain data
// in palloc'd memory, so that PostgreSQL errors may leave it at any point.
#pragma once

extern "C" {
#include "postgres.h"
#include "utils/jsonb.h"
}

#include "engine/partition/region_partition.h"

namespace simjoin::pg {

struct RegionPlanData {
  Metric metric;
  double eps;            // +inf where the plan has no bound (jsonb: null)
  RegionSplit split;
  int axes;              // split dimensions
  int* dims;             // axes of them, 0-based (jsonb: "dimensions", 1-based as SQL arrays)
  int regions;
  double* lower;         // regions * axes; -inf where unbounded (jsonb: null)
  double* upper;         // regions * axes; +inf where unbounded (jsonb: null)
  double rows;           // the table's rows the plan was made for, and how many were sampled
  double sampled_rows;
};

// {"format": 1, "metric": ..., "eps": ..., "split": "work" | "points", "dimensions": [...],
//  "regions": [{"lower": [...], "upper": [...]}, ...], "rows": ..., "sampled_rows": ...}
Datum region_plan_jsonb(const RegionPlanData& plan);

// ERROR naming what is wrong when `plan` is not such a value.
void read_region_plan(Jsonb* plan, RegionPlanData* out);

// The engine's partition of a plan.
RegionPartition region_partition(const RegionPlanData& plan);

}  // namespace simjoin::pg
