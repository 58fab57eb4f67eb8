// Algorithm::Auto's choice among the grid, the Set-of-Z-Lists join (SZL) and brute force: each
// one's work measured on samples of the inputs (the grid's by engine/choice/work_estimate.h, the SZL's by an
// SZL index on a sample of the build side probed with a sample of the other input), priced with
// constants per device. engine.cpp's Auto branch runs the choice; engine/choice/device_choice.cpp prices the
// algorithm each device would pick.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <vector>

#include "engine/choice/work_estimate.h"
#include "engine/types.h"

namespace simjoin {

// Up to this many point pairs (n_left * n_right) Auto runs brute force without sampling: the
// other algorithms' setup costs more.
constexpr double kBruteForceMaxPairs = 16384.0;

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
  // Whether its brute force runs on tensor cores where tensor_tiles_apply (the GPU: Euclidean
  // and cosine from 16 dimensions, priced with the filtered constants), skipping tile pairs: it
  // tests the pairs of BruteWork::tile_fraction only. Else the FP32 filter's dimensions apply
  // (float_filter_applies: the CPU's, Euclidean only).
  bool tensor_cores;
};

// Brute force's work: the pairs it would test (brute_force_pairs), the share of them its tile
// mask keeps where the device prunes tiles, and the result pairs it decides (a self-join's
// unordered pairs, identities left out).
struct BruteWork {
  double pairs = 0.0;
  double tile_fraction = 1.0;
  double matches = 0.0;
};

// Brute force's work for a join of left with right (nullptr: self-join) with these samples.
BruteWork brute_work(const PointSet& left, const PointSet* right, const SampledWork& sampled);

// The pairs brute force evaluates: n_left * n_right, each unordered pair once in a self-join.
double brute_force_pairs(const PointSet& left, const PointSet* right);

// Measured on the CPU engine of the GPU machine, 16 threads (docs/benchmarks/calibration.md).
const AlgorithmSpeeds& cpu_algorithm_speeds();
// The GPU's kernels, fitted on an H100 and an H200 (docs/benchmarks/calibration.md).
const AlgorithmSpeeds& gpu_algorithm_speeds();

struct AlgorithmChoice {
  Algorithm algorithm = Algorithm::BruteForce;
  std::vector<AlgorithmEstimate> estimates;  // what was priced, the chosen one first
  std::optional<JoinWork> grid_work;         // the grid's sampled work, when measured
};

// The cheapest of the priced algorithms: grid (nullptr or indexed_dims == 0: not available),
// szl (nullptr: not available) and brute force's work of `dim` dimensions under `metric`
// (the filtered prices where the device filters: AlgorithmSpeeds::tensor_cores).
AlgorithmChoice cheapest_algorithm(const JoinWork* grid, const SzlWork* szl,
                                   const BruteWork& brute, std::size_t dim, Metric metric,
                                   int threads, const AlgorithmSpeeds& speeds);

// Above this many dimensions the SZL is not priced: its sampled walk was measured many times
// short there (Fashion-MNIST, 784-D: priced 5.6 s, ran 49 s), and it was never the fastest.
constexpr std::size_t kSzlMaxPricedDim = 32;

// Whether the SZL may be the cheapest algorithm on a device with these speeds: its index and
// binary searches alone (a lower bound of its cost) cost less than brute force and the grid.
bool szl_may_be_cheapest(const PointSet& left, const PointSet* right, const JoinWork& grid,
                         Metric metric, int threads, const AlgorithmSpeeds& speeds);

// A device whose choice the samples serve: its speeds and threads, and whether it runs the SZL.
struct PricedDevice {
  const AlgorithmSpeeds* speeds;
  int threads;
  bool runs_szl = true;
};

// The samples Auto weighs for a join: spec.sampled where it is this join's (its sizes), else the
// grid's work sampled now; then the SZL's walk, sampled where szl_may_be_cheapest on one of
// `devices` that runs it and not carried; then the tile pairs of brute force on tensor cores, where one of
// `devices` prunes tiles and they apply (tensor_tiles_apply) and were not carried.
SampledWork sample_work(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                        std::initializer_list<PricedDevice> devices);

// Auto's choice for run_join(left, right, spec) on a device with these speeds and `threads`
// threads; szl_supported: the device runs the SZL. Brute force without sampling for eps not
// finite, at most kBruteForceMaxPairs pairs or no dimension. The samples are sample_work's: the
// SZL is priced only where szl_may_be_cheapest.
AlgorithmChoice choose_algorithm(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                                 int threads, bool szl_supported, const AlgorithmSpeeds& speeds);

// "grid", "szl", "brute-force" ("auto" for Auto).
const char* algorithm_name(Algorithm algorithm);

}  // namespace simjoin
