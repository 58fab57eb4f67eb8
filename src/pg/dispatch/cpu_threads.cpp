// A backend's CPU engine threads (pg/dispatch/cpu_threads.h): the leases from the cluster-wide
// cap, and the exit callback that stops the threads and returns the leases.
#include "pg/dispatch/cpu_threads.h"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"

PG_FUNCTION_INFO_V1(simjoin_test_cpu_threads_in_use);
}

#include <algorithm>
#include <chrono>
#include <thread>

#include "engine/parallel/worker_thread.h"
#include "pg/service/shared.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

int cores() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

int cap() { return max_cpu_threads_setting > 0 ? max_cpu_threads_setting : cores(); }

int threads_to_take(int wanted, std::int32_t in_use) {
  return std::max(1, std::min(wanted, cap() - static_cast<int>(in_use)));
}

int leased_by_this_backend = 0;  // the shared counter's threads this backend's leases hold

// Returns to the shared counter every lease this backend still holds (its exit, after its
// threads stopped: the leases' destructors will not run).
void return_cpu_thread_leases() {
  ServiceShared* shared = service_shared();
  if (shared && leased_by_this_backend > 0) shared->cpu_threads_in_use.fetch_sub(leased_by_this_backend);
  leased_by_this_backend = 0;
}

// ---- the exit without unwinding ---------------------------------------------------------------

int registered_in_pid = 0;  // this process's pid once registered (a forked child registers anew)

bool threads_stopped_within(std::chrono::milliseconds limit) noexcept {
  try {
    return abandon_threads_and_wait(limit);
  } catch (...) {  // no exception leaves into PostgreSQL: wait in plain sleeps instead
    for (auto waited = std::chrono::milliseconds(0); waited < limit; waited += std::chrono::milliseconds(10)) {
      if (running_worker_threads() == 0) return true;
      pg_usleep(10000);
    }
    return running_worker_threads() == 0;
  }
}

void stop_threads_at_exit(int, Datum) {
  while (!threads_stopped_within(std::chrono::seconds(10)))
    ereport(LOG, (errmsg("simjoin: waiting for %d engine threads to stop before the backend exits",
                         running_worker_threads())));
  return_cpu_thread_leases();
}

// Registers, once per process, a before_shmem_exit callback that first stops every engine thread
// of the process and waits for them (engine/parallel/worker_thread.h), then returns the CPU
// thread leases this backend still holds. Registered from inside a query, i.e. after
// InitPostgres's own callback (ShutdownPostgres, which aborts the transaction), it runs before
// it: callbacks run last registered, first called. Every engine thread of a backend runs under a
// lease: the first lease registers it, before any thread starts.
void ensure_session_exit_hook() {
  if (registered_in_pid == MyProcPid) return;
  before_shmem_exit(stop_threads_at_exit, 0);
  registered_in_pid = MyProcPid;
}

}  // namespace

int cpu_threads_free(int requested) {
  const int wanted = requested > 0 ? requested : cores();
  ServiceShared* shared = service_shared();
  return threads_to_take(wanted, shared ? shared->cpu_threads_in_use.load() : 0);
}

CpuThreadLease::CpuThreadLease(int requested) {
  ensure_session_exit_hook();
  const int wanted = requested > 0 ? requested : cores();
  ServiceShared* shared = service_shared();
  if (!shared) {  // no counter: the cap alone
    count_ = threads_to_take(wanted, 0);
    return;
  }
  std::int32_t in_use = shared->cpu_threads_in_use.load();
  int take = 0;
  do {
    take = threads_to_take(wanted, in_use);
  } while (!shared->cpu_threads_in_use.compare_exchange_weak(in_use, in_use + take));
  leased_ = take;
  count_ = take;
  leased_by_this_backend += take;
}

CpuThreadLease::~CpuThreadLease() {
  if (leased_ <= 0 || leased_by_this_backend < leased_) return;  // returned at exit already
  service_shared()->cpu_threads_in_use.fetch_sub(leased_);
  leased_by_this_backend -= leased_;
}

JoinSpec on_leased_cpu(JoinSpec spec, const CpuThreadLease& lease) {
  spec.device = Device::Cpu;
  spec.threads = lease.count();
  return spec;
}

}  // namespace simjoin::pg

// For the tests of session exits (test/session_death): the shared counter's threads leased now,
// NULL without the preload. Declared by the tests, not by the extension's script.
extern "C" Datum simjoin_test_cpu_threads_in_use(PG_FUNCTION_ARGS) {
  simjoin::pg::ServiceShared* shared = simjoin::pg::service_shared();
  if (!shared) PG_RETURN_NULL();
  PG_RETURN_INT32(shared->cpu_threads_in_use.load());
}
