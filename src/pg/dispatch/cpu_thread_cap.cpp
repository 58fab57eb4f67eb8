// The cluster-wide CPU engine thread cap (pg/dispatch/cpu_thread_cap.h).
#include "pg/dispatch/cpu_thread_cap.h"

extern "C" {
#include "postgres.h"
#include "fmgr.h"

PG_FUNCTION_INFO_V1(simjoin_test_cpu_threads_in_use);
}

#include <algorithm>
#include <thread>

#include "pg/service/shared.h"
#include "pg/session_exit.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

int cores() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

int cap() { return max_cpu_threads_setting > 0 ? max_cpu_threads_setting : cores(); }

int threads_to_take(int wanted, std::int32_t in_use) {
  return std::max(1, std::min(wanted, cap() - static_cast<int>(in_use)));
}

int leased_by_this_backend = 0;  // the shared counter's threads this backend's leases hold

}  // namespace

int cpu_threads_free(int requested) {
  const int wanted = requested > 0 ? requested : cores();
  ServiceShared* shared = service_shared();
  return threads_to_take(wanted, shared ? shared->cpu_threads_in_use.load() : 0);
}

CpuThreadLease::CpuThreadLease(int requested) {
  ensure_session_exit_hook();  // every engine thread of a backend runs under a lease
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

void return_cpu_thread_leases() {
  ServiceShared* shared = service_shared();
  if (shared && leased_by_this_backend > 0) shared->cpu_threads_in_use.fetch_sub(leased_by_this_backend);
  leased_by_this_backend = 0;
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
