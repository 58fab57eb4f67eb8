// The GPU service's shared memory: one ServiceShared in the main segment (allocated when the
// library is preloaded), holding the device ledgers and the job slots that backends and the
// service process both read. A job's points and result ring live in its own DSM segment
// (pg/service/job.h).
#pragma once

extern "C" {
#include "postgres.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "storage/spin.h"
#include "datatype/timestamp.h"
}

#include <atomic>
#include <cstdint>

namespace simjoin::pg {

// Who writes what: slots are taken and freed under `mutex` (a spinlock: backends and the service's
// main thread only, a few instructions each); a slot's atomics (state, progress) are written by
// the service's runner threads without the lock; ledgers are written by the service's main thread
// under the lock.

constexpr int kMaxDevices = 16;
constexpr int kMaxJobs = 256;

enum class JobState : std::uint32_t {
  Free = 0,
  Queued,     // submitted, waiting for the ledger
  Running,    // admitted: memory reserved, the engine is planning, uploading, indexing
  Streaming,  // the first batch was published
  Done,       // the engine finished; the backend may still be reading the ring
  Failed,     // the engine or the service failed; the backend reads the error
};
const char* job_state_name(JobState state);

// The service process's own state.
enum class ServiceState : std::uint32_t { Absent = 0, Starting, Ready, Unusable };

struct DeviceLedger {
  char name[96];
  std::uint64_t total_bytes;     // the device's memory
  std::uint64_t limit_bytes;     // what jobs may reserve in all (simjoin.gpu_memory_limit)
  std::uint64_t reserved_bytes;  // reserved by admitted jobs now
  std::int32_t running_jobs;
  std::uint64_t jobs_done;
  std::uint64_t jobs_failed;
};

struct JobSlot {
  std::atomic<std::uint32_t> state;  // JobState
  std::uint64_t job_id;
  std::uint32_t kind;           // JobKind (pg/service/job.h)
  std::int32_t backend_pid;
  Oid role;                     // the submitting session's user: who may see the job's details
  Latch* backend_latch;         // the backend's process latch (main segment)
  dsm_handle segment;
  TimestampTz submitted_at;
  TimestampTz started_at;       // 0 while queued
  std::int32_t device;          // -1 while queued
  std::uint64_t want_bytes;     // the reservation the job asks for
  std::uint64_t reserved_bytes; // granted (less than wanted: the join runs in chunks)
  std::uint64_t candidates_estimate;  // the sampled estimate of the join's candidate pairs
  std::atomic<std::uint64_t> candidates_done;  // the engine's progress (PairSink::progress)
  // Released by each party when it is done with the slot; the second one frees it.
  bool backend_released;
  bool service_released;
  std::atomic<std::uint32_t> withdrawn;  // the backend stopped reading: end the job
  std::atomic<std::uint64_t> pairs;      // published to the ring so far
};

struct ServiceShared {
  slock_t mutex;
  std::atomic<std::uint32_t> state;  // ServiceState
  std::int32_t service_pid;          // 0 when no service runs
  Latch* service_latch;              // the service's process latch (main segment: same address everywhere)
  bool cpu_device;                   // simjoin.service_device = cpu (tests): the CPU engine as the device
  char unusable_reason[256];
  std::int32_t n_devices;
  DeviceLedger devices[kMaxDevices];
  std::uint64_t next_job_id;
  std::atomic<std::int32_t> cpu_threads_in_use;  // the cluster-wide CPU engine thread cap
  JobSlot jobs[kMaxJobs];
};

// Frees a slot once both parties (backend_released, service_released) are done with it. Under
// ServiceShared::mutex.
void free_slot_if_released(JobSlot* slot);

// The shared state, or nullptr when the library was not preloaded.
ServiceShared* service_shared();

// Called from _PG_init while preloading: asks for the shared memory, installs the hooks that create
// it, and registers the service's background worker.
void service_preload_init();

}  // namespace simjoin::pg
