// RAII CUDA streams and events, and the cancellable wait: the host never blocks on the device for
// long without asking the sink whether to go on (PairSink::keep_going, at least every 100 ms).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <thread>

#include "cuda_check.h"
#include "engine/pair_sink.h"

namespace simjoin::gpu {

class CudaStream {
 public:
  CudaStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() {
    if (stream_) {
      cudaStreamSynchronize(stream_);  // no work may outlive the buffers it uses
      cudaStreamDestroy(stream_);
    }
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Waits for a stream's work when leaving a scope (early return, exception), so that buffers
// declared before it are freed only once nothing uses them.
class StreamDrain {
 public:
  explicit StreamDrain(cudaStream_t stream) : stream_(stream) {}
  ~StreamDrain() { cudaStreamSynchronize(stream_); }
  StreamDrain(const StreamDrain&) = delete;
  StreamDrain& operator=(const StreamDrain&) = delete;

 private:
  cudaStream_t stream_;
};

class CudaEvent {
 public:
  CudaEvent() { CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~CudaEvent() {
    if (event_) cudaEventDestroy(event_);
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(event_, stream)); }

 private:
  cudaEvent_t event_ = nullptr;
};

// Waits until `event` has completed, polling it and calling sink.keep_going() every 50 ms.
// Returns false (work possibly still in flight) when the sink asked to stop.
inline bool wait_for_event(cudaEvent_t event, PairSink& sink) {
  using Clock = std::chrono::steady_clock;
  const auto poll_interval = std::chrono::milliseconds(50);
  auto next_poll = Clock::now() + poll_interval;
  for (int spins = 0;; ++spins) {
    const cudaError_t state = cudaEventQuery(event);
    if (state == cudaSuccess) return true;
    if (state != cudaErrorNotReady) throw_cuda_error(state, "cudaEventQuery", __FILE__, __LINE__);
    if (Clock::now() >= next_poll) {
      if (!sink.keep_going()) return false;
      next_poll = Clock::now() + poll_interval;
    }
    if (spins < 200)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// Waits for everything queued on `stream` so far; see wait_for_event.
inline bool wait_for_stream(cudaStream_t stream, PairSink& sink) {
  CudaEvent done;
  done.record(stream);
  return wait_for_event(done.get(), sink);
}

}  // namespace simjoin::gpu
