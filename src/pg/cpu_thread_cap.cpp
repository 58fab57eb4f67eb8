// The cluster-wide CPU engine thread cap (cpu_thread_cap.h).
#include "cpu_thread_cap.h"

extern "C" {
#include "postgres.h"
}

#include <algorithm>
#include <thread>

#include "service_shared.h"
#include "settings.h"

namespace simjoin::pg {

namespace {

int cores() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

int cap() { return max_cpu_threads_setting > 0 ? max_cpu_threads_setting : cores(); }

int threads_to_take(int wanted, std::int32_t in_use) {
  return std::max(1, std::min(wanted, cap() - static_cast<int>(in_use)));
}

}  // namespace

int cpu_threads_free(int requested) {
  const int wanted = requested > 0 ? requested : cores();
  ServiceShared* shared = service_shared();
  return shared ? threads_to_take(wanted, shared->cpu_threads_in_use.load()) : wanted;
}

CpuThreadLease::CpuThreadLease(int requested) {
  const int wanted = requested > 0 ? requested : cores();
  ServiceShared* shared = service_shared();
  if (!shared) {
    count_ = requested;
    return;
  }
  std::int32_t in_use = shared->cpu_threads_in_use.load();
  int take = 0;
  do {
    take = threads_to_take(wanted, in_use);
  } while (!shared->cpu_threads_in_use.compare_exchange_weak(in_use, in_use + take));
  leased_ = take;
  count_ = take;
}

CpuThreadLease::~CpuThreadLease() {
  if (leased_ > 0) service_shared()->cpu_threads_in_use.fetch_sub(leased_);
}

JoinSpec on_leased_cpu(JoinSpec spec, const CpuThreadLease& lease) {
  spec.device = Device::Cpu;
  spec.threads = lease.count();
  return spec;
}

}  // namespace simjoin::pg
