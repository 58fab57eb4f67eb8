// Starting the engine's worker threads with every signal blocked, so that the host process's
// signal handlers (PostgreSQL's cancel, timeout and shutdown handlers) always run on the thread
// that called the engine, never on a worker.
#pragma once

#include <signal.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace simjoin {

template <typename Function, typename... Args>
std::thread start_worker_thread(Function&& function, Args&&... args) {
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);  // the new thread inherits this mask
  std::thread worker;
  try {
    worker = std::thread(std::forward<Function>(function), std::forward<Args>(args)...);
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return worker;
}

// Runs body(begin, end) over [0, n) split into up to `threads` contiguous parts (at least 65,536
// items each), the first on the calling thread. No exception crosses a thread: the first one a
// part throws (std::bad_alloc included) is rethrown here after every part has ended; a part
// whose thread cannot be started runs on the calling thread.
template <typename Body>
void parallel_for_ranges(std::size_t n, int threads, const Body& body) {
  const std::size_t parts = std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), n / 65536));
  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto guarded = [&](std::size_t begin, std::size_t end) noexcept {
    try {
      body(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(parts);  // push_back below never reallocates (a joinable temporary must not die)
  std::size_t p = 1;
  try {
    for (; p < parts; ++p) workers.push_back(start_worker_thread(guarded, n * p / parts, n * (p + 1) / parts));
  } catch (...) {  // no more threads: the remaining parts run here
  }
  for (std::size_t q = p; q < parts; ++q) guarded(n * q / parts, n * (q + 1) / parts);
  guarded(0, n / parts);
  for (std::thread& worker : workers) worker.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace simjoin
