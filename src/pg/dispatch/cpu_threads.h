// A backend's CPU engine threads. The cluster-wide cap (simjoin.max_cpu_threads): sixteen
// sessions that each start one thread per core would oversubscribe the machine. A join leases its
// threads from a counter in the service's shared memory and returns them when it ends; a join
// that finds the threads taken runs on fewer, at least one. Without the library preloaded there
// is no counter and a join runs on the threads it asks for, at most the cap (the machine's cores
// by default). A backend that exits without unwinding (a FATAL error: a terminated session, a
// lost client, a failed authentication of a parallel worker calls proc_exit from wherever the
// backend was, so no destructor of the C++ frames below runs) first stops and waits for every
// engine thread, then returns what it still holds.
#pragma once

#include "engine/types.h"

namespace simjoin::pg {

class CpuThreadLease {
 public:
  // requested: simjoin.threads (0 = one per core).
  explicit CpuThreadLease(int requested);
  ~CpuThreadLease();
  CpuThreadLease(const CpuThreadLease&) = delete;
  CpuThreadLease& operator=(const CpuThreadLease&) = delete;

  // The threads the join may run (a JoinSpec::threads value, never 0 with a counter).
  int count() const { return count_; }

 private:
  int count_ = 0;
  int leased_ = 0;  // taken from the shared counter
};

// The threads a lease taken now would get (a snapshot: for Device::Auto's estimate).
int cpu_threads_free(int requested);

// The spec run on this backend's CPU engine with the lease's threads.
JoinSpec on_leased_cpu(JoinSpec spec, const CpuThreadLease& lease);

}  // namespace simjoin::pg
