// The backend's exit callback (session_exit.h).
#include "pg/session_exit.h"

extern "C" {
#include "postgres.h"
#include "storage/ipc.h"
#include "miscadmin.h"
}

#include <chrono>

#include "engine/parallel/worker_thread.h"
#include "pg/dispatch/cpu_thread_cap.h"

namespace simjoin::pg {

namespace {

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

}  // namespace

void ensure_session_exit_hook() {
  if (registered_in_pid == MyProcPid) return;
  before_shmem_exit(stop_threads_at_exit, 0);
  registered_in_pid = MyProcPid;
}

}  // namespace simjoin::pg
