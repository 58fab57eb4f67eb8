// The count of the engine's running threads and the process's abandonment (engine/parallel/worker_thread.h).
#include "engine/parallel/worker_thread.h"

#include <atomic>
#include <condition_variable>

namespace simjoin {

namespace {

std::atomic<bool> abandoned{false};
std::atomic<int> running{0};

// Made on first use and never destroyed: a thread may end while the process runs its exit
// handlers.
struct Ended {
  std::mutex mutex;
  std::condition_variable changed;
};
Ended& ended() {
  static Ended* state = new Ended;
  return *state;
}

}  // namespace

bool threads_abandoned() noexcept { return abandoned.load(std::memory_order_relaxed); }

int running_worker_threads() noexcept { return running.load(); }

bool abandon_threads_and_wait(std::chrono::milliseconds limit) {
  abandoned.store(true);
  Ended& state = ended();
  std::unique_lock<std::mutex> lock(state.mutex);
  return state.changed.wait_for(lock, limit, [] { return running.load() == 0; });
}

namespace detail {

void worker_thread_started() noexcept { running.fetch_add(1); }

void worker_thread_ended() noexcept {
  Ended& state = ended();
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    running.fetch_sub(1);
  }
  state.changed.notify_all();
}

}  // namespace detail

}  // namespace simjoin
