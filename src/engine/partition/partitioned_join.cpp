#include "engine/partition/partitioned_join.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>

#include "engine/parallel/pair_stream.h"

namespace simjoin {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kPoll(2);  // a wait while no part has anything

// A region's points, copied contiguous, and where each came from. In a self-join `right` holds
// the halo only (the home points join among themselves); between two sets every right point
// that reaches the region.
struct RegionInput {
  std::vector<double> left_coords;
  std::vector<double> right_coords;
  std::vector<std::uint32_t> left_index;   // local -> the caller's left index (ascending)
  std::vector<std::uint32_t> right_index;  // local -> the caller's right (self: left) index
};

void append(std::vector<double>* coords, std::vector<std::uint32_t>* index, const PointSet& set,
            std::size_t i) {
  coords->insert(coords->end(), set.point(i), set.point(i) + set.dim);
  index->push_back(static_cast<std::uint32_t>(i));
}

// Each point's regions found once (in a self-join reach() gives its home first, then its halo).
std::vector<RegionInput> split_inputs(const PointSet& left, const PointSet* right,
                                      const RegionPartition& partition) {
  std::vector<RegionInput> inputs(partition.regions());
  std::vector<std::size_t> reach;
  for (std::size_t i = 0; i < left.n; ++i) {
    if (right) {  // two sets: the left side's homes; the right side's reach below
      RegionInput& home = inputs[partition.home(left.point(i), left.dim)];
      append(&home.left_coords, &home.left_index, left, i);
      continue;
    }
    partition.reach(left.point(i), left.dim, &reach);
    append(&inputs[reach[0]].left_coords, &inputs[reach[0]].left_index, left, i);
    for (std::size_t k = 1; k < reach.size(); ++k)
      append(&inputs[reach[k]].right_coords, &inputs[reach[k]].right_index, left, i);
  }
  for (std::size_t j = 0; right && j < right->n; ++j) {
    partition.reach(right->point(j), right->dim, &reach);
    for (std::size_t r : reach) append(&inputs[r].right_coords, &inputs[r].right_index, *right, j);
  }
  return inputs;
}

// One join of a region: its home points with themselves (a self-join's first part) or with the
// region's right points; `unique`: keep a pair only where its left index is the smaller.
struct RegionPart {
  std::size_t region;
  PointSet left;
  PointSet right;  // n == 0: the home points with themselves
  const std::vector<std::uint32_t>* left_index;
  const std::vector<std::uint32_t>* right_index;
  JoinSpec spec;
  bool unique;
};

std::vector<RegionPart> region_parts(const std::vector<RegionInput>& inputs, std::size_t dim,
                                     bool self, const JoinSpec& spec) {
  std::vector<RegionPart> parts;
  JoinSpec two_sets = spec;
  two_sets.self_pairs = SelfPairs::All;
  const bool unique = self && spec.self_pairs == SelfPairs::Unique;
  for (std::size_t r = 0; r < inputs.size(); ++r) {
    const RegionInput& in = inputs[r];
    const PointSet home{in.left_coords.data(), in.left_index.size(), dim};
    const PointSet others{in.right_coords.data(), in.right_index.size(), dim};
    if (home.n == 0) continue;
    // Home pairs in a self-join: their local order is the callers' (ascending), so Unique's
    // (smaller, larger) maps to the caller's as it is.
    if (self) parts.push_back({r, home, PointSet{}, &in.left_index, &in.left_index, spec, false});
    if (others.n > 0) parts.push_back({r, home, others, &in.left_index, &in.right_index, two_sets,
                                       unique});
  }
  return parts;
}

}  // namespace

JoinStats run_partitioned_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                               const RegionPartition& partition, PairSink& sink,
                               const PartitionedJoinOptions& options,
                               std::vector<RegionRun>* runs) {
  const Clock::time_point begin = Clock::now();
  const PointSet& other = right ? *right : left;
  if (right && right->dim != left.dim) throw Error("the two sides have different dimensions");
  if (left.n > UINT32_MAX || other.n > UINT32_MAX)
    throw Error("more than 2^32 - 1 points on a side");
  const std::size_t regions = partition.regions();
  const std::vector<RegionInput> inputs = split_inputs(left, right, partition);
  const std::vector<RegionPart> parts = region_parts(inputs, left.dim, right == nullptr, spec);

  std::vector<RegionRun> region_runs(regions);
  for (std::size_t r = 0; r < regions; ++r) {
    region_runs[r].home_points = inputs[r].left_index.size();
    region_runs[r].reach_points =
        inputs[r].right_index.size() + (right ? 0 : region_runs[r].home_points);
  }
  std::vector<Clock::time_point> started(parts.size());
  std::vector<std::unique_ptr<PairStream>> streams(parts.size());
  // Parts, not regions, run at once: a self-join's region has two, on the same GPU.
  const std::size_t at_once = options.concurrent ? options.concurrent : parts.size();
  std::size_t next_part = 0, running = 0;
  auto start_next = [&] {
    for (; next_part < parts.size() && running < at_once; ++next_part) {
      const RegionPart& part = parts[next_part];
      PairStream::Options stream_options;
      stream_options.interrupted = options.interrupted;
      if (options.on_region_thread)
        stream_options.on_start = [&options, r = part.region] { options.on_region_thread(r); };
      // The caller's indices, mapped on the region's own thread (the regions in parallel).
      stream_options.map_pairs = [&part](std::uint32_t* l, std::uint32_t* o, double* d,
                                         std::size_t size) {
        std::size_t kept = 0;
        for (std::size_t k = 0; k < size; ++k) {
          const std::uint32_t left_index = (*part.left_index)[l[k]];
          const std::uint32_t right_index = (*part.right_index)[o[k]];
          if (part.unique && !(left_index < right_index)) continue;
          l[kept] = left_index;
          o[kept] = right_index;
          d[kept] = d[k];
          ++kept;
        }
        return kept;
      };
      started[next_part] = Clock::now();
      streams[next_part] = std::make_unique<PairStream>(
          part.left, part.right.n > 0 ? &part.right : nullptr, part.spec, stream_options);
      ++running;
    }
  };

  JoinStats total;
  std::exception_ptr error;
  // One step of part p: its next batch (mapped, filtered, to the sink) or its end. Whether
  // anything came.
  std::size_t last_active = 0;
  auto step = [&](std::size_t p, std::chrono::milliseconds wait) {
    const RegionPart& part = parts[p];
    StreamBatch batch;
    const BatchSource::Next next = streams[p]->next(&batch, wait);
    if (next == BatchSource::Next::Timeout) return false;
    last_active = p;
    if (next == BatchSource::Next::Batch) {  // mapped by the region's thread (map_pairs)
      region_runs[part.region].pairs += batch.size;
      total.pairs += batch.size;
      ++total.batches;
      if (!sink.consume(PairBatch{batch.left, batch.right, batch.distance, batch.size}))
        total.stopped = true;
      return true;
    }
    if (streams[p]->error()) error = streams[p]->error();
    const JoinStats& stats = streams[p]->stats();
    if (stats.stopped) total.stopped = true;  // interrupted: the answer is incomplete
    total.candidates += stats.candidates;
    if (total.device.empty()) {
      total.device = stats.device;
      total.algorithm = stats.algorithm;
    }
    RegionRun& run = region_runs[part.region];
    run.seconds =
        std::max(run.seconds, std::chrono::duration<double>(Clock::now() - started[p]).count());
    streams[p].reset();
    --running;
    start_next();
    return true;
  };

  start_next();
  while (running > 0 && !error && !total.stopped) {
    // Every part without waiting; when none had anything, wait on the one heard from last (the
    // likeliest to speak next), so that a single busy part costs no polling delay.
    bool any = false;
    for (std::size_t p = 0; p < parts.size() && !error && !total.stopped; ++p) {
      if (streams[p]) any = step(p, std::chrono::milliseconds(0)) || any;
    }
    if (!any && !error && !total.stopped) {
      std::size_t p = last_active;
      for (std::size_t k = 0; k < parts.size() && !streams[p]; ++k) p = (p + 1) % parts.size();
      if (streams[p]) step(p, kPoll);
    }
    if (!total.stopped && !sink.keep_going()) total.stopped = true;
  }
  for (std::unique_ptr<PairStream>& stream : streams) stream.reset();  // stops and joins each
  if (error) std::rethrow_exception(error);
  total.phase_seconds.emplace_back(
      "regions", std::chrono::duration<double>(Clock::now() - begin).count());
  if (runs) *runs = std::move(region_runs);
  return total;
}

}  // namespace simjoin
