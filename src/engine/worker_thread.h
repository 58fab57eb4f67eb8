// Starting the engine's worker threads with every signal blocked, so that the host process's
// signal handlers (PostgreSQL's cancel, timeout and shutdown handlers) always run on the thread
// that called the engine, never on a worker.
#pragma once

#include <signal.h>

#include <algorithm>
#include <cstddef>
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
// items each), the first on the calling thread. body must not throw.
template <typename Body>
void parallel_for_ranges(std::size_t n, int threads, const Body& body) {
  const std::size_t parts = std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), n / 65536));
  std::vector<std::thread> workers;
  for (std::size_t p = 1; p < parts; ++p) {
    workers.push_back(start_worker_thread(body, n * p / parts, n * (p + 1) / parts));
  }
  body(0, n / parts);
  for (std::thread& worker : workers) worker.join();
}

}  // namespace simjoin
