// run_join: validation, then dispatch to the GPU backend or the CPU grid / brute-force joins.
#include "engine.h"

#include <cmath>
#include <optional>

#include "algorithm_choice.h"
#include "brute_force.h"
#include "cell_index.h"
#include "cosine_join.h"
#include "device_choice.h"
#include "distance.h"
#include "grid_join.h"
#include "grid_plan.h"
#include "input_checks.h"
#include "join_backend.h"
#include "join_params.h"
#include "phase_clock.h"
#include "szl_join.h"

namespace simjoin {
namespace {

void add_pipeline_result(const PipelineResult& result, JoinStats& stats) {
  stats.batches = result.batches;
  stats.candidates = result.candidates;
  stats.pairs = result.pairs;
  stats.stopped = result.stopped;
}

JoinStats stopped(JoinStats& stats) {
  stats.stopped = true;
  return stats;
}

// The Set-of-Z-Lists join: the index on the smaller input (the only one for a self-join), then
// the probe of every point of the other.
PipelineResult run_szl_join(const PointSet& left, const PointSet* right, double eps,
                            const JoinParams& params, PairSink& sink, PhaseClock& clock,
                            JoinStats& stats) {
  stats.algorithm = "szl";
  const bool build_is_left = !right || left.n <= right->n;
  const SzlIndex index = build_szl_index(build_is_left ? left : *right, 0, params.threads);
  clock.mark("index");
  if (!sink.keep_going()) return PipelineResult{0, 0, 0, true};
  const PipelineResult result =
      right ? szl_two_input_join(index, build_is_left ? *right : left, build_is_left, eps, params,
                                 sink)
            : szl_self_join(index, eps, params, sink);
  clock.mark("join");
  return result;
}

JoinStats run_cpu_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                       PairSink& sink) {
  JoinStats stats;
  stats.device = "cpu";
  stats.algorithm = "none";
  const bool nothing_matches = std::isnan(spec.eps) || spec.eps < 0.0;
  if (nothing_matches || left.n == 0 || (right && right->n == 0)) return stats;

  JoinParams params;
  params.metric = spec.metric;
  params.bound = accumulated_bound(spec.eps, spec.metric);
  params.self_pairs = spec.self_pairs;
  params.threads = resolve_thread_count(spec.threads);
  params.batch_pairs = spec.batch_pairs;
  PhaseClock clock(stats);

  Algorithm algorithm = spec.algorithm;
  if (algorithm == Algorithm::Auto) {
    AlgorithmChoice choice = choose_algorithm(left, right, spec, params.threads,
                                              cpu_backend().supports(Algorithm::Szl),
                                              cpu_algorithm_speeds());
    algorithm = choice.algorithm;
    stats.estimates = std::move(choice.estimates);
    if (!stats.estimates.empty()) clock.mark("choose");
    if (!sink.keep_going()) return stopped(stats);
  }

  if (algorithm == Algorithm::Szl && std::isfinite(spec.eps)) {
    add_pipeline_result(run_szl_join(left, right, spec.eps, params, sink, clock, stats), stats);
    return stats;
  }

  // The grid needs a finite eps and at least one dimension it can index (plan.k > 0).
  std::optional<GridPlan> plan;
  if (algorithm == Algorithm::Grid && std::isfinite(spec.eps)) {
    plan = plan_grid(left, right, spec.eps, spec.metric, spec.indexed_dims, spec.threads);
    clock.mark("plan");
    if (plan->k == 0) plan.reset();
    if (!sink.keep_going()) return stopped(stats);  // cancel between phases too
  }
  if (!plan) {
    stats.algorithm = "brute-force";
    add_pipeline_result(brute_force_join(left, right, params, sink), stats);
    clock.mark("join");
    return stats;
  }

  stats.algorithm = "grid";
  stats.indexed_dims = plan->k;
  const CellKeys keys(*plan);
  const Grid grid{*plan, keys};
  if (!right) {
    const CellIndex index = build_cell_index(left, *plan, keys, params.threads);
    clock.mark("index");
    if (!sink.keep_going()) return stopped(stats);
    add_pipeline_result(grid_self_join(index, grid, params, sink), stats);
  } else {
    // Build on the smaller input, probe with the larger one.
    const bool build_is_left = left.n <= right->n;
    const CellIndex build =
        build_cell_index(build_is_left ? left : *right, *plan, keys, params.threads);
    const CellIndex probe =
        build_cell_index(build_is_left ? *right : left, *plan, keys, params.threads);
    clock.mark("index");
    if (!sink.keep_going()) return stopped(stats);
    add_pipeline_result(grid_two_input_join(build, probe, build_is_left, grid, params, sink),
                        stats);
  }
  clock.mark("join");
  return stats;
}

class CpuBackend : public JoinBackend {
 public:
  bool usable(std::string*) override { return true; }
  bool supports(Algorithm) const override { return true; }
  JoinStats run(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                PairSink& sink) override {
    return run_cpu_join(left, right, spec, sink);
  }
};

JoinBackend* gpu_backend_of_process = nullptr;

bool gpu_usable(std::string* why) {
  if (!gpu_backend_of_process) {
    if (why) *why = "no GPU backend in this process";
    return false;
  }
  return gpu_backend_of_process->usable(why);
}

JoinBackend& gpu_backend() {
  std::string why;
  if (!gpu_usable(&why)) throw Error("simjoin: no usable GPU: " + why);
  return *gpu_backend_of_process;
}

bool gpu_chosen_for_auto(const PointSet& left, const PointSet* right, const JoinSpec& spec) {
  if (!gpu_usable(nullptr)) return false;
  if (!gpu_backend_of_process->supports(spec.algorithm)) return false;
  return auto_prefers_gpu(left, right, spec, resolve_thread_count(spec.threads), nullptr,
                          gpu_backend_of_process->supports(Algorithm::Szl));
}

}  // namespace

JoinBackend& cpu_backend() {
  static CpuBackend backend;
  return backend;
}

void install_gpu_backend(JoinBackend* backend) { gpu_backend_of_process = backend; }

JoinBackend* installed_gpu_backend() { return gpu_backend_of_process; }

JoinStats run_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                   PairSink& sink) {
  check_inputs(left, right);
  if (spec.metric == Metric::Cosine) return run_cosine_join(left, right, spec, run_join, sink);
  switch (spec.device) {
    case Device::Gpu:
      // An algorithm the GPU backend does not run (the SZL until it has one) runs on the CPU.
      if (!gpu_backend().supports(spec.algorithm)) return cpu_backend().run(left, right, spec, sink);
      return gpu_backend().run(left, right, spec, sink);
    case Device::Auto:
      if (gpu_chosen_for_auto(left, right, spec)) return gpu_backend().run(left, right, spec, sink);
      return cpu_backend().run(left, right, spec, sink);
    case Device::Cpu:
    default:
      return cpu_backend().run(left, right, spec, sink);
  }
}

bool gpu_available(std::string* why) { return gpu_usable(why); }

}  // namespace simjoin
