// The GPU service's shared memory and its registration at preload (pg/service/shared.h).
#include "pg/service/shared.h"

extern "C" {
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
}

#include <new>

#include "pg/settings.h"

namespace simjoin::pg {

namespace {

ServiceShared* shared = nullptr;
shmem_request_hook_type previous_request_hook = nullptr;
shmem_startup_hook_type previous_startup_hook = nullptr;

void request_shmem() {
  if (previous_request_hook) previous_request_hook();
  RequestAddinShmemSpace(MAXALIGN(sizeof(ServiceShared)));
}

void startup_shmem() {
  if (previous_startup_hook) previous_startup_hook();
  LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
  bool found = false;
  void* memory = ShmemInitStruct("simjoin service", sizeof(ServiceShared), &found);
  if (!found) {
    shared = new (memory) ServiceShared();  // zeroed atomics and slots
    SpinLockInit(&shared->mutex);
    shared->next_job_id = 1;
  } else {
    shared = static_cast<ServiceShared*>(memory);
  }
  LWLockRelease(AddinShmemInitLock);
}

}  // namespace

const char* job_state_name(JobState state) {
  switch (state) {
    case JobState::Free: return "free";
    case JobState::Queued: return "queued";
    case JobState::Running: return "running";
    case JobState::Streaming: return "streaming";
    case JobState::Done: return "done";
    case JobState::Failed: return "failed";
  }
  return "unknown";
}

void free_slot_if_released(JobSlot* slot) {
  if (slot->backend_released && slot->service_released) {
    slot->state.store(static_cast<std::uint32_t>(JobState::Free));
    slot->job_id = 0;
  }
}

ServiceShared* service_shared() { return shared; }

void service_preload_init() {
  previous_request_hook = shmem_request_hook;
  shmem_request_hook = request_shmem;
  previous_startup_hook = shmem_startup_hook;
  shmem_startup_hook = startup_shmem;
  if (service_device_setting == SERVICE_DEVICE_OFF) return;

  BackgroundWorker worker;
  memset(&worker, 0, sizeof worker);
  snprintf(worker.bgw_name, BGW_MAXLEN, "simjoin gpu service");
  snprintf(worker.bgw_type, BGW_MAXLEN, "simjoin gpu service");
  snprintf(worker.bgw_library_name, BGW_MAXLEN, "simjoin");
  snprintf(worker.bgw_function_name, BGW_MAXLEN, "simjoin_service_main");
  // Connected to no database: only so that it shows in pg_stat_activity (backend_type).
  worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
  worker.bgw_start_time = BgWorkerStart_ConsistentState;  // a database connection needs it
  worker.bgw_restart_time = 1;  // seconds: after a FATAL exit (status 1), never a crash restart
  RegisterBackgroundWorker(&worker);
}

}  // namespace simjoin::pg
