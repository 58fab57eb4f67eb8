// The CPU join over a Set of Z-Lists (engine/join/szl_index.h), after the LSS algorithm of Lieberman,
// Sankaranarayanan and Samet: per probe point and curve, two binary searches give the interval
// of the curve between the Z keys of the corners of the point's search box; the walk over the
// shortest of them decides every point in it exactly (within_bound) and reports the matches.
#pragma once

#include "engine/join/szl_index.h"
#include "engine/join_params.h"
#include "engine/pair_sink.h"
#include "engine/parallel/batch_pipeline.h"
#include "engine/types.h"

namespace simjoin {

// Half-width of the search box: two points within eps (distance.h's contract, finite eps >= 0)
// differ by less than this in every dimension (engine/join/grid_plan.cpp's bound E = eps (1 + 3u) + 2e-162,
// rounded up generously).
double szl_box_radius(double eps);

// The positions the join walks for probe point `a` (finite): the length of its shortest curve
// interval (MININTERVAL), with the half box of a self-join for `half`. The algorithm choice
// (engine/choice/algorithm_choice.h) samples it.
std::size_t szl_walk_length(const SzlIndex& index, const double* a, double eps, bool half);

// Self-join of index.points: each unordered pair is tested once, by the point with the smaller
// first coordinate (ties: the smaller id), whose search box starts at its own first coordinate
// (the half box), and reported per params.self_pairs ((i, i) too for All).
PipelineResult szl_self_join(const SzlIndex& index, double eps, const JoinParams& params,
                             PairSink& sink);

// Every point of `probe` against the index of the other input. Pairs are reported as
// (left id, right id): (build id, probe id) when build_is_left, else (probe id, build id).
PipelineResult szl_two_input_join(const SzlIndex& build, const PointSet& probe,
                                  bool build_is_left, double eps, const JoinParams& params,
                                  PairSink& sink);

}  // namespace simjoin
