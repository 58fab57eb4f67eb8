// Device::Auto's choice: the sampled work of the engine (engine/choice/work_estimate.h) priced on each device,
// against the work of PostgreSQL around the join (reading the rows, forming the result tuples),
// which is the same on both. The speeds were measured on the device (docs/BENCHMARKS.md,
// "Choosing the device").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/choice/work_estimate.h"
#include "engine/types.h"

namespace simjoin {

struct DeviceSpeeds {
  // CPU engine, in ns: per input point and per point and dimension (planning and the index,
  // which the join's threads do not shorten), then per thread: per candidate pair, per
  // dimension term a candidate's check reads (JoinWork::terms_per_candidate), per result pair.
  // The grid's are cpu_algorithm_speeds()'s (engine/choice/algorithm_choice.h). And a join's
  // fixed cost (its threads, the grid's plan), whatever the algorithm.
  double cpu_point_ns, cpu_point_dim_ns, cpu_candidate_ns, cpu_term_ns, cpu_pair_ns, cpu_join_ns;
  // GPU (through the GPU service), in ns: a join's fixed cost (submission, host planning,
  // allocations), per point and dimension (copied, uploaded, sampled), per dimension term of a
  // grid's candidate, per result pair (brought back and handed over); and the GPU's time of an
  // algorithm other than the grid over its estimate with gpu_algorithm_speeds() (its kernels).
  double gpu_join_ns, gpu_point_dim_ns, gpu_term_ns, gpu_pair_ns, gpu_algorithm_scale;
  // PostgreSQL around the join, in ns: per row read, per result pair formed into a tuple.
  double around_row_ns, around_pair_ns;
};

// The speeds measured for this release (docs/BENCHMARKS.md).
const DeviceSpeeds& measured_speeds();

struct DeviceEstimate {
  double cpu_seconds = 0.0;     // the CPU engine on cpu_threads threads
  double gpu_seconds = 0.0;     // the GPU
  double around_seconds = 0.0;  // PostgreSQL's part, either way
  bool gpu = false;             // the choice
};

// The engine's whole time of each algorithm Auto priced on a device (`estimates`: with that
// device's algorithm speeds, the GPU's its kernels alone), as EXPLAIN shows them: the join's fixed
// cost and the result pairs' added, and on the GPU its per-point costs (the grid's as estimate_devices
// prices it). `grid`: the join's sampled work; cpu_threads: the CPU's threads; pairs_leave:
// false where the engine folds the pairs itself (the GPU's device aggregates), so that no result
// pair is priced as handed on.
void price_engine_estimates(std::vector<AlgorithmEstimate>& estimates, const JoinWork& grid,
                            bool gpu, int cpu_threads,
                            const DeviceSpeeds& speeds = measured_speeds(),
                            bool pairs_leave = true);

// "auto priced the engine at C s on the CPU (T threads) and G s on the GPU, PostgreSQL's part
// A s: gpu" with the sampled work behind it: what simjoin.explain reports of the device choice.
std::string describe_device_estimate(const DeviceEstimate& estimate, const JoinWork& work,
                                     int cpu_threads);

// The GPU is chosen when the whole query is expected faster with it by a margin for the engine
// estimates' error: PostgreSQL's part (around) is the same on both devices, so the engine's time
// on the GPU times kGpuGain must be below the CPU's. pairs: the expected result size (0 when
// unknown).
constexpr double kGpuGain = 1.1;
DeviceEstimate estimate_devices(const JoinWork& work, int cpu_threads, double pairs,
                                const DeviceSpeeds& speeds = measured_speeds());

// Each device priced with the algorithm it runs (spec.algorithm, or Auto's pick with that device's
// algorithm speeds; gpu_runs_szl: the GPU's pick may be the SZL): estimate_devices on the grid's
// sampled work, where the device's pick is the grid; else the pick's estimate with the result
// pairs' cost (and, on the GPU, its fixed and per-point costs).
DeviceEstimate price_devices(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                             int cpu_threads, const SampledWork& sampled, bool gpu_runs_szl,
                             const DeviceSpeeds& speeds = measured_speeds());

// Device::Auto's choice for a join (the GPU's availability aside): the CPU for fewer than
// kAutoEstimateFromPairs point pairs (n_left * n_right: taking the samples would cost about what
// the choice could save) and for eps not finite; else price_devices on the inputs' samples
// (engine/choice/algorithm_choice.h, sample_work: spec.sampled where it is this join's).
// `sampled` (optional) gets the samples, `priced` the estimate, when there was one.
constexpr double kAutoEstimateFromPairs = 1e7;
bool auto_prefers_gpu(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                      int cpu_threads, SampledWork* sampled = nullptr, bool gpu_runs_szl = false,
                      DeviceEstimate* priced = nullptr);

}  // namespace simjoin
