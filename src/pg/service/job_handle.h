// A backend's handle on one job of the GPU service, whatever its kind (a join's ring or an
// aggregate's arrays): the job's DSM segment, the points placed in it or read in place, its slot,
// and leaving it. The segment is mapped outside any resource owner and detached by leave() (or the
// destructor); at backend exit the detach callback withdraws the job.
#pragma once

extern "C" {
#include "postgres.h"
#include "storage/dsm.h"
}

#include <cstdint>
#include <string>

#include "engine/types.h"
#include "pg/service/job.h"

namespace simjoin::pg {

// Device bytes a job asks the ledger for: twice its inputs on the device, so that the inputs take
// half of it (the GPU backend's split), plus batch buffers.
std::uint64_t job_wanted_bytes(std::uint64_t points, std::uint32_t dim);
// The same for a job that folds an aggregate on the device (neighbour statistics, DBSCAN): the
// GPU folds only when the whole join fits at once, for whichever algorithm Auto may pick (the
// SZL's per-point needs where larger), beside `extra_bytes` of per-point aggregate arrays; the
// fit check allows half the reservation, so twice that, plus the working buffers.
std::uint64_t aggregate_job_wanted_bytes(std::uint64_t points, std::uint32_t dim,
                                         std::uint64_t extra_bytes);

// Where a job's points will be: read in place from the segment the backend built them in
// (pg/service/shared_points.h), or copied into the job's segment (left_bytes / right_bytes).
struct JobPointsPlan {
  dsm_handle left_segment = 0, right_segment = 0;
  Size left_bytes = 0, right_bytes = 0;  // MAXALIGNed bytes to copy; 0 when read in place
};
JobPointsPlan plan_job_points(const PointSet& left, const PointSet* right);

// A failed job's ERROR message ("simjoin: ..."), and the note of its rerun on the CPU engine
// (simjoin.gpu_error = fallback).
std::string job_error_message(const std::string& failure);
std::string job_fallback_note(const std::string& failure);

class ServiceJobHandle {
 public:
  ServiceJobHandle() = default;
  ~ServiceJobHandle() { leave(); }
  ServiceJobHandle(const ServiceJobHandle&) = delete;
  ServiceJobHandle& operator=(const ServiceJobHandle&) = delete;

  // Creates the job's segment of `bytes` with a zeroed JobHeader at its start. PostgreSQL code:
  // inside pg_call.
  JobHeader* create(Size bytes);
  // Fills the header's join fields (dim, sizes, self_join) and its points (from `offset`: the
  // points not read in place are copied there); returns the offset after them.
  Size place_points(const JobPointsPlan& plan, const PointSet& left, const PointSet* right,
                    Size offset);
  // Marks the header complete, takes a free slot (queued), registers the detach callback that
  // withdraws the job and wakes the service. ERROR (after leaving the job) when every slot is
  // taken. Inside pg_call.
  void submit(std::uint64_t want_bytes, std::uint64_t candidates_estimate);

  JobHeader* header() const { return job_; }
  int slot() const { return slot_; }
  // The service that admitted the job is gone (it fails its jobs on exit; this covers the rest).
  bool service_lost() const;
  // Why the job failed: its error, or the service's stop when it left none.
  std::string failure() const;
  // Detaches the segment: the job is withdrawn and its slot released. Idempotent.
  void leave() noexcept;
  // Waits up to `ms` (at most 100) for this backend's latch: the service sets it when the job
  // moves. Inside pg_call.
  static void wait_for_service(long ms);

 private:
  dsm_segment* segment_ = nullptr;
  JobHeader* job_ = nullptr;
  int slot_ = -1;
};

}  // namespace simjoin::pg
