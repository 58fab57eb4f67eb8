// simjoin::gpu::run_join: the engine's join on the GPU: eps-grid (Gowanlock and Karsin, IPDPSW 2018 and DaMoN 2019), brute force, or
// on request the Set-of-Z-Lists join (szl_device_index.cuh, szl_join_kernel.cuh).
#include "gpu_backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "brute_force_kernel.cuh"
#include "cosine_tensor_join.cuh"
#include "cuda_stream.h"
#include "device_buffer.h"
#include "engine/choice/algorithm_choice.h"
#include "engine/choice/device_choice.h"
#include "engine/distance.h"
#include "engine/join/chunked_join.h"
#include "engine/join/cosine_join.h"
#include "engine/join/grid_plan.h"
#include "engine/join/input_checks.h"
#include "engine/join/szl_join.h"
#include "engine/parallel/phase_clock.h"
#include "float_filter.cuh"
#include "fold_pass.cuh"
#include "gpu_device.cuh"
#include "gpu_tuning.h"
#include "grid_index.cuh"
#include "grid_join_kernel.cuh"
#include "grid_tile_kernel.cuh"
#include "pair_pipeline.cuh"
#include "producer_join.cuh"
#include "szl_device_index.cuh"
#include "szl_join_kernel.cuh"
#include "tensor_join_kernel.cuh"

namespace simjoin::gpu {

namespace {

// A positive (or, with allow_zero, non-negative) integer from the environment, else `fallback`.
std::size_t env_size(const char* name, std::size_t fallback, bool allow_zero = false) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  return (*end == '\0' && (value > 0 || allow_zero)) ? static_cast<std::size_t>(value)
                                                      : fallback;
}

}  // namespace

Tuning& tuning() {
  static Tuning knobs = [] {
    Tuning defaults;
    defaults.device_batch_pairs =
        env_size("SIMJOIN_GPU_BATCH_PAIRS", defaults.device_batch_pairs);
    defaults.streams = static_cast<int>(env_size("SIMJOIN_GPU_STREAMS", defaults.streams));
    defaults.direct_pairs = env_size("SIMJOIN_GPU_DIRECT_PAIRS", defaults.direct_pairs, true);
    defaults.host_chunk_pairs =
        env_size("SIMJOIN_GPU_HOST_CHUNK_PAIRS", defaults.host_chunk_pairs);
    defaults.float_filter = env_size("SIMJOIN_GPU_FLOAT_FILTER", 1, true) != 0;
    defaults.input_bytes = env_size("SIMJOIN_GPU_INPUT_BYTES", defaults.input_bytes, true);
    if (const char* tiles = std::getenv("SIMJOIN_GPU_TILES"); tiles && *tiles)
      defaults.grid_tiles = tiles[0] == '0' ? 0 : tiles[0] == '1' ? 1 : -1;
    if (const char* zsort = std::getenv("SIMJOIN_GPU_ZSORT"); zsort && *zsort)
      defaults.szl_compare_sort = std::string(zsort) == "compare";
    defaults.szl_curve_copies = env_size("SIMJOIN_GPU_SZL_COPIES", 1, true) != 0;
    if (const char* tensor = std::getenv("SIMJOIN_GPU_TENSOR"); tensor && *tensor)
      defaults.tensor = tensor[0] == '0' ? 0 : tensor[0] == '1' ? 1 : -1;
    defaults.resident_queries = env_size("SIMJOIN_GPU_RESIDENT_QUERIES", 1, true) != 0;
    defaults.tensor_registers = env_size("SIMJOIN_GPU_TENSOR_REGISTERS", 1, true) != 0;
    defaults.tensor_prune = env_size("SIMJOIN_GPU_TENSOR_PRUNE", 1, true) != 0;
    const std::size_t pick_rows = env_size("SIMJOIN_GPU_KNN_PICK_ROWS", 16, true);
    defaults.knn_pick_rows = pick_rows == 0 || pick_rows == 32 ? static_cast<int>(pick_rows) : 16;
    return defaults;
  }();
  return knobs;
}

bool available(std::string* why) {
  const DeviceInfo& info = device_info();
  if (!info.usable && why) *why = info.reason;
  return info.usable;
}

namespace {

DeviceBuffer<double> upload(const PointSet& set) {
  return gpu::upload(set.coords, set.n * set.dim);
}

// The centre that the float copies are shifted by: the first point whose coordinates are all
// finite (any such point keeps the magnitudes within the data's extent), else zeros.
DeviceBuffer<double> float_centre(const PointSet& left, const PointSet* right) {
  std::vector<double> centre(left.dim, 0.0);
  bool found = false;
  for (const PointSet* set : {&left, right}) {
    for (std::size_t i = 0; set && !found && i < set->n; ++i) {
      const double* p = set->point(i);
      bool finite = true;
      for (std::size_t j = 0; finite && j < set->dim; ++j) finite = std::isfinite(p[j]);
      if (finite) {
        centre.assign(p, p + set->dim);
        found = true;
      }
    }
  }
  DeviceBuffer<double> device(centre.size());
  if (!centre.empty())
    CUDA_CHECK(cudaMemcpy(device.data(), centre.data(), device.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());  // see upload() in device_buffer.h
  return device;
}

// The float copy of `rows` rows at `coords` (device) and their magnitude bounds.
struct FloatPoints {
  DeviceBuffer<float> coords;
  DeviceBuffer<float> mag;
};
FloatPoints float_points(const double* coords, std::size_t rows, int dim,
                         const DeviceBuffer<double>& centre, cudaStream_t stream) {
  FloatPoints points;
  points.coords.resize(rows * dim);
  points.mag.resize(rows);
  FloatCopyArgs args;
  args.coords = coords;
  args.centre = centre.data();
  args.n = rows;
  args.dim = dim;
  args.out = points.coords.data();
  args.mag = points.mag.data();
  make_float_copy(args, stream);
  return points;
}

FloatFilter filter_for(double bound, const JoinSpec& spec, int dim) {
  FloatFilter filter = make_float_filter(bound, spec.metric, dim, tuning().float_margin);
  if (!tuning().float_filter) filter = make_float_filter(NAN, spec.metric, dim, 1.0);
  return filter;
}

// Whether the sink asks to stop between phases (then the join reports that it stopped).
bool stop_requested(PairSink& sink, JoinStats& stats) {
  if (sink.keep_going()) return false;
  stats.stopped = true;
  return true;
}

// Hands the producer to `consume` when given (the device aggregates), else streams its pairs
// into the sink (diagonal: the identity pairs of a self-join's SelfPairs::All, made on demand).
void finish_join(const PairProducer& producer, const ProducerConsumer* consume,
                 const PointSet* right, const JoinSpec& spec,
                 const std::function<std::vector<std::uint32_t>()>& diagonal, PairSink& sink,
                 JoinStats& stats) {
  if (consume) {
    stats.stopped = !(*consume)(producer, stats);
    return;
  }
  std::vector<std::uint32_t> ids;
  if (!right && spec.self_pairs == SelfPairs::All) ids = diagonal();
  const PipelineOptions options = pipeline_options(right != nullptr, spec, &ids);
  stats.stopped = !stream_pairs(producer, options, sink, stats);
}

// Whether a brute-force join runs on tensor cores (tensor_join_kernel.cuh): Euclidean distance
// (cosine arrives as unit vectors) from kTensorMinDim dimensions, or as the tuning says.
constexpr std::size_t kTensorMinDim = 16;
bool use_tensor_cores(Metric metric, std::size_t dim) {
  if (metric != Metric::Euclidean || dim == 0 || tuning().tensor == 0) return false;
  return tuning().tensor == 1 || dim >= kTensorMinDim;
}

// The uploaded inputs (right_coords empty in a self-join) joined on tensor cores.
void run_tensor_brute_force(const PointSet& left, const PointSet* right,
                            const DeviceBuffer<double>& left_coords,
                            const DeviceBuffer<double>& right_coords, const JoinSpec& spec,
                            double bound, PairSink& sink, JoinStats& stats, PhaseClock& timer,
                            const ProducerConsumer* consume) {
  stats.algorithm = "gpu-brute-force-tensor";
  const int dim = static_cast<int>(left.dim);
  const auto n_left = static_cast<std::uint32_t>(left.n);
  const auto n_right = static_cast<std::uint32_t>(right ? right->n : 0);
  const double* right_data = right ? right_coords.data() : nullptr;
  CudaStream stream;
  const TensorInputs inputs =
      make_tensor_inputs(left_coords.data(), n_left, right_data, n_right, dim, bound,
                         tuning().float_margin, tuning().tensor_prune, stream.get());
  timer.mark("upload");
  TensorJoinArgs args =
      tensor_join_args(inputs, left_coords.data(), n_left, right_data, n_right, dim, bound);
  const TileMask mask = use_tile_mask(args, inputs, stream.get());
  timer.mark("prune");
  if (stop_requested(sink, stats)) return;  // cancel between phases too
  const TensorJoinProducer producer(args);
  finish_join(
      producer, consume, right, spec,
      [&] { return finite_ids(left_coords.data(), left.n, left.dim); }, sink, stats);
}

void run_brute_force(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     double bound, PairSink& sink, JoinStats& stats, PhaseClock& timer,
                     const ProducerConsumer* consume) {
  const DeviceBuffer<double> left_coords = upload(left);
  const DeviceBuffer<double> right_coords = right ? upload(*right) : DeviceBuffer<double>();
  if (use_tensor_cores(spec.metric, left.dim)) {
    run_tensor_brute_force(left, right, left_coords, right_coords, spec, bound, sink, stats, timer,
                           consume);
    return;
  }
  stats.algorithm = "gpu-brute-force";
  const int dim = static_cast<int>(left.dim);
  const DeviceBuffer<double> centre = float_centre(left, right);
  const FloatPoints left_float = float_points(left_coords.data(), left.n, dim, centre, nullptr);
  const FloatPoints right_float =
      right ? float_points(right_coords.data(), right->n, dim, centre, nullptr) : FloatPoints();
  CUDA_CHECK(cudaStreamSynchronize(nullptr));
  timer.mark("upload");
  if (stop_requested(sink, stats)) return;  // cancel between phases too
  BruteForceArgs args;
  args.left_float = left_float.coords.data();
  args.left_mag = left_float.mag.data();
  args.right_float = right ? right_float.coords.data() : left_float.coords.data();
  args.right_mag = right ? right_float.mag.data() : left_float.mag.data();
  args.filter = filter_for(bound, spec, dim);
  args.left = left_coords.data();
  args.right = right ? right_coords.data() : left_coords.data();
  args.n_left = static_cast<std::uint32_t>(left.n);
  args.n_right = static_cast<std::uint32_t>(right ? right->n : left.n);
  args.dim = static_cast<int>(left.dim);
  args.self_join = right == nullptr;
  args.bound = bound;
  timer.restart();
  const BruteForceProducer producer(args, spec.metric);
  finish_join(
      producer, consume, right, spec,
      [&] { return finite_ids(left_coords.data(), left.n, left.dim); }, sink, stats);
}

// Sorts an input's finite points by cell on the device (its raw copy is freed on return).
SortedPoints upload_and_sort(const PointSet& set, const GridGeometry& geometry,
                             cudaStream_t stream) {
  const DeviceBuffer<double> raw = upload(set);
  return sort_points_by_cell(raw.data(), static_cast<std::uint32_t>(set.n), geometry, stream);
}

// Index points per non-empty cell from which the tiled grid kernel pays: each tile loaded into
// shared memory then serves a block's worth of queries of one cell.
constexpr double kTiledMinOccupancy = 32.0;

// The tiled kernel's tile size for this grid, or 0 for the per-thread kernel.
std::uint32_t choose_tile_points(std::uint32_t num_cells, std::uint32_t indexed_points, int dim) {
  const std::uint32_t tile = grid_tile_points(dim);
  if (tuning().grid_tiles >= 0) return tuning().grid_tiles ? tile : 0;
  const bool crowded = num_cells > 0 && indexed_points >= kTiledMinOccupancy * num_cells;
  return crowded ? tile : 0;
}

void run_grid(const PointSet& left, const PointSet* right, const JoinSpec& spec,
              const GridGeometry& plan_geometry, double bound, PairSink& sink,
              JoinStats& stats, PhaseClock& timer, const ProducerConsumer* consume) {
  stats.algorithm = "gpu-grid";
  GridGeometry geometry = plan_geometry;
  stats.indexed_dims = geometry.k;
  CudaStream stream;
  // Two inputs: the grid on the smaller one, probed by the other (the choice of Lieberman et al., ICDE 2008).
  const bool index_is_left = right == nullptr || left.n <= right->n;
  const PointSet& indexed = index_is_left ? left : *right;
  const SortedPoints index_points = upload_and_sort(indexed, geometry, stream.get());
  const SortedPoints probe_points =
      right ? upload_and_sort(index_is_left ? *right : left, geometry, stream.get())
            : SortedPoints();
  const SortedPoints& queries = right ? probe_points : index_points;
  const DeviceBuffer<double> centre = float_centre(left, right);
  const FloatPoints index_float = float_points(index_points.coords.data(), index_points.n_finite,
                                               geometry.dim, centre, stream.get());
  const FloatPoints probe_float =
      right ? float_points(probe_points.coords.data(), probe_points.n_finite, geometry.dim, centre,
                           stream.get())
            : FloatPoints();
  const FloatPoints& query_float = right ? probe_float : index_float;
  timer.mark("upload+sort");
  if (stop_requested(sink, stats)) return;  // cancel between phases too
  const CellIndex cells = build_cell_index(index_points, geometry, stream.get());

  GridJoinArgs args;
  args.geometry = geometry;
  args.index_coords = index_points.coords.data();
  args.index_ids = index_points.ids.data();
  args.cell_keys = cells.keys.data();
  args.cell_start = cells.start.data();
  args.masks = cells.masks.data();
  args.num_cells = cells.num_cells;
  args.query_coords = queries.coords.data();
  args.query_ids = queries.ids.data();
  args.query_keys = queries.keys.data();
  args.num_queries = queries.n_finite;
  args.self_join = right == nullptr;
  args.index_is_left = index_is_left;
  args.bound = bound;
  args.index_float = index_float.coords.data();
  args.index_mag = index_float.mag.data();
  args.query_float = query_float.coords.data();
  args.query_mag = query_float.mag.data();
  args.filter = filter_for(bound, spec, geometry.dim);
  args.tile_points = choose_tile_points(cells.num_cells, index_points.n_finite, geometry.dim);
  if (args.tile_points > 0) stats.algorithm = "gpu-grid-tiled";
  timer.mark("index");
  if (stop_requested(sink, stats)) return;
  const GridJoinProducer producer(args, spec.metric);
  finish_join(
      producer, consume, right, spec,
      [&] { return to_host(index_points.ids, index_points.n_finite); }, sink, stats);
}

SzlSort szl_sort() { return tuning().szl_compare_sort ? SzlSort::Compare : SzlSort::Keys; }

// The SZL join: the index on the smaller input (the only one for a self-join), probed by every
// finite point of the other in Z order, or by the index's own points in the order of curve 0.
void run_szl(const PointSet& left, const PointSet* right, const JoinSpec& spec, double bound,
             PairSink& sink, JoinStats& stats, PhaseClock& timer,
             const ProducerConsumer* consume) {
  stats.algorithm = "gpu-szl";
  CudaStream stream;
  const bool build_is_left = right == nullptr || left.n <= right->n;
  const PointSet& build = build_is_left ? left : *right;
  const PointSet* probe = right ? (build_is_left ? right : &left) : nullptr;
  const int dim = static_cast<int>(left.dim);
  const DeviceBuffer<double> build_coords = upload(build);
  const DeviceBuffer<double> probe_coords = probe ? upload(*probe) : DeviceBuffer<double>();
  const DeviceBuffer<double> centre = float_centre(left, right);
  const FloatPoints build_float = float_points(build_coords.data(), build.n, dim, centre,
                                               stream.get());
  const FloatPoints probe_float =
      probe ? float_points(probe_coords.data(), probe->n, dim, centre, stream.get())
            : FloatPoints();
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  timer.mark("upload");
  if (stop_requested(sink, stats)) return;  // cancel between phases too
  const DeviceSzlIndex index =
      build_device_szl_index(build, build_coords.data(), szl_sort(), stream.get());
  std::uint32_t num_queries = index.listed;
  const DeviceBuffer<std::uint32_t> probe_ids =
      probe ? probe_order(index, probe_coords.data(), static_cast<std::uint32_t>(probe->n),
                          &num_queries, stream.get())
            : DeviceBuffer<std::uint32_t>();
  timer.mark("index");
  if (stop_requested(sink, stats)) return;

  SzlJoinArgs args;
  args.dim = dim;
  args.curves = index.curves;
  args.listed = index.listed;
  for (std::uint32_t c = 0; c < index.curves && c < kMaxSzlCurves; ++c)
    args.shifts[c] = index.shifts[c];
  args.order = index.order.data();
  args.prefixes = index.prefixes.data();
  args.quantized = index.quantized.data();
  args.lo = index.lo.data();
  args.scale = index.scale;
  args.build_coords = build_coords.data();
  args.build_float = build_float.coords.data();
  args.build_mag = build_float.mag.data();
  args.probe_coords = probe ? probe_coords.data() : build_coords.data();
  args.probe_float = probe ? probe_float.coords.data() : build_float.coords.data();
  args.probe_mag = probe ? probe_float.mag.data() : build_float.mag.data();
  args.query_ids = probe ? probe_ids.data() : index.order.data();  // self: curve 0's order
  args.num_queries = num_queries;
  args.self_join = probe == nullptr;
  args.build_is_left = build_is_left;
  args.radius = szl_box_radius(spec.eps);
  args.bound = bound;
  args.filter = filter_for(bound, spec, dim);
  DeviceBuffer<SzlInterval> intervals(num_queries);
  compute_szl_intervals(args, intervals.data(), stream.get());
  args.intervals = intervals.data();
  // The curve-ordered copies where they fit a quarter of the join's memory (the inputs take at
  // most half, the result buffers a quarter).
  DeviceBuffer<float> curve_float, curve_mag;
  DeviceBuffer<double> curve_first;
  const std::size_t copy_bytes = szl_curve_copy_bytes(index.curves, index.listed, dim);
  if (tuning().szl_curve_copies && copy_bytes <= join_memory_bytes(spec.device_memory_bytes) / 4) {
    const std::size_t rows = std::size_t(index.curves) * index.listed;
    curve_float.resize(rows * dim);
    curve_mag.resize(rows);
    curve_first.resize(rows);
    make_szl_curve_copies(args, curve_float.data(), curve_mag.data(), curve_first.data(),
                          stream.get());
    args.curve_float = curve_float.data();
    args.curve_mag = curve_mag.data();
    args.curve_first = curve_first.data();
    stats.algorithm = "gpu-szl-copies";
  }
  timer.mark("intervals");
  if (stop_requested(sink, stats)) return;
  const SzlJoinProducer producer(args, spec.metric);
  finish_join(producer, consume, right, spec, [&] { return self_matching_ids(left, spec); }, sink,
              stats);
}

// The most points a chunk may hold so that two chunks fit the input budget (the tuning's, else
// half the memory the join may use, less `extra_bytes`); 0 when the inputs fit as they are.
std::size_t chunk_points_for(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                             std::size_t extra_bytes = 0) {
  std::size_t budget = tuning().input_bytes;
  if (budget == 0) budget = join_memory_bytes(spec.device_memory_bytes) / 2;
  budget = budget > extra_bytes ? budget - extra_bytes : 0;
  std::size_t per_point = device_bytes_per_point(left.dim);
  if (spec.algorithm == Algorithm::Szl)
    per_point = std::max(per_point, szl_device_bytes_per_point(left.dim));
  const std::size_t points = left.n + (right ? right->n : 0);
  if (points * per_point <= budget) return 0;
  return std::max<std::size_t>(1, budget / (2 * per_point));
}

// The join of inputs that fit the device; `consume` (optional) takes the producer instead of
// the pair pipeline.
JoinStats run_join_on_device(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                             PairSink& sink, const ProducerConsumer* consume) {
  const DeviceInfo& device = use_device();
  JoinStats stats;
  stats.device = "gpu: " + device.name;
  stats.algorithm = "none";
  const bool nothing_matches = std::isnan(spec.eps) || spec.eps < 0.0;
  if (nothing_matches || left.n == 0 || (right && right->n == 0)) return stats;
  const double bound = accumulated_bound(spec.eps, spec.metric);
  PhaseClock timer(stats);

  if (spec.algorithm == Algorithm::Szl && std::isfinite(spec.eps) && left.dim > 0) {
    run_szl(left, right, spec, bound, sink, stats, timer, consume);
    return stats;
  }
  // The grid needs a finite eps and an indexable dimension; brute force covers the rest.
  if (spec.algorithm != Algorithm::BruteForce && std::isfinite(spec.eps) && left.dim > 0) {
    const GridPlan plan = plan_grid(left, right, spec.eps, spec.metric, spec.indexed_dims);
    const GridGeometry geometry = make_grid_geometry(plan, static_cast<int>(left.dim));
    timer.mark("plan");
    if (stop_requested(sink, stats)) return stats;  // cancel between phases too
    if (geometry.k > 0) {
      run_grid(left, right, spec, geometry, bound, sink, stats, timer, consume);
      return stats;
    }
  }
  run_brute_force(left, right, spec, bound, sink, stats, timer, consume);
  return stats;
}

JoinStats run_join_in_memory(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                             PairSink& sink) {
  return run_join_on_device(left, right, spec, sink, nullptr);
}

// Algorithm::Auto resolved with the GPU's prices: its estimates, and its time as phase "choose",
// into *choice (moved into the join's stats by report_choice). folded: the device aggregates
// consume the pairs, none leaves the device.
JoinSpec choose_gpu_algorithm(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                              JoinStats* choice, bool folded = false) {
  JoinSpec chosen = spec;
  if (spec.algorithm == Algorithm::Auto) {
    PhaseClock timer(*choice);
    AlgorithmChoice picked = choose_algorithm(left, right, spec, 1, true, gpu_algorithm_speeds());
    chosen.algorithm = picked.algorithm;
    if (picked.grid_work)
      price_engine_estimates(picked.estimates, *picked.grid_work, true, 1, measured_speeds(),
                             !folded);
    choice->estimates = std::move(picked.estimates);
    timer.mark("choose");
  }
  return chosen;
}

// The choice's estimates and phase into the join's stats (its phase first), where it chose.
void report_choice(JoinStats& stats, JoinStats&& choice) {
  if (choice.estimates.empty()) return;
  stats.estimates = std::move(choice.estimates);
  stats.phase_seconds.insert(stats.phase_seconds.begin(), choice.phase_seconds.begin(),
                             choice.phase_seconds.end());
}

// A cosine join: its brute force on tensor cores from end to end (cosine_tensor_join.cuh) where
// the inputs fit the device, else the algorithm chosen on unit vectors made on the host.
JoinStats run_cosine(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     PairSink& sink) {
  const DeviceInfo& device = use_device();
  JoinStats choice;
  const JoinSpec chosen = choose_gpu_algorithm(left, right, spec, &choice);
  const bool on_tensor_cores = chosen.algorithm == Algorithm::BruteForce &&
                               use_tensor_cores(Metric::Euclidean, left.dim) &&
                               chunk_points_for(left, right, chosen) == 0;
  JoinStats stats = on_tensor_cores ? run_cosine_tensor_join(left, right, chosen, sink)
                                    : run_cosine_join(left, right, chosen, run_join, sink);
  stats.device = "gpu: " + device.name;
  report_choice(stats, std::move(choice));
  return stats;
}

}  // namespace

JoinStats run_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                   PairSink& sink) {
  check_inputs(left, right);
  if (spec.metric == Metric::Cosine) return run_cosine(left, right, spec, sink);
  const DeviceInfo& device = use_device();
  // Auto: the algorithm priced cheapest on this device (engine/choice/algorithm_choice.h, the GPU's speeds).
  JoinStats choice;
  const JoinSpec chosen = choose_gpu_algorithm(left, right, spec, &choice);
  const std::size_t chunk_points = chunk_points_for(left, right, chosen);
  JoinStats stats = chunk_points == 0
                        ? run_join_in_memory(left, right, chosen, sink)
                        : run_chunked_join(left, right, chosen, chunk_points, run_join_in_memory, sink);
  stats.device = "gpu: " + device.name;  // also where every chunk pair was pruned
  report_choice(stats, std::move(choice));
  return stats;
}

ProducerPlan plan_producer_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                                std::size_t extra_bytes, bool fold_cosine) {
  ProducerPlan plan;
  plan.spec = spec;
  const bool cosine = spec.metric == Metric::Cosine;
  // A cosine join's pairs are decided on the device only by its brute force on tensor cores.
  if (cosine && !(fold_cosine && use_tensor_cores(Metric::Euclidean, left.dim))) return plan;
  use_device();
  plan.spec = choose_gpu_algorithm(left, right, spec, &plan.choice, true);
  plan.fits = (!cosine || plan.spec.algorithm == Algorithm::BruteForce) &&
              chunk_points_for(left, right, plan.spec, extra_bytes) == 0;
  return plan;
}

JoinStats run_producer_join(const PointSet& left, const PointSet* right, ProducerPlan plan,
                            PairSink& control, const ProducerConsumer& consume) {
  check_inputs(left, right);
  const DeviceInfo& device = use_device();
  JoinStats stats = plan.spec.metric == Metric::Cosine
                        ? run_cosine_tensor_join(left, right, plan.spec, control, &consume)
                        : run_join_on_device(left, right, plan.spec, control, &consume);
  stats.device = "gpu: " + device.name;
  report_choice(stats, std::move(plan.choice));
  return stats;
}

void add_choice(JoinStats& stats, ProducerPlan&& plan) {
  report_choice(stats, std::move(plan.choice));
}

double szl_index_seconds(const PointSet& points, bool compare_sort) {
  use_device();
  const DeviceBuffer<double> coords = upload(points);
  CudaStream stream;
  const auto start = std::chrono::steady_clock::now();
  const DeviceSzlIndex index = build_device_szl_index(
      points, coords.data(), compare_sort ? SzlSort::Compare : SzlSort::Keys, stream.get());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool memory_info(std::string* name, std::size_t* free_bytes, std::size_t* total_bytes) {
  if (!available(nullptr)) return false;
  const DeviceInfo& device = use_device();
  CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
  *name = device.name;
  return true;
}

void warm_up() {
  class Discard : public PairSink {
   public:
    bool consume(const PairBatch&) override { return true; }
  } sink;
  const double coords[4] = {0.0, 0.0, 0.5, 0.5};
  const PointSet points{coords, 2, 2};
  JoinSpec spec;
  spec.eps = 1.0;
  spec.device = Device::Gpu;
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
    spec.algorithm = algorithm;
    run_join(points, nullptr, spec, sink);
    run_join(points, &points, spec, sink);
  }
}

bool context_healthy() { return cudaDeviceSynchronize() == cudaSuccess; }

int gpu_count() { return usable_device_count(); }

void select_gpu(int index) { select_device(index); }

namespace {
__global__ void write_through(int* address) { *address = 1; }
}  // namespace

void poison_context_for_test() {
  write_through<<<1, 1>>>(reinterpret_cast<int*>(16));
  const cudaError_t status = cudaDeviceSynchronize();
  throw Error(std::string("simjoin: injected sticky CUDA error: ") + cudaGetErrorString(status));
}

}  // namespace simjoin::gpu
