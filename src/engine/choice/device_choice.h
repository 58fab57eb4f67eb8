// Device::Auto's choice: the sampled work of the engine (engine/choice/work_estimate.h) priced on each device,
// against the work of PostgreSQL around the join (reading the rows, forming the result tuples),
// which is the same on both. The speeds were measured on the device (docs/BENCHMARKS.md,
// "Choosing the device").
#pragma once

#include <optional>

#include "engine/choice/work_estimate.h"
#include "engine/types.h"

namespace simjoin {

struct DeviceSpeeds {
  // CPU engine, in ns: per input point and per point and dimension (planning and the index,
  // which the join's threads do not shorten), then per thread: per candidate pair, per
  // dimension term a candidate's check reads (JoinWork::terms_per_candidate), per result pair.
  double cpu_point_ns, cpu_point_dim_ns, cpu_candidate_ns, cpu_term_ns, cpu_pair_ns;
  // GPU (through the GPU service), in ns: a join's fixed cost (submission, host planning,
  // allocations), per point and dimension (copied, uploaded, sampled), per dimension term of a
  // candidate, per result pair (brought back and handed over).
  double gpu_join_ns, gpu_point_dim_ns, gpu_term_ns, gpu_pair_ns;
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

// The GPU is chosen when the whole query (around + engine) is expected at least kGpuGain times
// faster with it: a margin for the estimate's error, and the CPU wherever the engine's part is
// small next to PostgreSQL's. pairs: the expected result size (0 when unknown).
constexpr double kGpuGain = 1.1;
DeviceEstimate estimate_devices(const JoinWork& work, int cpu_threads, double pairs,
                                const DeviceSpeeds& speeds = measured_speeds());

// Device::Auto's choice for a join (the GPU's availability aside): the CPU for fewer than
// kAutoEstimateFromPairs point pairs (n_left * n_right: the GPU's fixed cost alone exceeds their
// engine time) and for eps not finite; else estimate_devices on the sampled work. For
// Algorithm::Auto each device is priced with the algorithm it would pick (engine/choice/algorithm_choice.h):
// the CPU's grid time scaled by its chosen algorithm's estimate over the grid's, the GPU's too
// where gpu_runs_szl (its backend supports the SZL). `work` (optional) gets the grid's sampled
// work when it was estimated.
constexpr double kAutoEstimateFromPairs = 1e7;
bool auto_prefers_gpu(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                      int cpu_threads, std::optional<JoinWork>* work = nullptr,
                      bool gpu_runs_szl = false);

}  // namespace simjoin
