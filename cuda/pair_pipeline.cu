// The batched, multi-stream result pipeline (see pair_pipeline.cuh).
#include "pair_pipeline.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>

#include "cuda_stream.h"
#include "device_buffer.h"
#include "gpu_device.cuh"
#include "gpu_tuning.h"

namespace simjoin::gpu {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Batch b covers the queries [first_query[b], first_query[b + 1]): first_query[b] is the last
// query whose offset is <= b * step (offsets ascend from 0), and first_query[batches] = all.
// A batch then holds fewer than step + (largest count) pairs.
__global__ void find_batch_boundaries(const std::uint64_t* __restrict__ offsets,
                                      std::uint32_t num_queries, std::uint64_t step,
                                      std::uint32_t batches,
                                      std::uint32_t* __restrict__ first_query,
                                      std::uint64_t* __restrict__ first_offset) {
  const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > batches) return;
  std::uint32_t q = num_queries;
  if (b < batches) {
    const std::uint64_t target = std::uint64_t(b) * step;
    std::uint32_t lo = 0, hi = num_queries + 1;  // first position with offset > target
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (offsets[mid] <= target)
        lo = mid + 1;
      else
        hi = mid;
    }
    q = lo - 1;
  }
  first_query[b] = q;
  first_offset[b] = offsets[q];
}

// Hands host arrays to the sink in PairBatches of bounded size, each mirrored when asked.
class SinkFeeder {
 public:
  SinkFeeder(PairSink& sink, JoinStats& stats) : sink_(sink), stats_(stats) {}

  bool feed(const std::uint32_t* left, const std::uint32_t* right, const double* distance,
            std::size_t size, std::size_t max_batch, bool mirror) {
    const auto start = Clock::now();
    bool going = true;
    for (std::size_t offset = 0; going && offset < size; offset += max_batch) {
      const std::size_t n = std::min(max_batch, size - offset);
      going = hand_over({left + offset, right + offset, distance + offset, n});
      if (going && mirror) going = hand_over({right + offset, left + offset, distance + offset, n});
    }
    sink_seconds_ += seconds_since(start);
    return going;
  }
  // The diagonal pairs (i, i) of `ids`, each at its `distances` entry (null: at distance 0).
  bool feed_diagonal(const std::vector<std::uint32_t>& ids, const std::vector<double>* distances,
                     std::size_t max_batch) {
    const auto start = Clock::now();
    const std::size_t step = std::min(max_batch, ids.size());
    const std::vector<double> zeros(distances ? 0 : step, 0.0);
    bool going = true;
    for (std::size_t offset = 0; going && offset < ids.size(); offset += step) {
      const std::size_t n = std::min(step, ids.size() - offset);
      const double* at = distances ? distances->data() + offset : zeros.data();
      going = hand_over({ids.data() + offset, ids.data() + offset, at, n});
    }
    sink_seconds_ += seconds_since(start);
    return going;
  }
  double sink_seconds() const { return sink_seconds_; }

 private:
  bool hand_over(const PairBatch& batch) {
    ++stats_.batches;
    stats_.pairs += batch.size;
    return sink_.consume(batch);
  }
  PairSink& sink_;
  JoinStats& stats_;
  double sink_seconds_ = 0.0;
};

// Pinned host buffers for one batch (and, on the count/fill path, the device buffers that the
// fill kernel writes), with the stream that fills and copies them.
struct BatchSlot {
  BatchSlot(std::size_t device_capacity, std::size_t host_capacity)
      : host_left(host_capacity), host_right(host_capacity), host_distance(host_capacity) {
    if (device_capacity > 0) {
      left.resize(device_capacity);
      right.resize(device_capacity);
      distance.resize(device_capacity);
    }
  }
  DeviceBuffer<std::uint32_t> left, right;
  DeviceBuffer<double> distance;
  PinnedBuffer<std::uint32_t> host_left, host_right;
  PinnedBuffer<double> host_distance;
  CudaStream stream;  // declared after the buffers: destroyed (and synchronized) before them
  CudaEvent copied;
  std::size_t pairs = 0;
};

constexpr std::size_t kBytesPerPair = 2 * sizeof(std::uint32_t) + sizeof(double);

// The batch capacity: the tuning's, at least twice the largest count (so that the cut above
// always progresses), no more than the result, within half the memory the join may still use
// (a quarter of its budget: the inputs hold the other half).
std::size_t choose_capacity(std::uint64_t total, std::uint64_t max_count, int slots,
                            std::size_t budget) {
  std::size_t capacity = std::min<std::uint64_t>(tuning().device_batch_pairs, total);
  capacity = std::max<std::uint64_t>(capacity, 2 * max_count);
  const std::size_t usable = budget ? std::min(join_memory_bytes(0) / 2, budget / 4)
                                    : join_memory_bytes(0) / 2;
  const std::size_t affordable = usable / (kBytesPerPair * slots);
  if (affordable < 2 * max_count)
    throw Error("gpu join: one point has " + std::to_string(max_count) +
                " pairs, more than the free GPU memory can buffer");
  return std::min(capacity, affordable);
}

// The direct output's capacity: the tuning's, within a quarter of the free device memory and of
// the join's budget.
std::size_t choose_direct_capacity(std::size_t budget) {
  if (tuning().direct_pairs == 0) return 0;
  const std::size_t usable = budget ? std::min(join_memory_bytes(0), budget) : join_memory_bytes(0);
  return std::min<std::size_t>(tuning().direct_pairs, usable / 4 / kBytesPerPair);
}

// Runs `batches` batches through up to `max_slots` slots made by make_slot(): enqueue(b, slot)
// queues batch b's kernel and copies on slot->stream and returns its pairs (0: nothing queued);
// each finished batch is handed to the sink in order. Returns false when the sink stopped.
template <typename MakeSlot, typename Enqueue>
bool run_batches(std::uint32_t batches, int max_slots, MakeSlot&& make_slot, Enqueue&& enqueue,
                 const PipelineOptions& options, std::size_t sink_batch, SinkFeeder& feeder,
                 PairSink& sink, JoinStats& stats) {
  const auto alloc_start = Clock::now();
  std::vector<std::unique_ptr<BatchSlot>> slots;
  const int slot_count = static_cast<int>(std::min<std::uint32_t>(max_slots, batches));
  for (int s = 0; s < slot_count; ++s) slots.push_back(make_slot());
  stats.phase_seconds.emplace_back("alloc", seconds_since(alloc_start));
  std::deque<BatchSlot*> free_slots, in_flight;
  for (auto& slot : slots) free_slots.push_back(slot.get());

  // Waits for the oldest batch in flight and hands it to the sink.
  auto drain_oldest = [&]() -> bool {
    BatchSlot* slot = in_flight.front();
    in_flight.pop_front();
    free_slots.push_back(slot);
    return wait_for_event(slot->copied.get(), sink) &&
           feeder.feed(slot->host_left.data(), slot->host_right.data(),
                       slot->host_distance.data(), slot->pairs, sink_batch, options.mirror) &&
           sink.keep_going();
  };

  bool going = true;
  for (std::uint32_t b = 0; going && b < batches; ++b) {
    if (free_slots.empty() && !(going = drain_oldest())) break;
    BatchSlot* slot = free_slots.front();
    const std::size_t pairs = enqueue(b, slot);
    if (pairs == 0) continue;
    free_slots.pop_front();
    slot->copied.record(slot->stream.get());
    slot->pairs = pairs;
    in_flight.push_back(slot);
  }
  while (going && !in_flight.empty()) going = drain_oldest();
  return going;
}

// Queues the copies of pairs [from, from + n) of `device` into the slot's pinned buffers.
void copy_to_host(const PairOutput& device, std::uint64_t from, std::size_t n, BatchSlot& slot) {
  const cudaStream_t stream = slot.stream.get();
  CUDA_CHECK(cudaMemcpyAsync(slot.host_left.data(), device.left + from, n * sizeof(std::uint32_t),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(slot.host_right.data(), device.right + from,
                             n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(slot.host_distance.data(), device.distance + from,
                             n * sizeof(double), cudaMemcpyDeviceToHost, stream));
}

}  // namespace

PipelineOptions pipeline_options(bool two_inputs, const JoinSpec& spec,
                                 const std::vector<std::uint32_t>* diagonal) {
  PipelineOptions options;
  options.mirror = !two_inputs && spec.self_pairs == SelfPairs::All;
  options.diagonal_ids = options.mirror ? diagonal : nullptr;
  options.sink_batch = spec.batch_pairs;
  options.memory_bytes = spec.device_memory_bytes;
  return options;
}

bool stream_pairs(const PairProducer& producer, const PipelineOptions& options, PairSink& sink,
                  JoinStats& stats) {
  const std::uint32_t num_queries = producer.num_queries();
  const std::size_t sink_batch = options.sink_batch ? options.sink_batch : SIZE_MAX;
  const int max_slots = std::max(1, tuning().streams);
  SinkFeeder feeder(sink, stats);
  auto phase_start = Clock::now();

  // Count: counts[q] per query (a zero appended) and, where they fit, the pairs themselves.
  CudaStream main;
  DeviceBuffer<std::uint32_t> counts(std::size_t(num_queries) + 1);
  DeviceBuffer<std::uint64_t> offsets;
  DeviceBuffer<unsigned long long> counters(2);  // candidates, direct total
  DeviceBuffer<std::uint32_t> max_count(1);
  const std::size_t direct_capacity = choose_direct_capacity(options.memory_bytes);
  DeviceBuffer<std::uint32_t> direct_left, direct_right;
  DeviceBuffer<double> direct_distance;
  DirectOutput direct;
  if (direct_capacity > 0) {
    const auto alloc_start = Clock::now();
    direct_left.resize(direct_capacity);
    direct_right.resize(direct_capacity);
    direct_distance.resize(direct_capacity);
    direct.out = PairOutput{direct_left.data(), direct_right.data(), direct_distance.data()};
    direct.total = counters.data() + 1;
    direct.capacity = direct_capacity;
    stats.phase_seconds.emplace_back("alloc-direct", seconds_since(alloc_start));
  }
  PinnedBuffer<std::uint64_t> summary(4);  // candidates, direct total, total pairs, largest count
  summary.data()[3] = 0;
  DeviceBuffer<std::uint8_t> temp;
  const StreamDrain drain_main_first(main.get());  // declared last: runs before the frees
  CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes(), main.get()));
  CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, counters.bytes(), main.get()));
  producer.count(counts.data(), counters.data(), direct, main.get());
  CUDA_CHECK(cudaMemcpyAsync(summary.data(), counters.data(), 2 * sizeof(std::uint64_t),
                             cudaMemcpyDeviceToHost, main.get()));

  // While the GPU counts: the diagonal pairs (i, i) at distance 0.
  if (options.diagonal_ids && !options.diagonal_ids->empty()) {
    if (!feeder.feed_diagonal(*options.diagonal_ids, options.diagonal_distances, sink_batch) ||
        !sink.keep_going())
      return false;
  }
  if (!wait_for_stream(main.get(), sink)) return false;
  stats.candidates += summary.data()[0];
  sink.progress(stats.candidates);  // the count pass has evaluated every candidate
  const std::uint64_t direct_total = summary.data()[1];
  const bool direct_fits = direct_capacity > 0 && direct_total <= direct_capacity;
  stats.phase_seconds.emplace_back("count", seconds_since(phase_start));
  phase_start = Clock::now();

  bool going = true;
  if (direct_fits) {
    // Single pass: the pairs are on the device already; copy them out chunk by chunk.
    if (direct_total > 0) {
      const std::size_t chunk =
          std::max<std::size_t>(1, std::min<std::uint64_t>(tuning().host_chunk_pairs, direct_total));
      const auto batches = static_cast<std::uint32_t>((direct_total + chunk - 1) / chunk);
      going = run_batches(
          batches, max_slots, [&] { return std::make_unique<BatchSlot>(0, chunk); },
          [&](std::uint32_t b, BatchSlot* slot) -> std::size_t {
            const std::uint64_t from = std::uint64_t(b) * chunk;
            const std::size_t n = std::min<std::uint64_t>(chunk, direct_total - from);
            copy_to_host(direct.out, from, n, *slot);
            return n;
          },
          options, sink_batch, feeder, sink, stats);
    }
    stats.phase_seconds.emplace_back("join", seconds_since(phase_start));
    stats.phase_seconds.emplace_back("sink", feeder.sink_seconds());
    return going;
  }

  // Count/fill: the exclusive sum of the counts and their maximum.
  direct_left = DeviceBuffer<std::uint32_t>();  // the direct output overflowed: free it
  direct_right = DeviceBuffer<std::uint32_t>();
  direct_distance = DeviceBuffer<double>();
  offsets.resize(std::size_t(num_queries) + 1);
  std::size_t scan_bytes = 0, max_bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, counts.data(), offsets.data(),
                                            cuda::std::plus<>{}, std::uint64_t(0),
                                            num_queries + 1, main.get()));
  CUDA_CHECK(cub::DeviceReduce::Max(nullptr, max_bytes, counts.data(), max_count.data(),
                                    num_queries + 1, main.get()));
  temp.resize(std::max(scan_bytes, max_bytes));
  CUDA_CHECK(cub::DeviceScan::ExclusiveScan(temp.data(), scan_bytes, counts.data(),
                                            offsets.data(), cuda::std::plus<>{}, std::uint64_t(0),
                                            num_queries + 1, main.get()));
  CUDA_CHECK(cub::DeviceReduce::Max(temp.data(), max_bytes, counts.data(), max_count.data(),
                                    num_queries + 1, main.get()));
  CUDA_CHECK(cudaMemcpyAsync(summary.data() + 2, offsets.data() + num_queries,
                             sizeof(std::uint64_t), cudaMemcpyDeviceToHost, main.get()));
  CUDA_CHECK(cudaMemcpyAsync(summary.data() + 3, max_count.data(), sizeof(std::uint32_t),
                             cudaMemcpyDeviceToHost, main.get()));
  if (!wait_for_stream(main.get(), sink)) return false;
  const std::uint64_t total = summary.data()[2];
  const std::uint64_t largest = summary.data()[3];
  stats.phase_seconds.emplace_back("scan", seconds_since(phase_start));

  if (total > 0) {
    // Cut the queries into batches of at most `capacity` pairs.
    const std::size_t capacity = choose_capacity(total, largest, max_slots, options.memory_bytes);
    const std::uint64_t step = capacity - largest;
    const std::uint32_t batches = static_cast<std::uint32_t>((total + step - 1) / step);
    DeviceBuffer<std::uint32_t> first_query(std::size_t(batches) + 1);
    DeviceBuffer<std::uint64_t> first_offset(std::size_t(batches) + 1);
    find_batch_boundaries<<<(batches + 1 + 255) / 256, 256, 0, main.get()>>>(
        offsets.data(), num_queries, step, batches, first_query.data(), first_offset.data());
    CUDA_CHECK_LAUNCH();
    std::vector<std::uint32_t> batch_query(std::size_t(batches) + 1);
    std::vector<std::uint64_t> batch_offset(std::size_t(batches) + 1);
    CUDA_CHECK(cudaMemcpyAsync(batch_query.data(), first_query.data(), first_query.bytes(),
                               cudaMemcpyDeviceToHost, main.get()));
    CUDA_CHECK(cudaMemcpyAsync(batch_offset.data(), first_offset.data(), first_offset.bytes(),
                               cudaMemcpyDeviceToHost, main.get()));
    CUDA_CHECK(cudaStreamSynchronize(main.get()));

    going = run_batches(
        batches, max_slots, [&] { return std::make_unique<BatchSlot>(capacity, capacity); },
        [&](std::uint32_t b, BatchSlot* slot) -> std::size_t {
          const std::size_t pairs = batch_offset[b + 1] - batch_offset[b];
          if (pairs == 0) return 0;
          const PairOutput out{slot->left.data(), slot->right.data(), slot->distance.data()};
          producer.fill(batch_query[b], batch_query[b + 1], offsets.data(), batch_offset[b], out,
                        slot->stream.get());
          copy_to_host(out, 0, pairs, *slot);
          return pairs;
        },
        options, sink_batch, feeder, sink, stats);
  }
  stats.phase_seconds.emplace_back("join", seconds_since(phase_start));
  stats.phase_seconds.emplace_back("sink", feeder.sink_seconds());
  return going;
}

}  // namespace simjoin::gpu
