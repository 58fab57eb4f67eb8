// The streaming result interface: the engine hands batches of matching index pairs to a sink.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simjoin {

class BatchQueue;  // engine/parallel/batch_pipeline.h

// One batch of results: pair k is (left[k], right[k]) at distance[k]. Indexes are positions in
// the PointSets given to run_join; the arrays are valid only during PairSink::consume.
struct PairBatch {
  const std::uint32_t* left = nullptr;
  const std::uint32_t* right = nullptr;
  const double* distance = nullptr;
  std::size_t size = 0;
};

// Receives the result. Every call is made on the thread that called run_join (never from worker
// threads or CUDA callbacks), so implementations may use thread-unsafe APIs.
class PairSink {
 public:
  virtual ~PairSink() = default;
  // Takes one batch. Return false to stop the join; run_join then returns promptly.
  virtual bool consume(const PairBatch& batch) = 0;
  // Polled between batches and at least every 100 ms while the engine works. Return false to
  // stop (query cancel, statement_timeout). Must not throw or longjmp.
  virtual bool keep_going() { return true; }
  // Progress: the candidate pairs (distance evaluations) the join has finished so far, never
  // decreasing; called now and then (between batches, after a phase). Must not throw or longjmp.
  virtual void progress(std::uint64_t /*candidates_done*/) {}
  // A queue the engine's worker threads may push their batches into directly, in place of
  // consume() on the calling thread (run_batch_pipeline does, engine/parallel/batch_pipeline.h):
  // the queue then shapes each batch as its consumer wants it, and its stop flag is raised when
  // the join must stop (keep_going false, an error). nullptr (the default): every batch goes
  // through consume(). A sink that changes the pairs it is given must return nullptr.
  virtual BatchQueue* shared_queue() { return nullptr; }
};

}  // namespace simjoin
