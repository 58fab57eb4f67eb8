// What a consumer (the PostgreSQL executor) reads a join's result from, one batch at a time: the
// engine on a producer thread of this process (PairStream), or a job of the GPU service (the
// PostgreSQL glue's ServiceStream). Both hand out batches of index pairs and end with the join's
// statistics or its error.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "engine/types.h"

namespace simjoin {

// One batch handed to the consumer; valid until its next call of next() or stop().
struct StreamBatch {
  const std::uint32_t* left = nullptr;
  const std::uint32_t* right = nullptr;
  const double* distance = nullptr;  // nullptr unless the source keeps distances
  std::size_t size = 0;
};

class BatchSource {
 public:
  enum class Next { Batch, Timeout, End };

  virtual ~BatchSource() = default;
  // Waits at most `timeout` for the next batch. Batch: *batch is set (the previous batch's arrays
  // are recycled). End: the join finished, failed (error()) or was stopped; after stop(), always
  // End. Never throws.
  virtual Next next(StreamBatch* batch, std::chrono::milliseconds timeout) = 0;
  // Stops the join and waits until nothing runs for it any more (promptly: within ~100 ms).
  // Idempotent, never throws. After it, stats() and error() are final.
  virtual void stop() noexcept = 0;
  // Valid once next() returned End or stop() returned.
  virtual const JoinStats& stats() const = 0;
  virtual std::exception_ptr error() const = 0;
  // The GPU fallback message to report (empty if none happened).
  virtual const std::string& fallback_note() const = 0;
  // Progress: the candidate pairs (distance evaluations) finished so far, never decreasing;
  // readable on the consumer's thread at any time (0 where the source does not count them).
  virtual std::uint64_t candidates_done() const { return 0; }
};

}  // namespace simjoin
