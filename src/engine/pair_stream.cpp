// The engine on a producer thread feeding a bounded batch queue (pair_stream.h).
#include "pair_stream.h"

#include <algorithm>
#include <utility>

#include "worker_thread.h"

namespace simjoin {

namespace {

// Counts what reaches the sink: a GPU failure is only retried before the first pair.
class CountingSink : public PairSink {
 public:
  explicit CountingSink(PairSink& inner) : inner_(inner) {}
  bool consume(const PairBatch& batch) override {
    pairs_taken_ += batch.size;
    return inner_.consume(batch);
  }
  bool keep_going() override { return inner_.keep_going(); }
  std::size_t pairs_taken() const { return pairs_taken_; }

 private:
  PairSink& inner_;
  std::size_t pairs_taken_ = 0;
};

}  // namespace

JoinStats run_join_with_fallback(const PointSet& left, const PointSet* right,
                                 const JoinSpec& spec, bool cpu_fallback, PairSink& sink,
                                 const std::function<void(const std::string&)>& on_fallback) {
  if (spec.device == Device::Gpu) {
    std::string why;
    if (!gpu_available(&why)) throw Error("simjoin.device is 'gpu' but no GPU is usable: " + why);
  }
  CountingSink counting(sink);
  try {
    return run_join(left, right, spec, counting);
  } catch (const Error& e) {
    const bool may_retry = cpu_fallback && spec.device != Device::Cpu &&
                           counting.pairs_taken() == 0 && gpu_available(nullptr);
    if (!may_retry) throw;
    if (on_fallback) on_fallback(std::string("GPU join failed (") + e.what() + "); running it on the CPU");
  }
  JoinSpec cpu_spec = spec;
  cpu_spec.device = Device::Cpu;
  return run_join(left, right, cpu_spec, counting);
}

void PairStream::sort_by_right(Buffer* buffer) {
  std::vector<std::uint64_t>& keys = buffer->keys;
  const std::size_t n = buffer->left.size();
  keys.resize(n);
  for (std::size_t k = 0; k < n; ++k)
    keys[k] = (static_cast<std::uint64_t>(buffer->right[k]) << 32) | buffer->left[k];
  std::sort(keys.begin(), keys.end());
  for (std::size_t k = 0; k < n; ++k) {
    buffer->right[k] = static_cast<std::uint32_t>(keys[k] >> 32);
    buffer->left[k] = static_cast<std::uint32_t>(keys[k]);
  }
}

class PairStream::QueueSink : public PairSink {
 public:
  explicit QueueSink(PairStream& stream) : stream_(stream) {}
  bool consume(const PairBatch& batch) override { return stream_.push(batch); }
  bool keep_going() override { return stream_.producer_keep_going(); }

 private:
  PairStream& stream_;
};

PairStream::PairStream(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                       Options options)
    : options_(std::move(options)) {
  if (options_.queue_batches == 0) options_.queue_batches = 1;
  if (right) {
    right_copy_ = *right;
    has_right_ = true;
  }
  thread_ = start_worker_thread([this, left, spec] {
    produce(left, has_right_ ? &right_copy_ : nullptr, spec);
  });
}

PairStream::~PairStream() { stop(); }

void PairStream::produce(PointSet left, const PointSet* right, JoinSpec spec) {
  QueueSink sink(*this);
  JoinStats stats;
  std::exception_ptr error;
  std::string note;
  try {
    stats = run_join_with_fallback(left, right, spec, options_.cpu_fallback, sink,
                                   [&note](const std::string& message) { note = message; });
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  stats_ = std::move(stats);
  error_ = error;
  fallback_note_ = std::move(note);
  done_ = true;
  has_data_.notify_all();
}

bool PairStream::producer_keep_going() {
  if (stop_.load(std::memory_order_relaxed)) return false;
  return !(options_.interrupted && options_.interrupted());
}

bool PairStream::push(const PairBatch& batch) {
  Buffer buffer;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    has_space_.wait(lock, [this] {
      return stop_.load(std::memory_order_relaxed) || ready_.size() < options_.queue_batches;
    });
    if (stop_.load(std::memory_order_relaxed)) return false;
    if (!free_.empty()) {
      buffer = std::move(free_.back());
      free_.pop_back();
    }
  }
  // Copied outside the lock: the consumer goes on with the batches already queued.
  buffer.left.assign(batch.left, batch.left + batch.size);
  buffer.right.assign(batch.right, batch.right + batch.size);
  if (options_.keep_distance) {
    buffer.distance.assign(batch.distance, batch.distance + batch.size);
  } else if (options_.order_by_right) {
    sort_by_right(&buffer);
  }
  pairs_pushed_ += batch.size;
  std::lock_guard<std::mutex> lock(mutex_);
  ready_.push_back(std::move(buffer));
  has_data_.notify_one();
  return !stop_.load(std::memory_order_relaxed) &&
         !(options_.interrupted && options_.interrupted());
}

PairStream::Next PairStream::next(StreamBatch* batch, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (holding_current_) {
    free_.push_back(std::move(current_));
    holding_current_ = false;
  }
  const bool stopped = stop_.load(std::memory_order_relaxed);
  if (!stopped &&
      !has_data_.wait_for(lock, timeout, [this] { return !ready_.empty() || done_; }))
    return Next::Timeout;
  if (stopped || ready_.empty()) {  // stopped, or done and drained
    lock.unlock();
    join();
    return Next::End;
  }
  current_ = std::move(ready_.front());
  ready_.pop_front();
  holding_current_ = true;
  has_space_.notify_one();
  batch->left = current_.left.data();
  batch->right = current_.right.data();
  batch->distance = options_.keep_distance ? current_.distance.data() : nullptr;
  batch->size = current_.left.size();
  return Next::Batch;
}

void PairStream::stop() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_relaxed);
  }
  has_space_.notify_all();
  join();
}

void PairStream::join() noexcept {
  if (thread_.joinable()) thread_.join();
}

}  // namespace simjoin
