#include "engine/knn/knn_join.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "engine/bounded_distance.h"
#include "engine/cosine.h"
#include "engine/join/input_checks.h"
#include "engine/join_backend.h"
#include "engine/knn/neighbour_heap.h"
#include "engine/knn/sorted_projection.h"
#include "engine/parallel/batch_pipeline.h"
#include "engine/parallel/phase_clock.h"

namespace simjoin {

namespace {

// The join as every search sees it: right is left in a self-join.
struct KnnInputs {
  PointSet left;
  PointSet right;
  bool self;       // right is left
  bool skip_self;  // a self-join without (i, i)
  const KnnSpec* spec;
};

bool has_nan(const double* p, std::size_t dim) {
  for (std::size_t j = 0; j < dim; ++j)
    if (std::isnan(p[j])) return true;
  return false;
}

// Hands one query's neighbours to the batch, nearest first. False once the join must stop.
bool emit(std::size_t query, NeighbourHeap& heap, BatchWriter& out) {
  for (const Neighbour& n : heap.sorted())
    if (!out.add(static_cast<std::uint32_t>(query), n.index, n.distance)) return false;
  return true;
}

// Brute force over left rows [begin, end): blocks of kRows queries against tiles of kTile right
// points (a tile stays in cache while the block's queries scan it), each candidate with the early
// exit at its query's current bound. `test(a, j, bound, &distance)` decides one candidate.
template <typename Test>
void brute_force_rows(const KnnInputs& in, std::size_t begin, std::size_t end, BatchWriter& out,
                      const Test& test, const std::vector<bool>& no_partner) {
  constexpr std::size_t kRows = 8, kTile = 512;
  const KnnSpec& spec = *in.spec;
  std::vector<NeighbourHeap> heaps(kRows, NeighbourHeap(spec.k, spec.eps, spec.metric));
  for (std::size_t first = begin; first < end; first += kRows) {
    const std::size_t rows = std::min(kRows, end - first);
    for (NeighbourHeap& heap : heaps) heap.reset();
    for (std::size_t tile = 0; tile < in.right.n; tile += kTile) {
      if (out.stopped()) return;
      const std::size_t tile_end = std::min(tile + kTile, in.right.n);
      for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t i = first + r;
        if (no_partner[i]) continue;
        NeighbourHeap& heap = heaps[r];
        for (std::size_t j = tile; j < tile_end; ++j) {
          if (in.skip_self && j == i) continue;
          double distance;
          if (test(i, j, heap.bound(), &distance))
            heap.offer(distance, static_cast<std::uint32_t>(j));
        }
        out.candidates += tile_end - tile;
      }
    }
    for (std::size_t r = 0; r < rows; ++r)
      if (!emit(first + r, heaps[r], out)) return;
  }
}

// brute_force_rows over every left row, in work units of the batch pipeline.
template <typename Test>
PipelineResult run_brute_force_units(const KnnInputs& in, PairSink& sink, int threads,
                                     const Test& test, const std::vector<bool>& no_partner) {
  const std::size_t per_unit = items_per_unit(in.left.n, threads, 8, 256);
  const std::size_t units = (in.left.n + per_unit - 1) / per_unit;
  return run_batch_pipeline(
      units, threads, in.spec->batch_pairs,
      [&](std::size_t unit, BatchWriter& out) {
        const std::size_t begin = unit * per_unit;
        brute_force_rows(in, begin, std::min(begin + per_unit, in.left.n), out, test, no_partner);
      },
      sink);
}

// Rows whose every distance is NaN (a NaN coordinate; for cosine, no direction).
std::vector<bool> rows_without_partner(const PointSet& left, const std::vector<double>* norms) {
  std::vector<bool> none(left.n);
  for (std::size_t i = 0; i < left.n; ++i)
    none[i] = norms ? std::isnan((*norms)[i]) : has_nan(left.point(i), left.dim);
  return none;
}

// Cosine: every point scaled once (cosine.h's a' and |a'|), each candidate by cosine_from_scaled,
// which is cosine_distance to the bit. No early exit: the distance is not a sum of terms.
struct ScaledSide {
  std::vector<double> scaled, norm;
  explicit ScaledSide(const PointSet& points) : scaled(points.n * points.dim), norm(points.n) {
    std::vector<double> unit(points.dim);
    for (std::size_t i = 0; i < points.n; ++i)
      norm[i] = cosine_prepare(points.point(i), points.dim, scaled.data() + i * points.dim,
                               unit.data());
  }
  const double* point(std::size_t i, std::size_t dim) const { return scaled.data() + i * dim; }
};

PipelineResult run_cosine(const KnnInputs& in, PairSink& sink, int threads) {
  const std::size_t dim = in.left.dim;
  const ScaledSide left(in.left);
  std::optional<ScaledSide> right_own;
  if (!in.self) right_own.emplace(in.right);
  const ScaledSide& right = in.self ? left : *right_own;
  const std::vector<bool> no_partner = rows_without_partner(in.left, &left.norm);
  auto test = [&](std::size_t i, std::size_t j, double bound, double* distance) {
    if (std::isnan(right.norm[j])) return false;
    *distance = cosine_from_scaled(left.point(i, dim), left.norm[i], right.point(j, dim),
                                   right.norm[j], dim);
    return *distance <= bound;
  };
  return run_brute_force_units(in, sink, threads, test, no_partner);
}

template <Metric M>
PipelineResult run_brute_force(const KnnInputs& in, PairSink& sink, int threads) {
  const std::size_t dim = in.left.dim;
  const std::vector<bool> no_partner = rows_without_partner(in.left, nullptr);
  auto test = [&](std::size_t i, std::size_t j, double bound, double* distance) {
    double accumulated;
    if (!within_bound<M>(in.left.point(i), in.right.point(j), dim, bound, &accumulated))
      return false;
    *distance = finish_distance(accumulated, M);
    return true;
  };
  return run_brute_force_units(in, sink, threads, test, no_partner);
}

template <Metric M>
PipelineResult run_projection(const KnnInputs& in, PairSink& sink, int threads) {
  const SortedProjection projection(in.right);
  const KnnSpec& spec = *in.spec;
  const std::size_t per_unit = items_per_unit(in.left.n, threads, 16, 1024);
  const std::size_t units = (in.left.n + per_unit - 1) / per_unit;
  return run_batch_pipeline(
      units, threads, spec.batch_pairs,
      [&](std::size_t unit, BatchWriter& out) {
        NeighbourHeap heap(spec.k, spec.eps, M);
        const std::size_t begin = unit * per_unit, end = std::min(begin + per_unit, in.left.n);
        for (std::size_t i = begin; i < end; ++i) {
          if (out.stopped()) return;
          const double* a = in.left.point(i);
          if (has_nan(a, in.left.dim)) continue;
          heap.reset();
          out.candidates += projection.search<M>(a, in.skip_self ? i : kNoSkip, heap);
          if (!emit(i, heap, out)) return;
        }
      },
      sink);
}

}  // namespace

bool gpu_takes_knn(const KnnSpec& spec) {
  return (spec.metric == Metric::Euclidean || spec.metric == Metric::Cosine) && spec.k >= 1 &&
         spec.k <= kGpuKnnMaxK;
}

bool knn_prefers_gpu(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                     int cpu_threads) {
  if (!gpu_takes_knn(spec)) return false;
  if (spec.metric != Metric::Cosine && left.dim <= kKnnProjectionMaxDim) return false;
  // The CPU's blocked scan: about 0.5 ns a coordinate on a core (its early exit at the k-th
  // distance reads a part of each candidate); a service job costs a few milliseconds besides.
  constexpr double kCpuSecondsPerTerm = 0.5e-9, kJobSeconds = 0.005;
  const double right_n = static_cast<double>(right ? right->n : left.n);
  const double cpu_seconds = static_cast<double>(left.n) * right_n *
                             static_cast<double>(left.dim) * kCpuSecondsPerTerm /
                             std::max(1, cpu_threads);
  return cpu_seconds > 4 * kJobSeconds;
}

JoinStats run_knn_join(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                       PairSink& sink) {
  check_inputs(left, right);
  if (spec.device != Device::Cpu) {
    JoinBackend* gpu = installed_gpu_backend();
    std::string why = "no GPU backend in this process";
    const bool usable = gpu && gpu->usable(&why);
    if (spec.device == Device::Gpu && !usable) throw Error("simjoin: no usable GPU: " + why);
    if (usable && gpu->runs_knn(spec)) return gpu->run_knn(left, right, spec, sink);
  }
  JoinStats stats;
  stats.device = "cpu";
  const bool self = right == nullptr;
  const KnnInputs in{left, self ? left : *right, self, self && !spec.include_self, &spec};
  const bool projection =
      spec.metric != Metric::Cosine && spec.algorithm != KnnAlgorithm::BruteForce &&
      (spec.algorithm == KnnAlgorithm::SortedProjection || left.dim <= kKnnProjectionMaxDim);
  stats.algorithm = projection ? "knn sorted-projection" : "knn brute-force";
  if (spec.k == 0 || !(spec.eps >= 0.0) || in.left.n == 0 || in.right.n == 0) return stats;
  const int threads = resolve_thread_count(spec.threads);
  PhaseClock clock(stats);
  PipelineResult result;
  if (spec.metric == Metric::Cosine) {
    result = run_cosine(in, sink, threads);
  } else {
    result = with_metric(spec.metric, [&](auto tag) {
      constexpr Metric M = decltype(tag)::value;
      return projection ? run_projection<M>(in, sink, threads)
                        : run_brute_force<M>(in, sink, threads);
    });
  }
  clock.mark("search");
  stats.batches = result.batches;
  stats.pairs = result.pairs;
  stats.candidates = result.candidates;
  stats.stopped = result.stopped;
  return stats;
}

}  // namespace simjoin
