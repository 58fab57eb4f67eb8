// The engine on a producer thread feeding a bounded batch queue (engine/parallel/pair_stream.h).
#include "engine/parallel/pair_stream.h"

#include <algorithm>
#include <utility>

#include "engine/parallel/worker_thread.h"

namespace simjoin {

class PairStream::QueueSink : public PairSink {
 public:
  explicit QueueSink(PairStream& stream) : stream_(stream) {}
  bool consume(const PairBatch& batch) override { return stream_.push(batch); }
  bool keep_going() override { return stream_.producer_keep_going(); }
  void progress(std::uint64_t candidates_done) override {
    stream_.candidates_done_.store(candidates_done);
  }
  BatchQueue* shared_queue() override {
    return stream_.options_.map_pairs ? nullptr : &stream_.queue_;
  }

 private:
  PairStream& stream_;
};

PairStream::PairStream(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                       Options options)
    : options_(std::move(options)),
      queue_(options_.queue_batches, 1, BatchForm{options_.keep_distance, options_.order_by_right}) {
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
  try {
    if (options_.on_start) options_.on_start();
    stats = run_join(left, right, spec, sink);
  } catch (...) {
    error = std::current_exception();
  }
  stats_ = std::move(stats);  // read by the consumer only after joining this thread
  error_ = error;
  queue_.producer_done();
}

bool PairStream::producer_keep_going() {
  if (queue_.stop_requested()) return false;
  return !(options_.interrupted && options_.interrupted());
}

bool PairStream::push(const PairBatch& batch) {
  // Copied before queueing (the queue blocks while full): the caller's arrays are its own.
  staging_.left.assign(batch.left, batch.left + batch.size);
  staging_.right.assign(batch.right, batch.right + batch.size);
  if (options_.keep_distance)
    staging_.distance.assign(batch.distance, batch.distance + batch.size);
  else
    staging_.distance.clear();
  if (options_.map_pairs) {
    const std::size_t kept =
        options_.map_pairs(staging_.left.data(), staging_.right.data(),
                           options_.keep_distance ? staging_.distance.data() : nullptr, batch.size);
    staging_.left.resize(kept);
    staging_.right.resize(kept);
    if (options_.keep_distance) staging_.distance.resize(kept);
    if (kept == 0) return producer_keep_going();
  }
  if (!queue_.push(staging_)) return false;
  return producer_keep_going();
}

PairStream::Next PairStream::next(StreamBatch* batch, std::chrono::milliseconds timeout) {
  if (holding_current_) {
    queue_.recycle(std::move(current_));
    current_ = OwnedPairBatch();
    holding_current_ = false;
  }
  switch (queue_.pop(current_, timeout)) {
    case BatchQueue::PopResult::Timeout:
      return Next::Timeout;
    case BatchQueue::PopResult::Finished:  // stopped, or done and drained
      join();
      return Next::End;
    case BatchQueue::PopResult::Batch:
      break;
  }
  holding_current_ = true;
  batch->left = current_.left.data();
  batch->right = current_.right.data();
  batch->distance = options_.keep_distance ? current_.distance.data() : nullptr;
  batch->size = current_.size();
  return Next::Batch;
}

void PairStream::stop() noexcept {
  queue_.request_stop();
  join();
}

void PairStream::join() noexcept {
  if (thread_.joinable()) thread_.join();
}

}  // namespace simjoin
