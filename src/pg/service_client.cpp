// A backend's side of the GPU service (service_client.h): the route of a join, the job's segment,
// its slot, and the stream that reads its ring. The segment is mapped outside any resource owner
// and detached by the stream's stop() (the custom scan's memory-context callback or a C++ scope
// runs it on ERROR); at backend exit the detach callback withdraws the job.
#include "service_client.h"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

#include <cmath>
#include <cstring>

#include "cpu_thread_cap.h"
#include "device_choice.h"
#include "engine_runner.h"
#include "gpu_backend.h"
#include "join_backend.h"
#include "pg_guard.h"
#include "service_job.h"
#include "service_shared.h"
#include "settings.h"
#include "shared_points.h"

namespace simjoin::pg {

namespace {

constexpr std::uint32_t kRingSlots = 4;
constexpr std::uint64_t kWorkingBytes = 64ull << 20;  // the job's batch buffers on the device

// Device bytes a job asks the ledger for: twice its inputs on the device, so that the inputs take
// half of it (the GPU backend's split), plus batch buffers.
std::uint64_t wanted_bytes(std::uint64_t points, std::uint32_t dim) {
  return 2 * points * gpu::device_bytes_per_point(dim) + kWorkingBytes;
}

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

// on_dsm_detach: the backend leaves the job (stop(), or backend exit) -- withdraw it.
void on_job_detach(dsm_segment*, Datum slot_index) { release_slot(DatumGetInt32(slot_index), true); }

// The join on this backend's CPU engine, on threads leased from the cluster-wide cap; reports the
// route's note (simjoin.device = gpu without a service) as its fallback note.
class LocalStream : public BatchSource {
 public:
  LocalStream(const PointSet& left, const PointSet* right, const JoinSpec& spec,
              PairStream::Options options, std::string note)
      : lease_(spec.threads), stream_(left, right, on_leased_cpu(spec, lease_), std::move(options)),
        note_(std::move(note)) {}
  Next next(StreamBatch* batch, std::chrono::milliseconds timeout) override {
    return stream_.next(batch, timeout);
  }
  void stop() noexcept override { stream_.stop(); }
  const JoinStats& stats() const override { return stream_.stats(); }
  std::exception_ptr error() const override { return stream_.error(); }
  const std::string& fallback_note() const override { return note_; }

 private:
  CpuThreadLease lease_;  // declared before the stream: returned after its threads ended
  PairStream stream_;
  std::string note_;
};

class ServiceStream : public BatchSource {
 public:
  ServiceStream(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                PairStream::Options options, std::optional<JoinWork> work)
      : options_(std::move(options)), left_(left), spec_(spec), work_(std::move(work)) {
    if (right) right_ = *right;
    has_right_ = right != nullptr;
    pg_call([&] { create_job(); });
  }
  ~ServiceStream() override { stop(); }

  Next next(StreamBatch* batch, std::chrono::milliseconds timeout) override {
    if (local_) return local_->next(batch, timeout);
    if (!job_) return Next::End;
    release_current();
    const TimestampTz deadline = GetCurrentTimestamp() + timeout.count() * 1000;
    for (;;) {
      const std::uint64_t head = job_->head.load(std::memory_order_acquire);
      if (tail_ < head) {
        const RingSlotView view = ring_slot(job_, tail_);
        batch->left = view.left;
        batch->right = view.right;
        batch->distance = options_.keep_distance ? view.distance : nullptr;
        batch->size = *view.size;
        holding_ = true;
        delivered_ += batch->size;
        return Next::Batch;
      }
      const std::uint32_t finished = job_->finished.load(std::memory_order_acquire);
      if (finished != 0 && job_->head.load(std::memory_order_acquire) == tail_)
        return finish(finished == 2);
      if (service_lost()) return finish(true);
      if (options_.interrupted && options_.interrupted()) return stop_early();
      const long wait_ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
      if (wait_ms <= 0) return Next::Timeout;
      pg_call([wait_ms] {
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
                        std::min<long>(wait_ms, 100), PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
      });
    }
  }

  void stop() noexcept override {
    if (local_) local_->stop();
    if (job_) {
      stats_.stopped = job_->finished.load() == 0;
      leave_job();
    }
  }

  const JoinStats& stats() const override { return local_ ? local_->stats() : stats_; }
  std::exception_ptr error() const override { return local_ ? local_->error() : error_; }
  const std::string& fallback_note() const override { return note_; }

 private:
  void create_job() {
    ServiceShared* shared = service_shared();
    const std::uint32_t dim = static_cast<std::uint32_t>(left_.dim);
    const std::uint64_t n_right = has_right_ ? right_.n : 0;
    const std::uint32_t slot_pairs =
        static_cast<std::uint32_t>(std::max<std::size_t>(1024, spec_.batch_pairs));
    const Size header = MAXALIGN(sizeof(JobHeader));
    // Points the backend built in shared memory are read where they are; others are copied in.
    dsm_handle left_segment = 0, right_segment = 0;
    const bool left_in_place = shared_points_segment(left_.coords, &left_segment);
    const bool right_in_place = has_right_ && shared_points_segment(right_.coords, &right_segment);
    const Size left_bytes = left_in_place ? 0 : MAXALIGN(sizeof(double) * left_.n * dim);
    const Size right_bytes = right_in_place ? 0 : MAXALIGN(sizeof(double) * n_right * dim);
    const Size ring_bytes = kRingSlots * ring_slot_bytes(slot_pairs);
    segment_ = dsm_create(header + left_bytes + right_bytes + ring_bytes, 0);
    dsm_pin_mapping(segment_);  // outside the resource owner: stop() detaches it
    job_ = new (dsm_segment_address(segment_)) JobHeader();
    job_->dim = dim;
    job_->n_left = left_.n;
    job_->n_right = n_right;
    job_->self_join = !has_right_;
    job_->spec = spec_;
    job_->keep_distance = options_.keep_distance;
    job_->order_by_right = options_.order_by_right;
    job_->fault = static_cast<JobFault>(service_test_fault_setting);
    job_->left_segment = left_segment;
    job_->right_segment = right_segment;
    job_->left_offset = header;
    job_->right_offset = header + left_bytes;
    job_->ring_offset = header + left_bytes + right_bytes;
    job_->ring_slots = kRingSlots;
    job_->slot_pairs = slot_pairs;
    if (!left_in_place)
      std::memcpy(reinterpret_cast<char*>(job_) + job_->left_offset, left_.coords,
                  sizeof(double) * left_.n * dim);
    if (has_right_ && !right_in_place)
      std::memcpy(reinterpret_cast<char*>(job_) + job_->right_offset, right_.coords,
                  sizeof(double) * n_right * dim);
    elog(DEBUG1, "simjoin: GPU service job: left points %s, right points %s",
         left_in_place ? "read in place" : "copied", !has_right_ ? "(self-join)"
                                                      : right_in_place ? "read in place" : "copied");
    job_->magic = kJobMagic;

    // The progress report's denominator (simjoin_jobs): the engine's work, sampled.
    const double estimated_candidates =
        (work_ ? *work_ : estimate_join_work(left_, has_right_ ? &right_ : nullptr, spec_))
            .candidates;
    SpinLockAcquire(&shared->mutex);
    for (int s = 0; s < kMaxJobs && slot_ < 0; ++s) {
      JobSlot& slot = shared->jobs[s];
      if (static_cast<JobState>(slot.state.load()) != JobState::Free) continue;
      slot_ = s;
      slot.job_id = shared->next_job_id++;
      slot.backend_pid = MyProcPid;
      slot.backend_latch = MyLatch;
      slot.segment = dsm_segment_handle(segment_);
      slot.submitted_at = GetCurrentTimestamp();
      slot.started_at = 0;
      slot.device = -1;
      slot.want_bytes = wanted_bytes(left_.n + n_right, dim);
      slot.reserved_bytes = 0;
      slot.candidates_estimate = static_cast<std::uint64_t>(estimated_candidates);
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
      dsm_detach(segment_);
      segment_ = nullptr;
      job_ = nullptr;
      ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                      errmsg("simjoin: the GPU service has %d jobs already", kMaxJobs)));
    }
    on_dsm_detach(segment_, on_job_detach, Int32GetDatum(slot_));
    if (service_latch) SetLatch(service_latch);
  }

  // The service that admitted the job is gone (it failed its jobs on exit; this covers the rest).
  bool service_lost() const {
    ServiceShared* shared = service_shared();
    const JobState state = static_cast<JobState>(shared->jobs[slot_].state.load());
    if (state == JobState::Queued) return shared->state.load() != static_cast<std::uint32_t>(ServiceState::Ready) &&
                                          shared->state.load() != static_cast<std::uint32_t>(ServiceState::Starting);
    return (state == JobState::Running || state == JobState::Streaming) &&
           shared->service_pid == 0;
  }

  void release_current() {
    if (!holding_) return;
    holding_ = false;
    tail_++;
    job_->tail.store(tail_, std::memory_order_release);
  }

  Next finish(bool failed) {
    release_current();
    const JobStatsRecord& r = job_->stats;
    if (!failed && r.stopped) failed = true;  // only this backend may stop a job: never a short result
    if (!failed) {
      stats_.device = r.device;
      stats_.algorithm = r.algorithm;
      stats_.indexed_dims = r.indexed_dims;
      stats_.batches = r.batches;
      stats_.candidates = r.candidates;
      stats_.pairs = r.pairs;
      stats_.stopped = r.stopped;
      for (int k = 0; k < r.phase_count && k < 8; ++k)
        stats_.phase_seconds.emplace_back(r.phase_name[k], r.phase_seconds[k]);
      stats_.estimates = recorded_estimates(r.estimates);
      leave_job();
      return Next::End;
    }
    const std::string message = job_->finished.load() == 2 ? std::string(job_->error)
                                                           : "simjoin: the GPU service stopped";
    const bool before_pairs = delivered_ == 0 && (job_->finished.load() != 2 || job_->failed_before_pairs);
    leave_job();
    if (options_.cpu_fallback && before_pairs) {
      note_ = "GPU join failed (" + message + "); running it on the CPU";
      local_ = std::make_unique<LocalStream>(left_, has_right_ ? &right_ : nullptr, spec_, options_, note_);
      return Next::Timeout;  // the caller asks again: the CPU engine's batches follow
    }
    error_ = std::make_exception_ptr(Error(message.rfind("simjoin:", 0) == 0 ? message : "simjoin: " + message));
    return Next::End;
  }

  Next stop_early() {
    stats_.stopped = true;
    leave_job();
    return Next::End;
  }

  void leave_job() noexcept {
    if (!segment_) return;
    dsm_segment* segment = segment_;
    segment_ = nullptr;
    job_ = nullptr;
    dsm_detach(segment);  // runs on_job_detach: the slot is withdrawn and released
  }

  PairStream::Options options_;
  PointSet left_;
  PointSet right_;
  bool has_right_ = false;
  JoinSpec spec_;
  std::optional<JoinWork> work_;  // the sampled work, when route_join estimated it
  dsm_segment* segment_ = nullptr;
  JobHeader* job_ = nullptr;
  int slot_ = -1;
  std::uint64_t tail_ = 0;
  bool holding_ = false;
  std::uint64_t delivered_ = 0;
  JoinStats stats_;
  std::exception_ptr error_;
  std::string note_;
  std::unique_ptr<BatchSource> local_;  // the CPU rerun after a failure before the first pair
};

}  // namespace

bool service_ready(std::string* why) {
  ServiceShared* shared = service_shared();
  if (!shared) {
    if (why) *why = "the GPU service needs shared_preload_libraries = 'simjoin'";
    return false;
  }
  switch (static_cast<ServiceState>(shared->state.load())) {
    case ServiceState::Ready:
      return true;
    case ServiceState::Unusable:
      if (why) *why = std::string("no usable GPU: ") + shared->unusable_reason;
      return false;
    case ServiceState::Starting:
      if (why) *why = "the GPU service is starting";
      return false;
    default:
      if (why) *why = service_device_setting == SERVICE_DEVICE_OFF
                          ? "simjoin.service_device is off"
                          : "the GPU service is not running";
      return false;
  }
}

Device route_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                  std::string* note, std::optional<JoinWork>* work) {
  std::string why;
  switch (spec.device) {
    case Device::Cpu:
      return Device::Cpu;
    case Device::Gpu:
      if (service_ready(&why)) return Device::Gpu;
      if (gpu_error_setting == GPU_ERROR_ERROR)
        throw Error("simjoin.device is 'gpu' but " + why);
      *note = "simjoin.device is 'gpu' but " + why + "; running the join on the CPU";
      return Device::Cpu;
    case Device::Auto:
    default: {
      // The SZL is not on the GPU yet (the service's backend would run it on its CPU).
      if (spec.algorithm == Algorithm::Szl) return Device::Cpu;
      const bool gpu = service_ready(nullptr) &&
                       auto_prefers_gpu(left, right, spec, cpu_threads_free(spec.threads), work);
      return gpu ? Device::Gpu : Device::Cpu;
    }
  }
}

std::unique_ptr<BatchSource> submit_to_service(const PointSet& left, const PointSet* right,
                                               const JoinSpec& spec, PairStream::Options options,
                                               std::optional<JoinWork> work) {
  return std::make_unique<ServiceStream>(left, right, spec, std::move(options), std::move(work));
}

std::unique_ptr<BatchSource> start_join(const PointSet& left, const PointSet* right,
                                        const JoinSpec& spec, PairStream::Options options) {
  std::string note;
  std::optional<JoinWork> work;
  if (route_join(left, right, spec, &note, &work) == Device::Gpu)
    return submit_to_service(left, right, spec, std::move(options), std::move(work));
  return std::make_unique<LocalStream>(left, right, spec, std::move(options), std::move(note));
}

}  // namespace simjoin::pg
