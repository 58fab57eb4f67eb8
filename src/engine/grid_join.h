// The multithreaded CPU eps-grid join (seeds 002 and 004) over CellIndex structures.
#pragma once

#include "batch_pipeline.h"
#include "cell_index.h"
#include "grid_plan.h"
#include "join_params.h"
#include "pair_sink.h"
#include "types.h"

namespace simjoin {

// The grid a join runs on: the plan and its cell key layout.
struct Grid {
  const GridPlan& plan;
  const CellKeys& keys;
};

// Self-join: each pair of cells is evaluated once (the neighbour cells with a larger key, plus the
// later points of the own cell), then reported per params.self_pairs.
PipelineResult grid_self_join(const CellIndex& index, const Grid& grid, const JoinParams& params,
                              PairSink& sink);

// Two inputs: every probe cell looks up its 3^k neighbour cells in `build`. Pairs are reported as
// (left id, right id): (build id, probe id) when build_is_left, else (probe id, build id).
PipelineResult grid_two_input_join(const CellIndex& build, const CellIndex& probe,
                                   bool build_is_left, const Grid& grid, const JoinParams& params,
                                   PairSink& sink);

}  // namespace simjoin
