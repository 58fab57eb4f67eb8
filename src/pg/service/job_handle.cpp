// A backend's handle on a GPU service job (pg/service/job_handle.h).
#include "pg/service/job_handle.h"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/wait_event.h"
#include "utils/timestamp.h"
}

#include <algorithm>
#include <cstring>
#include <new>

#include "gpu_backend.h"
#include "pg/service/shared.h"
#include "pg/service/shared_points.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

constexpr std::uint64_t kWorkingBytes = 64ull << 20;  // the job's batch buffers on the device

// Marks this backend's part of the slot done; the service frees it when it is done too.
void release_slot(int slot_index, bool withdraw) {
  ServiceShared* shared = service_shared();
  JobSlot& slot = shared->jobs[slot_index];
  if (withdraw) slot.withdrawn.store(1);
  SpinLockAcquire(&shared->mutex);
  slot.backend_released = true;
  free_slot_if_released(&slot);
  Latch* service_latch = shared->service_latch;
  SpinLockRelease(&shared->mutex);
  if (withdraw && service_latch) SetLatch(service_latch);
}

// on_dsm_detach: the backend leaves the job (leave(), or backend exit) -- withdraw it.
void on_job_detach(dsm_segment*, Datum slot_index) { release_slot(DatumGetInt32(slot_index), true); }

const char* placement(bool self_join, dsm_handle segment) {
  return self_join ? "(self-join)" : segment != 0 ? "read in place" : "copied";
}

}  // namespace

std::uint64_t job_wanted_bytes(std::uint64_t points, std::uint32_t dim) {
  return 2 * points * gpu::device_bytes_per_point(dim) + kWorkingBytes;
}

std::uint64_t aggregate_job_wanted_bytes(std::uint64_t points, std::uint32_t dim,
                                         std::uint64_t extra_bytes) {
  const std::uint64_t per_point =
      std::max(gpu::device_bytes_per_point(dim), gpu::szl_device_bytes_per_point(dim));
  return 2 * (points * per_point + extra_bytes) + kWorkingBytes;
}

JobPointsPlan plan_job_points(const PointSet& left, const PointSet* right) {
  JobPointsPlan plan;
  if (!shared_points_segment(left.coords, &plan.left_segment))
    plan.left_bytes = MAXALIGN(sizeof(double) * left.n * left.dim);
  if (right && !shared_points_segment(right->coords, &plan.right_segment))
    plan.right_bytes = MAXALIGN(sizeof(double) * right->n * right->dim);
  return plan;
}

JobHeader* ServiceJobHandle::create(Size bytes) {
  segment_ = dsm_create(bytes, 0);
  dsm_pin_mapping(segment_);  // outside the resource owner: leave() detaches it
  job_ = new (dsm_segment_address(segment_)) JobHeader();
  return job_;
}

Size ServiceJobHandle::place_points(const JobPointsPlan& plan, const PointSet& left,
                                    const PointSet* right, Size offset) {
  job_->dim = static_cast<std::uint32_t>(left.dim);
  job_->n_left = left.n;
  job_->n_right = right ? right->n : 0;
  job_->self_join = right == nullptr;
  job_->left_segment = plan.left_segment;
  job_->right_segment = plan.right_segment;
  job_->left_offset = offset;
  job_->right_offset = offset + plan.left_bytes;
  char* base = reinterpret_cast<char*>(job_);
  if (plan.left_bytes > 0)
    std::memcpy(base + job_->left_offset, left.coords, sizeof(double) * left.n * left.dim);
  if (plan.right_bytes > 0)
    std::memcpy(base + job_->right_offset, right->coords, sizeof(double) * right->n * right->dim);
  elog(DEBUG1, "simjoin: GPU service %s job: left points %s, right points %s",
       job_kind_name(job_->kind), plan.left_segment != 0 ? "read in place" : "copied",
       placement(right == nullptr, plan.right_segment));
  return offset + plan.left_bytes + plan.right_bytes;
}

void ServiceJobHandle::submit(std::uint64_t want_bytes, std::uint64_t candidates_estimate) {
  ServiceShared* shared = service_shared();
  job_->fault = static_cast<JobFault>(service_test_fault_setting);
  job_->magic = kJobMagic;
  SpinLockAcquire(&shared->mutex);
  for (int s = 0; s < kMaxJobs && slot_ < 0; ++s) {
    JobSlot& slot = shared->jobs[s];
    if (static_cast<JobState>(slot.state.load()) != JobState::Free) continue;
    slot_ = s;
    slot.job_id = shared->next_job_id++;
    slot.kind = static_cast<std::uint32_t>(job_->kind);
    slot.backend_pid = MyProcPid;
    slot.role = GetUserId();
    slot.backend_latch = MyLatch;
    slot.segment = dsm_segment_handle(segment_);
    slot.submitted_at = GetCurrentTimestamp();
    slot.started_at = 0;
    slot.device = -1;
    slot.want_bytes = want_bytes;
    slot.reserved_bytes = 0;
    slot.candidates_estimate = candidates_estimate;
    slot.candidates_done.store(0);
    slot.backend_released = false;
    slot.service_released = false;
    slot.withdrawn.store(0);
    slot.pairs.store(0);
    slot.state.store(static_cast<std::uint32_t>(JobState::Queued));
  }
  Latch* service_latch = shared->service_latch;
  SpinLockRelease(&shared->mutex);
  if (slot_ < 0) {
    leave();
    ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                    errmsg("simjoin: the GPU service has %d jobs already", kMaxJobs)));
  }
  on_dsm_detach(segment_, on_job_detach, Int32GetDatum(slot_));
  if (service_latch) SetLatch(service_latch);
}

bool ServiceJobHandle::service_lost() const {
  ServiceShared* shared = service_shared();
  const JobState state = static_cast<JobState>(shared->jobs[slot_].state.load());
  const auto service = static_cast<ServiceState>(shared->state.load());
  if (state == JobState::Queued)
    return service != ServiceState::Ready && service != ServiceState::Starting;
  return (state == JobState::Running || state == JobState::Streaming) && shared->service_pid == 0;
}

std::string ServiceJobHandle::failure() const {
  return job_->finished.load() == 2 ? std::string(job_->error) : "simjoin: the GPU service stopped";
}

void ServiceJobHandle::wait_for_service(long ms) {
  (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, std::min<long>(ms, 100),
                  PG_WAIT_EXTENSION);
  ResetLatch(MyLatch);
}

std::string job_error_message(const std::string& failure) {
  return failure.rfind("simjoin:", 0) == 0 ? failure : "simjoin: " + failure;
}

std::string job_fallback_note(const std::string& failure) {
  return "GPU join failed (" + failure + "); running it on the CPU";
}

void ServiceJobHandle::leave() noexcept {
  if (!segment_) return;
  dsm_segment* segment = segment_;
  segment_ = nullptr;
  job_ = nullptr;
  dsm_detach(segment);  // runs on_job_detach once submitted: the slot is withdrawn and released
}

}  // namespace simjoin::pg
