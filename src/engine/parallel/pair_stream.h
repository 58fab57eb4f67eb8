// The engine on a producer thread: run_join's batches go into a bounded queue that a consumer
// (the PostgreSQL backend's executor) drains at its own pace, so that the full result is never
// materialized and a consumer that stops early stops the engine.
//
// Plain C++17 like the rest of the engine: the producer thread is started with every signal
// blocked (engine/parallel/worker_thread.h) and never calls back into the host except through
// Options::interrupted, which must be thread-safe (PostgreSQL: read the pending-interrupt flags).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "engine/batch_source.h"
#include "engine/engine.h"
#include "engine/parallel/batch_pipeline.h"

namespace simjoin {

class PairStream : public BatchSource {
 public:
  struct Options {
    std::size_t queue_batches = 4;  // full batches waiting for the consumer, at most
    bool keep_distance = true;      // copy the distances too
    // Each batch sorted by (right, left) on the thread that pushes it (distances moved along),
    // for a consumer that reads the right side's rows from disk.
    bool order_by_right = false;
    // Polled on the producer thread (between batches, at least every 100 ms while the engine
    // works); true stops the join. Must be thread-safe, must not throw.
    std::function<bool()> interrupted;
    // Called on the producer thread before the join (e.g. the GPU this thread's joins use);
    // what it throws is the stream's error.
    std::function<void()> on_start;
    // Applied on the producer thread to each batch before it is queued: rewrites its pairs in
    // place (left, right, distance; distance null without keep_distance) and returns how many
    // of the first it keeps. The engine's workers then hand their batches to the producer
    // (PairSink::consume) instead of pushing them into the queue themselves.
    std::function<std::size_t(std::uint32_t*, std::uint32_t*, double*, std::size_t)> map_pairs;
  };

  // Starts the join on the producer thread. The point sets' coordinates must stay valid and
  // unchanged until stop() returned (the destructor calls it). Throws only if the thread cannot
  // be started.
  PairStream(const PointSet& left, const PointSet* right, const JoinSpec& spec,
             Options options);
  ~PairStream() override;
  PairStream(const PairStream&) = delete;
  PairStream& operator=(const PairStream&) = delete;

  // BatchSource: at End the producer thread is joined; stop() asks the producer to stop and waits
  // for it (the engine polls keep_going at least every 100 ms).
  Next next(StreamBatch* batch, std::chrono::milliseconds timeout) override;
  void stop() noexcept override;
  const JoinStats& stats() const override { return stats_; }
  std::exception_ptr error() const override { return error_; }
  const std::string& fallback_note() const override { return no_note_; }  // the engine has none
  // Pairs pushed into the queue so far (readable at any time).
  std::uint64_t pairs_pushed() const { return queue_.pairs_pushed(); }
  std::uint64_t candidates_done() const override { return candidates_done_.load(); }

 private:
  class QueueSink;

  void produce(PointSet left, const PointSet* right, JoinSpec spec);
  bool push(const PairBatch& batch);  // a copy into the queue; false once stopped
  bool producer_keep_going();
  void join() noexcept;

  Options options_;
  PointSet right_copy_;
  bool has_right_ = false;

  // The one queue to the consumer: the engine's workers push into it (PairSink::shared_queue),
  // a producer that calls consume() goes through push().
  BatchQueue queue_;
  OwnedPairBatch staging_;                 // producer: the batch being copied in
  OwnedPairBatch current_;                 // consumer: the batch handed out last
  bool holding_current_ = false;

  // written by the producer before it finishes; read by the consumer after the join
  JoinStats stats_;
  std::exception_ptr error_;
  std::atomic<std::uint64_t> candidates_done_{0};  // the engine's progress, from the producer
  const std::string no_note_;

  std::thread thread_;
};

}  // namespace simjoin
