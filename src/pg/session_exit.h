// What simjoin does when its backend exits without unwinding: a FATAL error (a terminated
// session, a lost client, a failed authentication of a parallel worker) calls proc_exit from
// wherever the backend was, so no destructor of the C++ frames below runs, while PostgreSQL's own
// exit callbacks abort the transaction and free its memory, pins and shared segments.
#pragma once

namespace simjoin::pg {

// Registers, once per process, a before_shmem_exit callback that first stops every engine thread
// of the process and waits for them (engine/parallel/worker_thread.h), then returns the CPU thread leases this
// backend still holds (pg/dispatch/cpu_thread_cap.h). Registered from inside a query, i.e. after
// InitPostgres's own callback (ShutdownPostgres, which aborts the transaction), it runs before
// it: callbacks run last registered, first called. Call it before starting any thread.
void ensure_session_exit_hook();

}  // namespace simjoin::pg
