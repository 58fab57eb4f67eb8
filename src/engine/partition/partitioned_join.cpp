#include "engine/partition/partitioned_join.h"

#include <chrono>
#include <exception>
#include <memory>

#include "engine/parallel/batch_pipeline.h"
#include "engine/parallel/pair_stream.h"

namespace simjoin {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kPoll(2);  // per region and round, while none has a batch

// A region's points, copied contiguous, and where each came from.
struct RegionInput {
  std::vector<double> left_coords;
  std::vector<double> right_coords;
  std::vector<std::uint32_t> left_index;   // local -> the caller's left index
  std::vector<std::uint32_t> right_index;  // local -> the caller's right (self: left) index
};

void append(std::vector<double>* coords, std::vector<std::uint32_t>* index, const PointSet& set,
            std::size_t i) {
  coords->insert(coords->end(), set.point(i), set.point(i) + set.dim);
  index->push_back(static_cast<std::uint32_t>(i));
}

std::vector<RegionInput> split_inputs(const PointSet& left, const PointSet& other,
                                      const RegionPartition& partition) {
  std::vector<RegionInput> inputs(partition.regions());
  for (std::size_t i = 0; i < left.n; ++i) {
    RegionInput& input = inputs[partition.home(left.point(i), left.dim)];
    append(&input.left_coords, &input.left_index, left, i);
  }
  std::vector<std::size_t> reach;
  for (std::size_t j = 0; j < other.n; ++j) {
    partition.reach(other.point(j), other.dim, &reach);
    for (std::size_t r : reach) append(&inputs[r].right_coords, &inputs[r].right_index, other, j);
  }
  return inputs;
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
  const std::vector<RegionInput> inputs = split_inputs(left, other, partition);
  const bool unique = !right && spec.self_pairs == SelfPairs::Unique;
  JoinSpec region_spec = spec;
  region_spec.self_pairs = SelfPairs::All;  // each region is a join of two sets

  std::vector<RegionRun> region_runs(regions);
  std::vector<Clock::time_point> started(regions);
  std::vector<std::unique_ptr<PairStream>> streams(regions);
  const std::size_t at_once = options.concurrent ? options.concurrent : regions;
  std::size_t next_region = 0, running = 0;
  auto start_next = [&] {
    for (; next_region < regions && running < at_once; ++next_region) {
      const std::size_t r = next_region;
      const RegionInput& input = inputs[r];
      region_runs[r].home_points = input.left_index.size();
      region_runs[r].reach_points = input.right_index.size();
      if (input.left_index.empty() || input.right_index.empty()) continue;  // no pair there
      PairStream::Options stream_options;
      stream_options.interrupted = options.interrupted;
      if (options.on_region_thread)
        stream_options.on_start = [&options, r] { options.on_region_thread(r); };
      const PointSet region_left{input.left_coords.data(), input.left_index.size(), left.dim};
      const PointSet region_right{input.right_coords.data(), input.right_index.size(), left.dim};
      started[r] = Clock::now();
      streams[r] = std::make_unique<PairStream>(region_left, &region_right, region_spec,
                                                stream_options);
      ++running;
    }
  };

  JoinStats total;
  std::exception_ptr error;
  OwnedPairBatch merged;
  start_next();
  while (running > 0 && !error && !total.stopped) {
    bool any_batch = false;
    for (std::size_t r = 0; r < regions && !error && !total.stopped; ++r) {
      if (!streams[r]) continue;
      StreamBatch batch;
      const BatchSource::Next next =
          streams[r]->next(&batch, any_batch ? std::chrono::milliseconds(0) : kPoll);
      if (next == BatchSource::Next::Batch) {
        any_batch = true;
        merged.clear();
        for (std::size_t k = 0; k < batch.size; ++k) {
          const std::uint32_t l = inputs[r].left_index[batch.left[k]];
          const std::uint32_t o = inputs[r].right_index[batch.right[k]];
          if (unique && !(l < o)) continue;
          merged.left.push_back(l);
          merged.right.push_back(o);
          merged.distance.push_back(batch.distance[k]);
        }
        region_runs[r].pairs += merged.size();
        total.pairs += merged.size();
        if (merged.size() > 0) {
          ++total.batches;
          if (!sink.consume(merged.view())) total.stopped = true;
        }
      } else if (next == BatchSource::Next::End) {
        if (streams[r]->error()) error = streams[r]->error();
        const JoinStats& stats = streams[r]->stats();
        if (stats.stopped) total.stopped = true;  // interrupted: the answer is incomplete
        total.candidates += stats.candidates;
        if (total.device.empty()) {
          total.device = stats.device;
          total.algorithm = stats.algorithm;
        }
        region_runs[r].seconds = std::chrono::duration<double>(Clock::now() - started[r]).count();
        streams[r].reset();
        --running;
        start_next();
      }
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
