#include "engine/join/brute_force.h"

#include <algorithm>

#include "engine/bounded_distance.h"
#include "engine/join/float_brute_force.h"
#include "engine/join/self_pairs.h"

namespace simjoin {
namespace {

constexpr std::size_t kStopCheckEvery = 4096;  // inner-loop candidates between stop checks

// Tests outer point `a` against inner points [begin, end) of `inner`; report(j, distance) returns
// false to stop. Returns false when stopped.
template <Metric M, typename Report>
bool scan_row(const double* a, const PointSet& inner, std::size_t begin, std::size_t end,
              double bound, BatchWriter& out, const Report& report) {
  double accumulated;
  for (std::size_t block = begin; block < end; block += kStopCheckEvery) {
    if (out.stopped()) return false;
    const std::size_t block_end = std::min(end, block + kStopCheckEvery);
    out.candidates += block_end - block;
    for (std::size_t j = block; j < block_end; ++j) {
      if (within_bound<M>(a, inner.point(j), inner.dim, bound, &accumulated) &&
          !report(j, finish_distance(accumulated, M))) {
        return false;
      }
    }
  }
  return true;
}

template <Metric M>
PipelineResult self_join(const PointSet& set, const JoinParams& params, PairSink& sink) {
  // Row i tests j >= i (All: (i, i) too); rows get shorter, so units are small.
  const std::size_t rows_per_unit = items_per_unit(set.n, params.threads, 1, 64);
  const std::size_t units = (set.n + rows_per_unit - 1) / rows_per_unit;
  const std::size_t first_offset = params.self_pairs == SelfPairs::All ? 0 : 1;
  auto work = [&](std::size_t unit, BatchWriter& out) {
    const std::size_t last = std::min(set.n, (unit + 1) * rows_per_unit);
    for (std::size_t i = unit * rows_per_unit; i < last; ++i) {
      const std::uint32_t id = static_cast<std::uint32_t>(i);
      const auto report = [&](std::size_t j, double distance) {
        return j == i ? out.add(id, id, distance)
                      : emit_self_match(out, id, static_cast<std::uint32_t>(j), distance,
                                        params.self_pairs);
      };
      if (!scan_row<M>(set.point(i), set, i + first_offset, set.n, params.bound, out, report)) {
        return;
      }
    }
  };
  return run_batch_pipeline(units, params.threads, params.batch_pairs, work, sink);
}

template <Metric M>
PipelineResult two_input_join(const PointSet& left, const PointSet& right,
                              const JoinParams& params, PairSink& sink) {
  // The larger side is the outer loop, so that there are enough rows to share out.
  const bool outer_is_left = left.n >= right.n;
  const PointSet& outer = outer_is_left ? left : right;
  const PointSet& inner = outer_is_left ? right : left;
  const std::size_t rows_per_unit = items_per_unit(outer.n, params.threads, 1, 256);
  const std::size_t units = (outer.n + rows_per_unit - 1) / rows_per_unit;
  auto work = [&](std::size_t unit, BatchWriter& out) {
    const std::size_t last = std::min(outer.n, (unit + 1) * rows_per_unit);
    for (std::size_t i = unit * rows_per_unit; i < last; ++i) {
      const std::uint32_t id = static_cast<std::uint32_t>(i);
      const auto report = [&](std::size_t j, double distance) {
        const std::uint32_t other = static_cast<std::uint32_t>(j);
        return outer_is_left ? out.add(id, other, distance) : out.add(other, id, distance);
      };
      if (!scan_row<M>(outer.point(i), inner, 0, inner.n, params.bound, out, report)) return;
    }
  };
  return run_batch_pipeline(units, params.threads, params.batch_pairs, work, sink);
}

}  // namespace

PipelineResult brute_force_join(const PointSet& left, const PointSet* right,
                                const JoinParams& params, PairSink& sink) {
  if (float_filter_applies(params.metric, left.dim)) {
    const FloatFilterInputs inputs =
        make_float_filter_inputs(left, right, params.bound, params.threads);
    if (!inputs.pass_all) return float_filtered_join(left, right, inputs, params, sink);
  }
  return with_metric(params.metric, [&](auto tag) {
    constexpr Metric M = decltype(tag)::value;
    return right ? two_input_join<M>(left, *right, params, sink) : self_join<M>(left, params, sink);
  });
}

}  // namespace simjoin
