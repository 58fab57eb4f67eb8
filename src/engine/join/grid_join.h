// The multithreaded CPU eps-grid join (Gowanlock and Karsin, IPDPSW 2018 and DaMoN 2019) over CellIndex structures.
#pragma once

#include <cstdint>
#include <functional>

#include "engine/join/cell_index.h"
#include "engine/join/grid_plan.h"
#include "engine/join_params.h"
#include "engine/pair_sink.h"
#include "engine/parallel/batch_pipeline.h"
#include "engine/types.h"

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

// Per probe point, the number of build points within params.bound, found without pairs and
// written to counts[probe.ids[p]]: no batch, no fold on the calling thread. Two inputs: every
// probe cell looks up its 3^k neighbour cells and each point's count is written by the one thread
// that tests it. A self-join (probe and build the same index): each pair is tested once, as
// grid_self_join tests it, and counted for both points atomically, every point counting itself;
// counts must then be 0 on entry. Units of probe positions go to params.threads worker threads
// while the calling thread polls keep_going() (run_polled_units): false stops (CountRun::stopped).
struct CountRun {
  std::uint64_t candidates = 0;
  std::uint64_t pairs = 0;  // the counts' sum
  bool stopped = false;
};
// `progress` (optional): the candidates of the finished units, whenever keep_going is polled.
CountRun grid_neighbour_counts(const CellIndex& probe, const CellIndex& build, const Grid& grid,
                               const JoinParams& params, std::uint64_t* counts,
                               const std::function<bool()>& keep_going,
                               const std::function<void(std::uint64_t)>& progress = {});

}  // namespace simjoin
