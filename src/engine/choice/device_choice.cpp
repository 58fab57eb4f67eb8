// estimate_devices: a linear model per device over the sampled work.
#include "engine/choice/device_choice.h"

#include <algorithm>
#include <cmath>

#include "engine/choice/algorithm_choice.h"

namespace simjoin {

const DeviceSpeeds& measured_speeds() {
  // Fitted (non-negative least squares on relative error) to the engine alone on 15 sets, 2-D to
  // 784-D, on an H100 machine with 16 CPU threads (docs/BENCHMARKS.md, "Choosing the device");
  // the GPU's figures plus the service's copy into shared memory and its submission.
  static const DeviceSpeeds speeds{
      /*cpu_point_ns=*/46.0, /*cpu_point_dim_ns=*/5.3, /*cpu_candidate_ns=*/1.4,
      /*cpu_term_ns=*/1.6, /*cpu_pair_ns=*/6.2,
      /*gpu_join_ns=*/16e6, /*gpu_point_dim_ns=*/6.0, /*gpu_term_ns=*/0.005, /*gpu_pair_ns=*/0.35,
      /*around_row_ns=*/100.0, /*around_pair_ns=*/25.0};
  return speeds;
}

namespace {

bool gpu_wins(const DeviceEstimate& e) {
  return (e.around_seconds + e.gpu_seconds) * kGpuGain < e.around_seconds + e.cpu_seconds;
}

// The estimated time of the algorithm a device with these speeds picks over that of its grid.
double picked_over_grid(const JoinWork& grid, const SzlWork& szl, double brute_pairs,
                        Metric metric, int threads, const AlgorithmSpeeds& speeds) {
  const AlgorithmChoice choice =
      cheapest_algorithm(&grid, &szl, brute_pairs, grid.dim, metric, threads, speeds);
  for (const AlgorithmEstimate& e : choice.estimates) {
    if (e.algorithm == "grid" && e.seconds > 0.0) return choice.estimates.front().seconds / e.seconds;
  }
  return 1.0;
}

}  // namespace

DeviceEstimate estimate_devices(const JoinWork& work, int cpu_threads, double pairs,
                                const DeviceSpeeds& s) {
  const double points = work.left_points + work.right_points;
  const double dim = static_cast<double>(work.dim);
  const double terms = work.candidates * work.terms_per_candidate;
  const double threads = static_cast<double>(std::max(cpu_threads, 1));
  DeviceEstimate e;
  e.cpu_seconds = (points * (s.cpu_point_ns + dim * s.cpu_point_dim_ns) +
                   (work.candidates * s.cpu_candidate_ns + terms * s.cpu_term_ns +
                    pairs * s.cpu_pair_ns) /
                       threads) *
                  1e-9;
  e.gpu_seconds = (s.gpu_join_ns + points * dim * s.gpu_point_dim_ns + terms * s.gpu_term_ns +
                   pairs * s.gpu_pair_ns) *
                  1e-9;
  e.around_seconds = (points * s.around_row_ns + pairs * s.around_pair_ns) * 1e-9;
  e.gpu = gpu_wins(e);
  return e;
}

bool auto_prefers_gpu(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                      int cpu_threads, std::optional<JoinWork>* work, bool gpu_runs_szl) {
  const double pairs = static_cast<double>(left.n) * static_cast<double>(right ? right->n : left.n);
  if (!std::isfinite(spec.eps) || spec.eps < 0.0 || pairs < kAutoEstimateFromPairs) return false;
  const JoinWork estimated = estimate_join_work(left, right, spec);
  if (work) *work = estimated;
  DeviceEstimate e = estimate_devices(estimated, cpu_threads, estimated.pairs);
  if (spec.algorithm != Algorithm::Auto || estimated.indexed_dims == 0 ||
      spec.metric == Metric::Cosine) {
    return e.gpu;
  }
  const SzlWork szl = estimate_szl_work(left, right, spec.eps);
  e.cpu_seconds *=
      picked_over_grid(estimated, szl, pairs, spec.metric, cpu_threads, cpu_algorithm_speeds());
  if (gpu_runs_szl)
    e.gpu_seconds *=
        picked_over_grid(estimated, szl, pairs, spec.metric, 1, gpu_algorithm_speeds());
  return gpu_wins(e);
}

}  // namespace simjoin
