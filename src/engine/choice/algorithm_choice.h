// Algorithm::Auto's choice among the grid, the Set-of-Z-Lists join (SZL) and brute force: each
// one's work measured on samples of the inputs (the grid's by engine/choice/work_estimate.h, the SZL's by an
// SZL index on a sample of the build side probed with a sample of the other input), priced with
// constants per device. engine.cpp's Auto branch runs the choice; engine/choice/device_choice.cpp prices the
// algorithm each device would pick.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "engine/choice/work_estimate.h"
#include "engine/types.h"

namespace simjoin {

// Up to this many point pairs (n_left * n_right) Auto runs brute force without sampling: the
// other algorithms' setup costs more.
constexpr double kBruteForceMaxPairs = 16384.0;

// The SZL join's work, measured on samples and scaled to the full inputs.
struct SzlWork {
  double build_points = 0.0;  // the indexed input (the smaller; the only one of a self-join)
  double probe_points = 0.0;
  std::size_t dim = 0;
  double curves = 0.0;
  double walked = 0.0;  // positions of the shortest intervals walked: the candidates
};

// The SZL's work for joining left with right (nullptr: self-join) within eps (finite, >= 0):
// the shortest interval of each sampled probe point in an index of a sample of the build side,
// times the build side's sampling ratio, summed over the probe side.
SzlWork estimate_szl_work(const PointSet& left, const PointSet* right, double eps);

// Per-device prices, in ns (per thread where the join's threads share the work).
struct AlgorithmSpeeds {
  // Grid: per input point and per point and dimension (planning, the index: not shared), per
  // candidate, per dimension term a candidate reads.
  double grid_point_ns, grid_point_dim_ns, grid_candidate_ns, grid_term_ns;
  // SZL: the index per curve, build point and dimension (its Z key) and per curve, build point
  // and log2(build points) (the sort); per probe point, curve and log2(build points) (the binary
  // searches); per walked position and per dimension term its distance check reads.
  double szl_key_ns, szl_sort_ns, szl_search_ns, szl_walk_ns, szl_walk_term_ns;
  // Brute force: per pair and per pair and dimension; where it filters in FP32
  // (engine/join/float_brute_force.h) or FP16 (the GPU's tensor cores), per pair and per pair and
  // dimension of the filter, and per result pair (its exact decision and output), up to
  // filtered_narrow_dim dimensions; above them per pair and per pair and dimension (wide).
  double brute_pair_ns, brute_term_ns, filtered_pair_ns, filtered_term_ns, filtered_match_ns;
  std::size_t filtered_narrow_dim;
  double filtered_wide_pair_ns, filtered_wide_term_ns;
};

// Measured on the CPU engine (docs/ARCHITECTURE.md, "Choosing the algorithm").
const AlgorithmSpeeds& cpu_algorithm_speeds();
// The GPU's, fitted on an H100.
const AlgorithmSpeeds& gpu_algorithm_speeds();

struct AlgorithmChoice {
  Algorithm algorithm = Algorithm::BruteForce;
  std::vector<AlgorithmEstimate> estimates;  // what was priced, the chosen one first
  std::optional<JoinWork> grid_work;         // the grid's sampled work, when measured
};

// The cheapest of the priced algorithms: grid (nullptr or indexed_dims == 0: not available),
// szl (nullptr: not available) and brute force over brute_pairs pairs of `dim` dimensions under
// `metric` (Euclidean from 16 dimensions: the FP32 filter's prices).
AlgorithmChoice cheapest_algorithm(const JoinWork* grid, const SzlWork* szl, double brute_pairs,
                                   std::size_t dim, Metric metric, int threads,
                                   const AlgorithmSpeeds& speeds);

// Auto's choice for run_join(left, right, spec) on a device with these speeds and `threads`
// threads; szl_supported: the device runs the SZL. Brute force without sampling for eps not
// finite, at most kBruteForceMaxPairs pairs or no dimension. The SZL's walk is sampled (and the
// SZL priced) only where its index and binary searches alone cost less than the grid.
AlgorithmChoice choose_algorithm(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                                 int threads, bool szl_supported, const AlgorithmSpeeds& speeds);

// "grid", "szl", "brute-force" ("auto" for Auto).
const char* algorithm_name(Algorithm algorithm);

}  // namespace simjoin
