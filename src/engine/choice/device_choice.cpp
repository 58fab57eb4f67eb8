// estimate_devices and price_devices: each device's engine time over the sampled work.
#include "engine/choice/device_choice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/choice/algorithm_choice.h"

namespace simjoin {

const DeviceSpeeds& measured_speeds() {
  // Fitted (non-negative least squares on relative error) to the engine alone on the 15 sets of
  // bench/calibration_sets.txt, 2-D to 784-D, on the H200 machine with 16 CPU threads
  // (2026-11-29, docs/benchmarks/calibration.md). The GPU's fixed and per-coordinate costs are
  // those of a GPU service job as a session waits for it (its phases, `service` included: the
  // copy into shared memory, the wait, the handover), fitted on bench/device_panel.sh's custom
  // scans (scripts/fit_service_speeds.py); its kernels' costs are the calibration's.
  // PostgreSQL's part was read off the custom scan's times on bench/device_panel.sh.
  static const DeviceSpeeds speeds{
      /*cpu_point_ns=*/0.0, /*cpu_point_dim_ns=*/7.16, /*cpu_candidate_ns=*/3.15,
      /*cpu_term_ns=*/0.838, /*cpu_pair_ns=*/12.9, /*cpu_join_ns=*/10.6e6,
      /*gpu_join_ns=*/4.15e6, /*gpu_point_dim_ns=*/2.0, /*gpu_term_ns=*/0.008, /*gpu_pair_ns=*/0.335,
      /*gpu_algorithm_scale=*/0.78,
      /*around_row_ns=*/100.0, /*around_pair_ns=*/25.0};
  return speeds;
}

namespace {

bool gpu_wins(const DeviceEstimate& e) { return e.gpu_seconds * kGpuGain < e.cpu_seconds; }

// The algorithm a device with these speeds runs (spec.algorithm, or the cheapest where Auto) and
// its estimated time (engine/choice/algorithm_choice.h).
AlgorithmEstimate picked(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                         const SampledWork& sampled, bool szl, int threads,
                         const AlgorithmSpeeds& speeds) {
  const AlgorithmChoice choice =
      cheapest_algorithm(&sampled.grid, szl && sampled.has_szl ? &sampled.szl : nullptr,
                         brute_work(left, right, sampled), left.dim, spec.metric, threads, speeds);
  const std::string wanted = algorithm_name(spec.algorithm);
  for (const AlgorithmEstimate& e : choice.estimates)
    if (e.algorithm == wanted) return e;
  return choice.estimates.front();
}

}  // namespace

DeviceEstimate estimate_devices(const JoinWork& work, int cpu_threads, double pairs,
                                const DeviceSpeeds& s) {
  const double points = work.left_points + work.right_points;
  const double dim = static_cast<double>(work.dim);
  const double terms = work.candidates * work.terms_per_candidate;
  const double threads = static_cast<double>(std::max(cpu_threads, 1));
  DeviceEstimate e;
  e.cpu_seconds = (s.cpu_join_ns + points * (s.cpu_point_ns + dim * s.cpu_point_dim_ns) +
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

void price_engine_estimates(std::vector<AlgorithmEstimate>& estimates, const JoinWork& work,
                            bool gpu, int cpu_threads, const DeviceSpeeds& s, bool pairs_leave) {
  const double points = work.left_points + work.right_points;
  const double pairs_ns = !pairs_leave ? 0.0
                          : gpu        ? work.pairs * s.gpu_pair_ns
                                       : work.pairs * s.cpu_pair_ns / std::max(cpu_threads, 1);
  const double gpu_fixed_ns =
      s.gpu_join_ns + points * static_cast<double>(work.dim) * s.gpu_point_dim_ns;
  for (AlgorithmEstimate& e : estimates) {
    if (!gpu) {
      e.seconds += (s.cpu_join_ns + pairs_ns) * 1e-9;
    } else if (e.algorithm == "grid") {
      e.seconds = (gpu_fixed_ns + work.candidates * work.terms_per_candidate * s.gpu_term_ns +
                   pairs_ns) * 1e-9;
    } else {
      e.seconds = (gpu_fixed_ns + pairs_ns) * 1e-9 + e.seconds * s.gpu_algorithm_scale;
    }
  }
}

DeviceEstimate price_devices(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                             int cpu_threads, const SampledWork& sampled, bool gpu_runs_szl,
                             const DeviceSpeeds& s) {
  DeviceEstimate e = estimate_devices(sampled.grid, cpu_threads, sampled.grid.pairs, s);
  const int threads = std::max(cpu_threads, 1);
  // Where a device runs another algorithm than the grid, that algorithm's engine time replaces
  // the grid's (price_engine_estimates: with the result pairs' cost, and the GPU's fixed costs).
  std::vector<AlgorithmEstimate> cpu{
      picked(left, right, spec, sampled, true, threads, cpu_algorithm_speeds())};
  if (cpu.front().algorithm != "grid") {
    price_engine_estimates(cpu, sampled.grid, false, threads, s);
    e.cpu_seconds = cpu.front().seconds;
  }
  std::vector<AlgorithmEstimate> gpu{
      picked(left, right, spec, sampled, gpu_runs_szl, 1, gpu_algorithm_speeds())};
  if (gpu.front().algorithm != "grid") {
    price_engine_estimates(gpu, sampled.grid, true, threads, s);
    e.gpu_seconds = gpu.front().seconds;
  }
  e.gpu = gpu_wins(e);
  return e;
}

std::string describe_device_estimate(const DeviceEstimate& e, const JoinWork& work,
                                     int cpu_threads) {
  char text[320];
  std::snprintf(text, sizeof text,
                "auto priced the engine at %.3gs on the CPU (%d threads) and %.3gs on the GPU, "
                "PostgreSQL's part %.3gs: %s (sampled: %.3g candidates of %.3g terms, %.3g pairs, "
                "%d indexed dimensions)",
                e.cpu_seconds, std::max(cpu_threads, 1), e.gpu_seconds, e.around_seconds,
                e.gpu ? "gpu" : "cpu", work.candidates, work.terms_per_candidate, work.pairs,
                work.indexed_dims);
  return text;
}

bool auto_prefers_gpu(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                      int cpu_threads, SampledWork* sampled_out, bool gpu_runs_szl,
                      DeviceEstimate* priced) {
  const double pairs = static_cast<double>(left.n) * static_cast<double>(right ? right->n : left.n);
  if (!std::isfinite(spec.eps) || spec.eps < 0.0 || pairs < kAutoEstimateFromPairs) return false;
  SampledWork sampled;
  if (spec.algorithm == Algorithm::Auto) {
    const PricedDevice cpu{&cpu_algorithm_speeds(), std::max(cpu_threads, 1)};
    const PricedDevice gpu{&gpu_algorithm_speeds(), 1, gpu_runs_szl};
    sampled = sample_work(left, right, spec, {cpu, gpu});
  } else {
    sampled.grid = estimate_join_work(left, right, spec);
    sampled.has_grid = true;
  }
  if (sampled_out) *sampled_out = sampled;
  const DeviceEstimate e =
      price_devices(left, right, spec, cpu_threads, sampled, gpu_runs_szl, measured_speeds());
  if (priced) *priced = e;
  return e.gpu;
}

}  // namespace simjoin
