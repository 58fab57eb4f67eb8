// Starting the engine's worker threads with every signal blocked, so that the host process's
// signal handlers (PostgreSQL's cancel, timeout and shutdown handlers) always run on the thread
// that called the engine, never on a worker.
#pragma once

#include <signal.h>

#include <thread>
#include <utility>

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

}  // namespace simjoin
