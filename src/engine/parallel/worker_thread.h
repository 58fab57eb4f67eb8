// The engine's worker threads: started with every signal blocked, so that the host process's
// signal handlers (PostgreSQL's cancel, timeout and shutdown handlers) always run on the thread
// that called the engine, never on a worker; and counted while they run, so that a host that
// exits without unwinding (PostgreSQL's FATAL: proc_exit from deep inside the executor) can stop
// them all and wait for them before it frees the memory they read (abandon_threads_and_wait).
#pragma once

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace simjoin {

// True once the process is ending (abandon_threads_and_wait was called): every loop and wait of
// an engine thread stops at its next poll, and the work it leaves is never read.
bool threads_abandoned() noexcept;

// Waits on `condition` (with `lock` held) until ready() or the process abandons its threads; in
// short slices, since an abandonment notifies nobody. Returns ready().
template <typename Ready>
bool wait_unless_abandoned(std::condition_variable& condition, std::unique_lock<std::mutex>& lock,
                           Ready ready,
                           std::chrono::milliseconds slice = std::chrono::milliseconds(20)) {
  while (!condition.wait_for(lock, slice, [&] { return ready() || threads_abandoned(); })) {
  }
  return ready();
}

// Asks every engine thread of the process to stop and waits until none runs, at most `limit`;
// false if some still ran then (the caller may wait again). For the host's exit path only: the
// engine's threads stop for good, the calling thread's own engine calls (if any) are abandoned.
bool abandon_threads_and_wait(std::chrono::milliseconds limit);

// Engine threads of the process running now.
int running_worker_threads() noexcept;

namespace detail {
void worker_thread_started() noexcept;
void worker_thread_ended() noexcept;
struct CountedThread {
  ~CountedThread() { worker_thread_ended(); }
};
}  // namespace detail

template <typename Function, typename... Args>
std::thread start_worker_thread(Function&& function, Args&&... args) {
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);  // the new thread inherits this mask
  std::thread worker;
  detail::worker_thread_started();
  try {
    // Counted until its last statement: nothing after it touches the caller's memory.
    worker = std::thread(
        [](std::decay_t<Function> body, std::decay_t<Args>... arguments) {
          detail::CountedThread counted;
          std::invoke(std::move(body), std::move(arguments)...);
        },
        std::forward<Function>(function), std::forward<Args>(args)...);
  } catch (...) {
    detail::worker_thread_ended();
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return worker;
}

// The number of parts parallel_for_ranges splits n items into for `threads` threads: at most
// one per thread, at least 65,536 items each (thread start-up outweighs less), at least one.
inline std::size_t range_parts(std::size_t n, int threads) {
  return std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), n / 65536));
}

// Runs body(part) for part in [0, parts), part 0 on the calling thread, the others on threads of
// their own. No exception crosses a thread: the first one a part throws (std::bad_alloc
// included) is rethrown here after every part has ended; a part whose thread cannot be started
// runs on the calling thread.
template <typename Body>
void parallel_for_parts(std::size_t parts, const Body& body) {
  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto guarded = [&](std::size_t part) noexcept {
    try {
      body(part);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(parts);  // push_back below never reallocates (a joinable temporary must not die)
  std::size_t p = 1;
  try {
    for (; p < parts; ++p) workers.push_back(start_worker_thread(guarded, p));
  } catch (...) {  // no more threads: the remaining parts run here
  }
  for (std::size_t q = p; q < parts; ++q) guarded(q);
  if (parts > 0) guarded(0);
  for (std::thread& worker : workers) worker.join();
  if (first_error) std::rethrow_exception(first_error);
}

// Part `part` of [0, n) split into `parts` contiguous ranges: [begin, end).
inline std::size_t part_begin(std::size_t n, std::size_t parts, std::size_t part) {
  return n * part / parts;
}

// Runs body(begin, end) over [0, n) split into range_parts(n, threads) contiguous parts, as
// parallel_for_parts runs them.
template <typename Body>
void parallel_for_ranges(std::size_t n, int threads, const Body& body) {
  const std::size_t parts = range_parts(n, threads);
  parallel_for_parts(parts, [&](std::size_t part) {
    body(part_begin(n, parts, part), part_begin(n, parts, part + 1));
  });
}

}  // namespace simjoin
