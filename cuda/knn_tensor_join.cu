// The k-nearest-neighbour join on tensor cores (see knn_tensor_join.cuh).
#include "knn_tensor_join.cuh"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include "cosine_rows.cuh"
#include "cuda_check.h"
#include "cuda_stream.h"
#include "device_buffer.h"
#include "engine/cosine.h"
#include "engine/distance.h"
#include "engine/join/filter_scale.h"
#include "engine/join/input_checks.h"
#include "engine/knn/nearest_selection.h"
#include "engine/parallel/phase_clock.h"
#include "gpu_backend.h"
#include "gpu_device.cuh"
#include "gpu_tuning.h"
#include "knn_tensor_kernel.cuh"
#include "pair_pipeline.cuh"
#include "tensor_join_kernel.cuh"
#include "warp_top_k.cuh"

namespace simjoin::gpu {
namespace {

// One input as the passes read it: the exact rows (coordinates, or cosine's scaled rows and
// norms) and the rows the FP16 copies are made of (the coordinates, or the unit vectors).
struct KnnSide {
  DeviceBuffer<double> coords;  // Euclidean
  CosineRows cosine;            // cosine
  const double* exact() const { return cosine.n ? cosine.scaled.data() : coords.data(); }
  const double* filtered() const { return cosine.n ? cosine.unit.data() : coords.data(); }
  const double* norm() const { return cosine.n ? cosine.norm.data() : nullptr; }
};

KnnSide load_side(const PointSet& points, bool cosine, cudaStream_t stream) {
  KnnSide side;
  if (cosine)
    side.cosine = prepare_cosine_rows(points, stream);
  else
    side.coords = upload(points.coords, points.n * points.dim);
  return side;
}

// The largest non-NaN value of a device array of floats (0 when there is none).
struct Larger {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }  // drops NaN
};
float largest(const float* values, std::size_t n, cudaStream_t stream) {
  const thrust::device_ptr<const float> first(values);
  return thrust::reduce(thrust::cuda::par.on(stream), first, first + n, 0.0f, Larger());
}

// The candidates' largest bound terms: with them, one test covers every unpicked candidate.
struct CandidateMaxima {
  float reach, norm, slack;
};
CandidateMaxima candidate_maxima(const HalfPoints& points, std::uint32_t n, cudaStream_t stream) {
  return {largest(points.reach.data(), n, stream), largest(points.norm.data(), n, stream),
          largest(points.slack.data(), n, stream)};
}

// Each query's plan after the picks, from its bound U = min(k-th pick distance, eps) (limit):
// settled (no unpicked candidate can be within U: the picks hold the answer) or searched again
// with the second pass, whose filter widens the query's own reach by the scaled reach of U.
struct QueryPlan {
  std::vector<double> limit;
  std::vector<float> reach;
  std::vector<std::uint32_t> searched;  // the uncertain queries, ascending
};
QueryPlan plan_queries(const std::vector<double>& kth, const std::vector<float>& unpicked,
                       const HalfPoints& left, const CandidateMaxima& maxima, float gemm,
                       const KnnSpec& spec, std::size_t dim, double scale, double margin,
                       cudaStream_t stream) {
  const std::size_t n = kth.size();
  const std::vector<float> own_reach = to_host(left.reach, stream);
  const std::vector<float> norm = to_host(left.norm, stream);
  const std::vector<float> slack = to_host(left.slack, stream);
  const bool cosine = spec.metric == Metric::Cosine;
  QueryPlan plan;
  plan.limit.resize(n);
  plan.reach.resize(n);
  for (std::size_t q = 0; q < n; ++q) {
    const double limit = std::min(kth[q], spec.eps);
    plan.limit[q] = limit;
    const double radius = cosine ? cosine_candidate_radius(limit, dim) : limit;
    const double e = std::isinf(radius) ? radius
                                        : scaled_reach(accumulated_bound(radius, Metric::Euclidean),
                                                       dim, scale, margin);
    plan.reach[q] = round_up_to_float(static_cast<double>(own_reach[q]) +
                                      static_cast<double>(round_up_to_float(e)));
    // Every unpicked candidate's FP16 distance is >= unpicked[q]; the float test with the
    // largest terms fails for all of them at once, or +infinity: every candidate was picked.
    const bool certain = unpicked[q] == std::numeric_limits<float>::infinity() ||
                         !approx_may_match(unpicked[q], plan.reach[q] + maxima.reach,
                                           gemm * norm[q], maxima.norm, slack[q], maxima.slack);
    if (!certain || !tuning().knn_settle) plan.searched.push_back(static_cast<std::uint32_t>(q));
  }
  return plan;
}

// Adds the settled queries' nearest picks (k a query, nearest first, UINT32_MAX after the last)
// within their limits to `out`; false once the sink has stopped.
bool hand_over_settled(const std::vector<std::uint32_t>& nearest,
                       const std::vector<double>& distance, const QueryPlan& plan, int k,
                       PairHandOver& out) {
  std::size_t next_searched = 0;
  const std::size_t n = plan.limit.size();
  for (std::size_t q = 0; q < n; ++q) {
    if (next_searched < plan.searched.size() && plan.searched[next_searched] == q) {
      ++next_searched;
      continue;
    }
    for (std::size_t at = q * k; at < (q + 1) * k; ++at) {
      if (nearest[at] == UINT32_MAX || !(distance[at] <= plan.limit[q])) break;
      if (!out.add(static_cast<std::uint32_t>(q), nearest[at], distance[at])) return false;
    }
  }
  return true;
}

// The searched queries' rows, gathered: what the second pass reads of its queries.
struct SearchedRows {
  DeviceBuffer<std::uint32_t> ids;
  DeviceBuffer<double> exact, norm;  // norm: cosine only
  HalfPoints half;
};
SearchedRows gather_searched(const QueryPlan& plan, const TensorInputs& inputs,
                             const KnnExactRows& exact, cudaStream_t stream) {
  const auto m = static_cast<std::uint32_t>(plan.searched.size());
  const std::uint64_t padded = (m + 127) / 128 * 128 + 128;  // as half_points pads
  const float nan = std::numeric_limits<float>::quiet_NaN();
  SearchedRows rows;
  rows.ids = to_device(plan.searched, stream);
  const std::uint32_t* ids = rows.ids.data();
  rows.exact.resize(std::size_t(m) * exact.dim);
  gather_rows(exact.left, ids, m, m, exact.dim, 0.0, rows.exact.data(), stream);
  if (exact.left_norm) {
    rows.norm.resize(m);
    gather_rows(exact.left_norm, ids, m, m, 1, 0.0, rows.norm.data(), stream);
  }
  const HalfPoints& all = inputs.left;
  rows.half.coords.resize(padded * inputs.padded_dim);
  gather_rows(all.coords.data(), ids, m, padded, inputs.padded_dim, __float2half_rn(0.0f),
              rows.half.coords.data(), stream);
  for (auto [from, to] : {std::pair{&all.norm2, &rows.half.norm2}, {&all.norm, &rows.half.norm},
                          {&all.slack, &rows.half.slack}}) {
    to->resize(padded);
    gather_rows(from->data(), ids, m, padded, 1, nan, to->data(), stream);
  }
  std::vector<float> reach(padded, nan);
  for (std::uint32_t r = 0; r < m; ++r) reach[r] = plan.reach[plan.searched[r]];
  rows.half.reach = to_device(reach, stream);
  return rows;
}

}  // namespace

static_assert(kGpuKnnMaxK == static_cast<std::size_t>(kWarpTopKMax),
              "the engine's test of what the GPU takes matches the warp's top-k");

bool runs_knn(const KnnSpec& spec) { return gpu_takes_knn(spec); }

JoinStats run_knn_tensor_join(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                              PairSink& sink) {
  check_inputs(left, right);
  JoinStats stats;
  stats.device = "gpu: " + use_device().name;
  stats.algorithm = "knn tensor-core";
  if (!runs_knn(spec))
    throw Error("the GPU's kNN join takes Euclidean or cosine distance and k from 1 to 32");
  const bool self = right == nullptr;
  if (!(spec.eps >= 0.0) || left.n == 0 || (right && right->n == 0)) return stats;
  PhaseClock timer(stats);
  const auto stopped = [&] { return stats.stopped = !sink.keep_going(); };
  const bool cosine = spec.metric == Metric::Cosine;
  const int dim = static_cast<int>(left.dim);
  const auto n_left = static_cast<std::uint32_t>(left.n);
  const auto n_right = static_cast<std::uint32_t>(self ? left.n : right->n);
  CudaStream stream;
  KnnSide left_side = load_side(left, cosine, stream.get());
  std::optional<KnnSide> right_own;
  if (!self) right_own.emplace(load_side(*right, cosine, stream.get()));
  const KnnSide& right_side = self ? left_side : *right_own;
  if (!cosine && std::isinf(spec.eps) &&
      (any_infinity(left_side.coords.data(), left.n * left.dim, stream.get()) ||
       (!self && any_infinity(right_side.coords.data(), right->n * right->dim, stream.get())))) {
    // Without a limit, partners at an infinite distance count (ranked by index), which the
    // filter cannot see: the CPU engine answers such inputs.
    KnnSpec on_cpu = spec;
    on_cpu.device = Device::Cpu;
    return ::simjoin::run_knn_join(left, right, on_cpu, sink);
  }
  const double margin = tuning().float_margin;
  const TensorInputs inputs =
      make_tensor_inputs(left_side.filtered(), n_left, self ? nullptr : right_side.filtered(),
                         n_right, dim, 0.0, margin, false, stream.get());
  const HalfRows left_half = rows_of(inputs.left);
  const HalfRows right_half = self ? left_half : rows_of(inputs.right);
  timer.mark("upload");
  if (stopped()) return stats;

  // Pass 1: the picks, their exact distances, and which queries they settle.
  KnnPickArgs pick;
  pick.left_half = left_half;
  pick.right_half = right_half;
  pick.n_left = n_left;
  pick.n_right = n_right;
  pick.padded_dim = inputs.padded_dim;
  pick.skip_diagonal = self && !spec.include_self;
  pick.splits = knn_pick_splits(n_left, n_right, static_cast<int>(spec.k));
  pick.picks_per_split = knn_picks_per_split(static_cast<int>(spec.k));
  DeviceBuffer<std::uint32_t> picks(std::size_t(n_left) * pick.splits * pick.picks_per_split);
  DeviceBuffer<float> split_unpicked(std::size_t(n_left) * pick.splits);
  pick.picks = picks.data();
  pick.unpicked = split_unpicked.data();
  pick_nearest(pick, stream.get());
  const KnnExactRows exact{left_side.exact(), right_side.exact(), left_side.norm(),
                           right_side.norm(), dim};
  const int k = static_cast<int>(spec.k);
  DeviceBuffer<std::uint32_t> nearest(std::size_t(n_left) * k);
  DeviceBuffer<double> nearest_distance(std::size_t(n_left) * k), kth(n_left);
  DeviceBuffer<float> unpicked(n_left);
  exact_picks(pick, k, exact,
              KnnPickResult{nearest.data(), nearest_distance.data(), kth.data(), unpicked.data()},
              stream.get());
  stats.candidates = std::uint64_t(n_left) * n_right;
  const QueryPlan plan = plan_queries(
      to_host(kth, stream.get()), to_host(unpicked, stream.get()), inputs.left,
      candidate_maxima(self ? inputs.left : inputs.right, n_right, stream.get()),
      inputs.filter.gemm, spec, left.dim, inputs.scale, margin, stream.get());
  picks = DeviceBuffer<std::uint32_t>();
  split_unpicked = DeviceBuffer<float>();
  timer.mark("pick");
  if (stopped()) return stats;

  // The settled queries' answers: their nearest picks within the limit, handed over now.
  PairHandOver out(sink, spec.batch_pairs);
  const auto hand_over_stopped = [&] {
    stats.pairs = out.pairs();
    stats.batches = out.batches();
    stats.stopped = true;
    return stats;
  };
  if (plan.searched.size() < n_left &&
      !hand_over_settled(to_host(nearest, stream.get()), to_host(nearest_distance, stream.get()),
                         plan, k, out))
    return hand_over_stopped();
  timer.mark("settled");
  NearestSelection selection(n_left, spec.k, sink);

  // Pass 2 for the others: every pair within the query's radius, decided exactly.
  if (!plan.searched.empty()) {
    const SearchedRows rows = gather_searched(plan, inputs, exact, stream.get());
    // What the exact test accepts: the accumulated bound of U, or U itself for cosine.
    std::vector<double> row_bound(plan.searched.size());
    for (std::size_t r = 0; r < row_bound.size(); ++r) {
      const double limit = plan.limit[plan.searched[r]];
      row_bound[r] = cosine ? limit : accumulated_bound(limit, Metric::Euclidean);
    }
    const DeviceBuffer<double> device_row_bound = to_device(row_bound, stream.get());
    const auto m = static_cast<std::uint32_t>(plan.searched.size());
    TensorJoinArgs args = tensor_join_args(inputs, rows.exact.data(), m, exact.right, n_right,
                                           dim, 0.0);
    args.self_join = false;  // every (q, j); the diagonal by its left id
    args.left_half = rows_of(rows.half);
    args.right_half = right_half;
    args.row_bound = device_row_bound.data();
    args.skip_diagonal = pick.skip_diagonal;
    args.left_ids = rows.ids.data();
    if (cosine) {
      args.cosine.left_norm = rows.norm.data();
      args.cosine.right_norm = exact.right_norm;
    }
    const TensorJoinProducer producer(args);
    selection.map_left(plan.searched.data());
    JoinStats pass;
    JoinSpec pipeline_spec;
    pipeline_spec.batch_pairs = 0;
    if (!stream_pairs(producer, pipeline_options(true, pipeline_spec, nullptr), selection, pass))
      return hand_over_stopped();
    stats.candidates += pass.candidates;
    stats.phase_seconds.insert(stats.phase_seconds.end(), pass.phase_seconds.begin(),
                               pass.phase_seconds.end());
    timer.restart();
  }
  if (!selection.emit(out) || !out.finish()) return hand_over_stopped();
  stats.pairs = out.pairs();
  stats.batches = out.batches();
  timer.mark("select");
  return stats;
}

JoinStats run_knn_join(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                       PairSink& sink) {
  return run_knn_tensor_join(left, right, spec, sink);
}

}  // namespace simjoin::gpu
