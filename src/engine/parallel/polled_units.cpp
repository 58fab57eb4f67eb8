#include "engine/parallel/polled_units.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/parallel/worker_thread.h"

namespace simjoin {

bool run_polled_units(std::size_t units, int threads, const KeepGoing& keep_going,
                      const std::function<void(std::size_t unit)>& work) {
  const auto go_on = [&] { return !keep_going || keep_going(); };
  if (!go_on()) return false;
  const std::size_t workers = std::min<std::size_t>(units, static_cast<std::size_t>(std::max(threads, 1)));
  if (workers <= 1) {
    for (std::size_t unit = 0; unit < units; ++unit) {
      work(unit);
      if (!go_on()) return false;
    }
    return true;
  }

  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable ended;
  std::size_t running = 0;
  std::exception_ptr first_error;
  auto body = [&] {
    try {
      for (;;) {
        if (stop.load(std::memory_order_relaxed) || threads_abandoned()) break;
        const std::size_t unit = next.fetch_add(1, std::memory_order_relaxed);
        if (unit >= units) break;
        work(unit);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!first_error) first_error = std::current_exception();
      stop = true;
    }
    std::lock_guard<std::mutex> lock(mutex);
    --running;
    ended.notify_all();
  };
  std::vector<std::thread> started;
  started.reserve(workers);
  for (std::size_t t = 0; t < workers; ++t) {
    try {
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++running;
      }
      started.push_back(start_worker_thread(body));
    } catch (...) {  // no more threads: those started do the work
      std::lock_guard<std::mutex> lock(mutex);
      --running;
      break;
    }
  }
  if (started.empty()) {  // not even one: the calling thread does it all
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++running;
    }
    body();
  }

  bool stopped = false;
  std::exception_ptr poll_error;
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (running > 0) {
      ended.wait_for(lock, std::chrono::milliseconds(10));
      if (running == 0 || stopped) continue;
      lock.unlock();
      try {
        stopped = !go_on();
      } catch (...) {
        poll_error = std::current_exception();
        stopped = true;
      }
      lock.lock();
      if (stopped) stop = true;
    }
  }
  for (std::thread& worker : started) worker.join();
  if (poll_error) std::rethrow_exception(poll_error);
  if (first_error) std::rethrow_exception(first_error);
  return !stopped && !threads_abandoned();
}

KeepGoing reporting_progress(const KeepGoing& keep_going, const Progress& progress,
                             const std::atomic<std::uint64_t>& counted, std::uint64_t before) {
  return [&keep_going, &progress, &counted, before] {
    if (progress) progress(before + counted.load(std::memory_order_relaxed));
    return !keep_going || keep_going();
  };
}

}  // namespace simjoin
