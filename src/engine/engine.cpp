// run_join: validation, then dispatch to the GPU backend or the CPU grid / brute-force joins.
#include "engine/engine.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/choice/algorithm_choice.h"
#include "engine/choice/device_choice.h"
#include "engine/distance.h"
#include "engine/join/brute_force.h"
#include "engine/join/cell_index.h"
#include "engine/join/cosine_join.h"
#include "engine/join/grid_join.h"
#include "engine/join/grid_plan.h"
#include "engine/join/input_checks.h"
#include "engine/join/szl_join.h"
#include "engine/join_backend.h"
#include "engine/join_params.h"
#include "engine/parallel/phase_clock.h"
#include "engine/parallel/worker_thread.h"

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

JoinParams cpu_params(const JoinSpec& spec) {
  JoinParams params;
  params.metric = spec.metric;
  params.bound = accumulated_bound(spec.eps, spec.metric);
  params.self_pairs = spec.self_pairs;
  params.threads = resolve_thread_count(spec.threads);
  params.batch_pairs = spec.batch_pairs;
  return params;
}

// The algorithm the CPU runs: spec's, or Auto's choice (its estimates into stats).
Algorithm cpu_algorithm(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                        const JoinParams& params, JoinStats& stats, PhaseClock& clock) {
  if (spec.algorithm != Algorithm::Auto) return spec.algorithm;
  AlgorithmChoice choice = choose_algorithm(left, right, spec, params.threads,
                                            cpu_backend().supports(Algorithm::Szl),
                                            cpu_algorithm_speeds());
  if (choice.grid_work)
    price_engine_estimates(choice.estimates, *choice.grid_work, false, params.threads);
  stats.estimates = std::move(choice.estimates);
  if (!stats.estimates.empty()) clock.mark("choose");
  return choice.algorithm;
}

// The grid's plan, or nothing when it has no dimension to index.
std::optional<GridPlan> cpu_grid_plan(const PointSet& left, const PointSet* right,
                                      const JoinSpec& spec, PhaseClock& clock) {
  GridPlan plan = plan_grid(left, right, spec.eps, spec.metric, spec.indexed_dims, spec.threads);
  clock.mark("plan");
  if (plan.k == 0) return std::nullopt;
  return plan;
}

JoinStats run_cpu_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                       PairSink& sink) {
  JoinStats stats;
  stats.device = "cpu";
  stats.algorithm = "none";
  const bool nothing_matches = std::isnan(spec.eps) || spec.eps < 0.0;
  if (nothing_matches || left.n == 0 || (right && right->n == 0)) return stats;

  const JoinParams params = cpu_params(spec);
  PhaseClock clock(stats);

  const Algorithm algorithm = cpu_algorithm(left, right, spec, params, stats, clock);
  if (spec.algorithm == Algorithm::Auto && !sink.keep_going()) return stopped(stats);

  if (algorithm == Algorithm::Szl && std::isfinite(spec.eps)) {
    add_pipeline_result(run_szl_join(left, right, spec.eps, params, sink, clock, stats), stats);
    return stats;
  }

  // The grid needs a finite eps and at least one dimension it can index (plan.k > 0).
  std::optional<GridPlan> plan;
  if (algorithm == Algorithm::Grid && std::isfinite(spec.eps)) {
    plan = cpu_grid_plan(left, right, spec, clock);
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

}  // namespace

std::optional<JoinStats> count_on_cpu_grid(
    const PointSet& counted, const PointSet* partners, const JoinSpec& spec,
    const std::function<bool()>& keep_going, FilledVector<std::uint64_t>* counts,
    const std::function<void(std::uint64_t)>& progress) {
  if (spec.metric == Metric::Cosine || !std::isfinite(spec.eps) || spec.eps < 0.0 ||
      counted.n == 0 || (partners && partners->n == 0))
    return std::nullopt;
  JoinStats stats;
  stats.device = "cpu";
  JoinSpec pair_join = spec;  // the join the counts stand for: a self-join's pairs once each
  if (!partners) pair_join.self_pairs = SelfPairs::Unique;
  const JoinParams params = cpu_params(pair_join);
  PhaseClock clock(stats);
  if (cpu_algorithm(counted, partners, pair_join, params, stats, clock) != Algorithm::Grid)
    return std::nullopt;
  const std::optional<GridPlan> plan = cpu_grid_plan(counted, partners, spec, clock);
  if (!plan) return std::nullopt;
  stats.algorithm = "grid";
  stats.indexed_dims = plan->k;
  const CellKeys keys(*plan);
  CellIndex probe = build_cell_index(counted, *plan, keys, params.threads);
  CellIndex build = partners ? build_cell_index(*partners, *plan, keys, params.threads) : CellIndex{};
  clock.mark("index");
  // Sized now: the sort's freed memory (the buffer cache). Zeroed where the count does not write
  // every point's (a self-join adds to it; a point not indexed keeps 0).
  counts->resize(counted.n);
  if (!partners || probe.point_count() < counted.n) {
    parallel_for_ranges(counted.n, params.threads, [&](std::size_t begin, std::size_t end) {
      std::fill(counts->begin() + begin, counts->begin() + end, 0);
    });
  }
  const CountRun run = grid_neighbour_counts(probe, partners ? build : probe,
                                             Grid{*plan, keys}, params, counts->data(), keep_going,
                                             progress);
  clock.mark("count");
  // The index's blocks go back to the buffer cache beside the caller's next work (a GROUP BY's
  // groups): giving their pages back (MADV_FREE) costs a few milliseconds.
  dispose_in_background(std::move(probe));
  if (partners) dispose_in_background(std::move(build));
  stats.candidates = run.candidates;
  stats.pairs = run.pairs;
  stats.stopped = run.stopped;
  return stats;
}

namespace {

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

JoinStats JoinBackend::run_knn(const PointSet&, const PointSet*, const KnnSpec&, PairSink&) {
  throw Error("simjoin: this device has no k-nearest-neighbour join");
}

void install_gpu_backend(JoinBackend* backend) { gpu_backend_of_process = backend; }

JoinBackend* installed_gpu_backend() { return gpu_backend_of_process; }

namespace {

// The CPU backend's join; a cosine join as the Euclidean join of unit vectors made here.
JoinStats run_on_cpu(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     PairSink& sink) {
  if (spec.metric == Metric::Cosine) return run_cosine_join(left, right, spec, run_on_cpu, sink);
  return cpu_backend().run(left, right, spec, sink);
}

}  // namespace

JoinStats run_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                   PairSink& sink) {
  check_inputs(left, right);
  // The GPU backend takes cosine joins as they are (it may decide them on the device).
  switch (spec.device) {
    case Device::Gpu:
      // An algorithm the GPU backend does not run (the SZL until it has one) runs on the CPU.
      if (!gpu_backend().supports(spec.algorithm)) return run_on_cpu(left, right, spec, sink);
      return gpu_backend().run(left, right, spec, sink);
    case Device::Auto:
      if (gpu_chosen_for_auto(left, right, spec)) return gpu_backend().run(left, right, spec, sink);
      return run_on_cpu(left, right, spec, sink);
    case Device::Cpu:
    default:
      return run_on_cpu(left, right, spec, sink);
  }
}

bool gpu_available(std::string* why) { return gpu_usable(why); }

}  // namespace simjoin
