// Worker threads to the sink through one bounded queue (batch_pipeline.h).
#include "engine/parallel/batch_pipeline.h"

#include <algorithm>
#include <optional>
#include <thread>
#include <utility>

#include "engine/parallel/pair_order.h"
#include "engine/parallel/worker_thread.h"

namespace simjoin {

void OwnedPairBatch::clear() {
  left.clear();
  right.clear();
  distance.clear();
}

void OwnedPairBatch::reserve(std::size_t pairs) {
  left.reserve(pairs);
  right.reserve(pairs);
  distance.reserve(pairs);
}

PairBatch OwnedPairBatch::view() const {
  PairBatch batch;
  batch.left = left.data();
  batch.right = right.data();
  batch.distance = distance.data();
  batch.size = size();
  return batch;
}

namespace {

// The batch as the queue's consumer wants it, on the pushing thread.
void shape(OwnedPairBatch& batch, const BatchForm& form) {
  if (!form.keep_distance) batch.distance.clear();
  if (!form.order_by_right) return;
  thread_local std::vector<std::uint64_t> keys;
  thread_local std::vector<std::pair<std::uint64_t, double>> keyed;
  sort_pairs_by_right(batch.left.data(), batch.right.data(),
                      form.keep_distance ? batch.distance.data() : nullptr, batch.size(), keys,
                      keyed);
}

}  // namespace

BatchQueue::BatchQueue(std::size_t capacity, std::size_t producers, BatchForm form)
    : capacity_(std::max<std::size_t>(1, capacity)), form_(form), producers_left_(producers) {}

bool BatchQueue::stop_requested() const {
  return stop_.load(std::memory_order_relaxed) || threads_abandoned();
}

bool BatchQueue::push(OwnedPairBatch& batch) {
  if (stop_requested()) return false;
  shape(batch, form_);
  const std::size_t pairs = batch.size();
  std::unique_lock<std::mutex> lock(mutex_);
  wait_unless_abandoned(not_full_, lock,
                        [&] { return stop_requested() || full_.size() < capacity_; });
  if (stop_requested()) return false;
  pairs_pushed_.fetch_add(pairs, std::memory_order_relaxed);
  full_.push_back(std::move(batch));
  batch = OwnedPairBatch();
  if (!spare_.empty()) {
    batch = std::move(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  not_empty_.notify_one();
  return true;
}

void BatchQueue::producer_done() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --producers_left_;
  }
  not_empty_.notify_all();
}

void BatchQueue::request_stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_relaxed);
  }
  not_full_.notify_all();
  not_empty_.notify_all();
}

BatchQueue::PopResult BatchQueue::pop(OwnedPairBatch& out, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  const bool ready = not_empty_.wait_for(
      lock, timeout, [&] { return !full_.empty() || producers_left_ == 0 || stop_requested(); });
  if (stop_requested()) return PopResult::Finished;  // a producer failed: deliver nothing more
  if (!full_.empty()) {
    out = std::move(full_.front());
    full_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    return PopResult::Batch;
  }
  if (ready && producers_left_ == 0) return PopResult::Finished;
  return PopResult::Timeout;
}

void BatchQueue::recycle(OwnedPairBatch&& batch) {
  batch.clear();
  std::lock_guard<std::mutex> lock(mutex_);
  if (spare_.size() < capacity_) spare_.push_back(std::move(batch));
}

BatchWriter::BatchWriter(BatchQueue& queue, std::size_t batch_pairs,
                         std::atomic<std::uint64_t>* candidates_done)
    : queue_(queue), candidates_done_(candidates_done),
      batch_pairs_(std::max<std::size_t>(1, batch_pairs)) {
  batch_.reserve(std::min<std::size_t>(batch_pairs_, 1u << 16));
}

void BatchWriter::publish_candidates() {
  if (candidates_done_) candidates_done_->fetch_add(candidates - published_, std::memory_order_relaxed);
  published_ = candidates;
}

bool BatchWriter::flush() {
  publish_candidates();
  const std::size_t pairs = batch_.size();
  if (pairs == 0) return !stopped();
  if (!queue_.push(batch_)) return false;
  ++batches_pushed;
  pairs_pushed += pairs;
  return true;
}

DrainResult drain_to_sink(BatchQueue& queue, PairSink& sink, std::chrono::milliseconds poll,
                          const std::atomic<std::uint64_t>* candidates_done) {
  DrainResult result;
  OwnedPairBatch batch;
  for (;;) {
    if (candidates_done) sink.progress(candidates_done->load(std::memory_order_relaxed));
    const BatchQueue::PopResult popped = queue.pop(batch, poll);
    if (popped == BatchQueue::PopResult::Finished) break;
    if (popped == BatchQueue::PopResult::Batch) {
      ++result.batches;
      result.pairs += batch.size();
      const bool more = sink.consume(batch.view());
      queue.recycle(std::move(batch));
      batch = OwnedPairBatch();
      if (!more) {
        result.stopped = true;
        break;
      }
    }
    if (!sink.keep_going()) {
      result.stopped = true;
      break;
    }
  }
  if (threads_abandoned()) result.stopped = true;
  if (result.stopped) queue.request_stop();
  return result;
}

int resolve_thread_count(int requested) {
  if (requested > 0) return requested;
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 1 : static_cast<int>(hardware);
}

namespace {

// Joins the workers on every exit path (also when the sink throws on the calling thread).
class WorkerGroup {
 public:
  explicit WorkerGroup(BatchQueue& queue) : queue_(queue) {}
  ~WorkerGroup() {
    if (!threads_.empty()) {
      queue_.request_stop();
      join();
    }
  }
  void start(std::size_t count, const std::function<void()>& body) {
    threads_.reserve(count);
    for (std::size_t t = 0; t < count; ++t) threads_.push_back(start_worker_thread(body));
  }
  void join() {
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

 private:
  BatchQueue& queue_;
  std::vector<std::thread> threads_;
};

// What the workers pushed, summed as they end; the calling thread waits for the last one.
class WorkerTally {
 public:
  explicit WorkerTally(std::size_t workers) : running_(workers) {}
  void ended(const BatchWriter& writer, bool cut_short) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      batches_ += writer.batches_pushed;
      pairs_ += writer.pairs_pushed;
      cut_short_ = cut_short_ || cut_short;
      --running_;
    }
    all_ended_.notify_all();
  }
  // Waits up to `timeout`; true once every worker ended.
  bool wait_all_ended(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return all_ended_.wait_for(lock, timeout, [&] { return running_ == 0; });
  }
  // After every worker ended.
  std::uint64_t batches() const { return batches_; }
  std::uint64_t pairs() const { return pairs_; }
  bool cut_short() const { return cut_short_; }

 private:
  std::mutex mutex_;
  std::condition_variable all_ended_;
  std::size_t running_;
  std::uint64_t batches_ = 0;
  std::uint64_t pairs_ = 0;
  bool cut_short_ = false;
};

// The calling thread while the workers push into the sink's shared queue: progress, and
// keep_going at least every `poll`. True when the join was stopped.
bool await_workers(WorkerTally& tally, BatchQueue& queue, PairSink& sink,
                   std::chrono::milliseconds poll, const std::atomic<std::uint64_t>& candidates) {
  bool stopped = false;
  for (;;) {
    sink.progress(candidates.load(std::memory_order_relaxed));
    if (tally.wait_all_ended(poll)) break;
    if (!stopped && !sink.keep_going()) {
      stopped = true;
      queue.request_stop();
    }
  }
  return stopped || tally.cut_short() || threads_abandoned();
}

}  // namespace

PipelineResult run_batch_pipeline(std::size_t units, int threads, std::size_t batch_pairs,
                                  const WorkUnitFn& work, PairSink& sink) {
  PipelineResult result;
  if (units == 0) return result;
  const std::size_t workers =
      std::min<std::size_t>(units, static_cast<std::size_t>(resolve_thread_count(threads)));
  BatchQueue* const shared = sink.shared_queue();
  // Bounded memory: a couple of full batches per worker wait for the consumer at most.
  std::optional<BatchQueue> own;
  if (!shared) own.emplace(2 * workers + 2, workers);
  BatchQueue& queue = shared ? *shared : *own;
  std::atomic<std::size_t> next_unit{0};
  std::atomic<std::uint64_t> candidates{0};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  WorkerTally tally(workers);

  auto worker_body = [&] {
    BatchWriter writer(queue, batch_pairs, &candidates);
    bool cut_short = false;  // stopped with work left
    try {
      for (;;) {
        const std::size_t unit = next_unit.fetch_add(1, std::memory_order_relaxed);
        if (unit >= units) break;
        if (writer.stopped()) {
          cut_short = true;
          break;
        }
        work(unit, writer);
        writer.publish_candidates();
      }
      if (!writer.flush()) cut_short = true;
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
      queue.request_stop();
    }
    writer.publish_candidates();
    tally.ended(writer, cut_short);
    if (!shared) queue.producer_done();
  };

  const std::chrono::milliseconds poll(100);
  WorkerGroup group(queue);
  group.start(workers, worker_body);
  if (shared) {
    result.stopped = await_workers(tally, queue, sink, poll, candidates);
  } else {
    const DrainResult drained = drain_to_sink(queue, sink, poll, &candidates);
    result.stopped = drained.stopped;
    result.batches = drained.batches;
    result.pairs = drained.pairs;
  }
  group.join();
  sink.progress(candidates.load());
  if (first_error) std::rethrow_exception(first_error);

  if (shared) {
    result.batches = tally.batches();
    result.pairs = tally.pairs();
  }
  result.candidates = candidates.load();
  return result;
}

}  // namespace simjoin
