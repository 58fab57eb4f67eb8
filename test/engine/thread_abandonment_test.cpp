// abandon_threads_and_wait (engine/parallel/worker_thread.h): a host that exits without unwinding stops every
// engine thread and waits for it, whatever the thread was doing: a producer blocked on a full
// queue nobody drains, polled work units, a parallel index build. Each case runs in a child
// process (abandonment is for good), left mid-join as PostgreSQL's FATAL leaves a backend.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>

#include "join_scenarios.h"
#include "engine/parallel/pair_stream.h"
#include "engine/parallel/polled_units.h"
#include "test_support.h"
#include "engine/parallel/worker_thread.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;
using std::chrono::milliseconds;

// In the child: true if every engine thread ended within 5 s of the abandonment.
bool abandon_and_check() {
  if (running_worker_threads() == 0) return false;  // the case started no thread: it tests nothing
  const auto start = Clock::now();
  const bool ended = abandon_threads_and_wait(std::chrono::seconds(5));
  return ended && running_worker_threads() == 0 && seconds_since(start) < 5.0;
}

// A stream whose consumer is gone: the producer and its workers block on full queues.
[[noreturn]] void abandon_a_stream_nobody_drains() {
  const Points points = huge_cell();
  JoinSpec spec = cpu_spec(0.5);
  spec.threads = 4;
  spec.batch_pairs = 1000;
  const PointSet set = points.set();
  // Never destroyed: the host's frames are gone, as after proc_exit.
  auto* stream = new PairStream(set, nullptr, spec, PairStream::Options{});
  StreamBatch batch;
  while (stream->next(&batch, milliseconds(50)) != PairStream::Next::Batch) {
  }
  std::this_thread::sleep_for(milliseconds(200));  // the queue fills; the producers block
  std::_Exit(abandon_and_check() ? 0 : 1);
}

// Work units on four threads, called from a thread that is not the one abandoning them (as a
// PairStream's producer calls the engine): they stop, and the call says it did not complete.
[[noreturn]] void abandon_polled_units() {
  std::atomic<bool> returned{false};
  std::atomic<bool> complete{true};
  std::thread caller([&] {
    complete = run_polled_units(1000000, 4, nullptr,
                                [](std::size_t) { std::this_thread::sleep_for(milliseconds(1)); });
    returned = true;
  });
  std::this_thread::sleep_for(milliseconds(100));
  const bool ended = abandon_and_check();
  caller.join();
  std::_Exit(ended && returned && !complete ? 0 : 1);
}

[[noreturn]] void abandon_nothing() {
  const auto start = Clock::now();
  const bool ended = abandon_threads_and_wait(std::chrono::seconds(5));
  std::_Exit(ended && threads_abandoned() && seconds_since(start) < 1.0 ? 0 : 1);
}

// The scenario's exit status in a forked child (128 + the signal if one ended it). Plain fork, not
// a GoogleTest death test: the GPU machine's GoogleTest crashed in its death-test set-up.
int status_in_child(void (*scenario)()) {
  const pid_t child = fork();
  if (child == 0) scenario();  // never returns
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(ThreadAbandonment, AStreamNobodyDrains) { EXPECT_EQ(status_in_child(abandon_a_stream_nobody_drains), 0); }

TEST(ThreadAbandonment, PolledUnitsOnAnotherThread) { EXPECT_EQ(status_in_child(abandon_polled_units), 0); }

TEST(ThreadAbandonment, NoThreadsIsImmediate) { EXPECT_EQ(status_in_child(abandon_nothing), 0); }

}  // namespace
}  // namespace simjoin
