// Streaming results from worker threads to the sink on the calling thread, with bounded memory.
//
// Producers (CPU worker threads, or the GPU backend's stream threads) fill thread-local
// OwnedPairBatch buffers through a BatchWriter and push full ones into a bounded BatchQueue;
// the calling thread pops them in drain_to_sink() and is the only one that touches the PairSink.
// When the sink (consume or keep_going) says stop, the queue's stop flag is raised, producers
// blocked on a full queue wake up, and every later push / BatchWriter::add reports false.
//
// run_batch_pipeline() packages the common case: `units` independent work units handed out to
// `threads` workers through an atomic counter. A sink with a shared_queue() (a pair stream's)
// gets the workers' batches pushed straight into that queue: one queue between the workers and
// the sink's consumer, and the calling thread only polls keep_going while the workers run.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>
#include <algorithm>

#include "engine/pair_sink.h"

namespace simjoin {

// A batch of pairs owned by its producer until pushed.
struct OwnedPairBatch {
  std::vector<std::uint32_t> left;
  std::vector<std::uint32_t> right;
  std::vector<double> distance;

  std::size_t size() const { return left.size(); }
  void clear();
  void reserve(std::size_t pairs);
  PairBatch view() const;
};

// How a queue's consumer wants its batches: push() shapes each one on the pushing thread.
struct BatchForm {
  bool keep_distance = true;    // false: the distances are dropped
  bool order_by_right = false;  // each batch sorted by (right, left) (engine/parallel/pair_order.h)
};

class BatchQueue {
 public:
  // `capacity`: batches held at most (push blocks beyond); `producers`: how many producers will
  // call producer_done() — the queue is finished when all have and it is empty.
  BatchQueue(std::size_t capacity, std::size_t producers, BatchForm form = BatchForm());

  // Producer side. Shapes the batch (BatchForm), then blocks while the queue is full. Returns
  // false (the batch is dropped) once a stop was requested. On success `batch` is replaced by an
  // empty recycled buffer.
  bool push(OwnedPairBatch& batch);
  void producer_done();
  // Also once the process abandons its threads (engine/parallel/worker_thread.h).
  bool stop_requested() const;

  // Either side: raise the stop flag and wake everyone.
  void request_stop();

  // Consumer side: waits up to `timeout` for a batch.
  enum class PopResult { Batch, Timeout, Finished };
  PopResult pop(OwnedPairBatch& out, std::chrono::milliseconds timeout);
  // Gives a consumed buffer back for reuse by producers (avoids reallocating batches).
  void recycle(OwnedPairBatch&& batch);

  // Pairs pushed so far (readable at any time).
  std::uint64_t pairs_pushed() const { return pairs_pushed_.load(std::memory_order_relaxed); }

 private:
  const std::size_t capacity_;
  const BatchForm form_;
  std::atomic<std::uint64_t> pairs_pushed_{0};
  std::size_t producers_left_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<OwnedPairBatch> full_;
  std::vector<OwnedPairBatch> spare_;
};

// A producer's thread-local batch: add() pairs, full batches go to the queue.
class BatchWriter {
 public:
  // candidates_done (optional): the pipeline's progress counter, which publish_candidates feeds.
  BatchWriter(BatchQueue& queue, std::size_t batch_pairs,
              std::atomic<std::uint64_t>* candidates_done = nullptr);
  // Appends one pair; pushes the batch when full. Returns false once the join must stop.
  bool add(std::uint32_t left, std::uint32_t right, double distance) {
    batch_.left.push_back(left);
    batch_.right.push_back(right);
    batch_.distance.push_back(distance);
    if (batch_.size() >= batch_pairs_) return flush();
    return !stopped();
  }
  // Pushes the partial batch (if any), after publish_candidates. Returns false once the join must
  // stop.
  bool flush();
  // Adds the candidates counted since the last call to the progress counter.
  void publish_candidates();
  // Producers check this between small pieces of work (a point, a cell) to stop promptly.
  bool stopped() const { return queue_.stop_requested(); }

  std::uint64_t candidates = 0;  // distance evaluations, summed into the pipeline's result
  std::uint64_t batches_pushed = 0;
  std::uint64_t pairs_pushed = 0;

 private:
  BatchQueue& queue_;
  std::atomic<std::uint64_t>* candidates_done_;
  std::uint64_t published_ = 0;
  const std::size_t batch_pairs_;
  OwnedPairBatch batch_;
};

struct DrainResult {
  std::uint64_t batches = 0;
  std::uint64_t pairs = 0;
  bool stopped = false;  // consume() or keep_going() returned false
};

// The consumer loop, on the calling thread: hands every batch to sink.consume and polls
// sink.keep_going after each batch and at least every `poll` while waiting. Returns when the queue
// is finished or the sink asked to stop (the stop is then already requested on the queue).
// `candidates_done` (optional): the producers' finished candidates, passed to sink.progress.
DrainResult drain_to_sink(BatchQueue& queue, PairSink& sink,
                          std::chrono::milliseconds poll = std::chrono::milliseconds(100),
                          const std::atomic<std::uint64_t>* candidates_done = nullptr);

struct PipelineResult {
  std::uint64_t batches = 0;
  std::uint64_t pairs = 0;
  std::uint64_t candidates = 0;
  bool stopped = false;
};

// Work unit `unit` (0 <= unit < units), writing its pairs through `out`. Should return early when
// out.add() returns false or out.stopped() is true. May throw: the first exception is rethrown
// by run_batch_pipeline on the calling thread after all workers are joined.
using WorkUnitFn = std::function<void(std::size_t unit, BatchWriter& out)>;

// Work units of consecutive items: about 64 units per thread (dynamic load balancing under skew),
// each between min_items and max_items long.
inline std::size_t items_per_unit(std::size_t items, int threads, std::size_t min_items,
                                  std::size_t max_items) {
  const std::size_t wanted = items / (static_cast<std::size_t>(threads) * 64);
  return std::max(min_items, std::min(max_items, wanted));
}

// 0 means std::thread::hardware_concurrency() (at least 1).
int resolve_thread_count(int requested);

// Runs `units` work units on resolve_thread_count(threads) workers (never more than units) and
// streams their pairs to `sink` on the calling thread; or, where the sink has a shared_queue(),
// has the workers push into that queue while the calling thread polls sink.keep_going and
// reports sink.progress (the result then counts what the workers pushed).
PipelineResult run_batch_pipeline(std::size_t units, int threads, std::size_t batch_pairs,
                                  const WorkUnitFn& work, PairSink& sink);

}  // namespace simjoin
