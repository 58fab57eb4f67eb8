// A backend's side of the GPU service (pg/service/client.h): the stream that reads a join job's
// ring. The job (pg/service/job_handle.h) is left by the stream's stop() (the custom
// scan's memory-context callback or a C++ scope runs it on ERROR); at backend exit the segment's
// detach callback withdraws it.
#include "pg/service/client.h"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <optional>

#include "engine/choice/work_estimate.h"
#include "pg/pg_guard.h"
#include "pg/service/job.h"
#include "pg/service/job_handle.h"
#include "pg/service/shared.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

constexpr std::uint32_t kRingSlots = 4;

class ServiceStream : public BatchSource {
 public:
  ServiceStream(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                PairStream::Options options, const KnnSpec* knn)
      : options_(std::move(options)), left_(left), spec_(spec) {
    if (right) right_ = *right;
    if (knn) knn_ = *knn;
    has_right_ = right != nullptr;
    pg_call([&] { create_job(); });
  }
  ~ServiceStream() override { stop(); }

  Next next(StreamBatch* batch, std::chrono::milliseconds timeout) override {
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
      if (handle_.service_lost()) return finish(true);
      if (options_.interrupted && options_.interrupted()) return stop_early();
      const long wait_ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
      if (wait_ms <= 0) return Next::Timeout;
      pg_call([wait_ms] { ServiceJobHandle::wait_for_service(wait_ms); });
    }
  }

  void stop() noexcept override {
    if (job_) {
      stats_.stopped = job_->finished.load() == 0;
      leave_job();
    }
  }

  const JoinStats& stats() const override { return stats_; }
  std::exception_ptr error() const override { return error_; }
  const std::string& fallback_note() const override { return no_note_; }
  std::uint64_t candidates_done() const override {
    ServiceShared* shared = service_shared();
    const int slot = handle_.slot();
    return shared && slot >= 0 ? shared->jobs[slot].candidates_done.load() : 0;
  }

 private:
  void create_job() {
    const std::uint32_t slot_pairs =
        static_cast<std::uint32_t>(std::max<std::size_t>(1024, spec_.batch_pairs));
    const Size header = MAXALIGN(sizeof(JobHeader));
    const PointSet* right = has_right_ ? &right_ : nullptr;
    const JobPointsPlan plan = plan_job_points(left_, right);
    const Size ring_bytes = kRingSlots * ring_slot_bytes(slot_pairs);
    job_ = handle_.create(header + plan.left_bytes + plan.right_bytes + ring_bytes);
    job_->kind = knn_ ? JobKind::Knn : JobKind::Join;
    job_->spec = spec_;
    if (knn_) job_->knn = *knn_;
    job_->keep_distance = options_.keep_distance;
    job_->order_by_right = options_.order_by_right;
    job_->ring_offset = handle_.place_points(plan, left_, right, header);
    job_->ring_slots = kRingSlots;
    job_->slot_pairs = slot_pairs;
    // The progress report's denominator (simjoin_jobs): the engine's work, sampled; a kNN join's
    // every pair.
    const double estimated_candidates =
        knn_ ? static_cast<double>(left_.n) * static_cast<double>(right ? right->n : left_.n)
             : sampled_or_estimated_work(left_, right, spec_).candidates;
    handle_.submit(job_wanted_bytes(left_.n + job_->n_right, job_->dim),
                   static_cast<std::uint64_t>(estimated_candidates));
  }

  void release_current() {
    if (!holding_) return;
    holding_ = false;
    tail_++;
    job_->tail.store(tail_, std::memory_order_release);
  }

  Next finish(bool failed) {
    release_current();
    if (!failed && job_->stats.stopped) failed = true;  // only this backend may stop a job: never a short result
    if (!failed) {
      stats_ = recorded_join_stats(job_->stats);
      add_service_phase(&stats_, submitted_);
      leave_job();
      return Next::End;
    }
    const std::string message = handle_.failure();
    const bool before_pairs = delivered_ == 0 && (job_->finished.load() != 2 || job_->failed_before_pairs);
    leave_job();
    error_ = std::make_exception_ptr(ServiceJobFailure(message, before_pairs));
    return Next::End;
  }

  Next stop_early() {
    stats_.stopped = true;
    leave_job();
    return Next::End;
  }

  void leave_job() noexcept {
    job_ = nullptr;
    handle_.leave();  // the slot is withdrawn and released
  }

  PairStream::Options options_;
  PointSet left_;
  PointSet right_;
  bool has_right_ = false;
  JoinSpec spec_;
  std::optional<KnnSpec> knn_;    // a kNN join's parameters
  ServiceJobHandle handle_;
  JobHeader* job_ = nullptr;  // the handle's, while in the job
  std::uint64_t tail_ = 0;
  bool holding_ = false;
  std::uint64_t delivered_ = 0;
  JoinStats stats_;
  std::exception_ptr error_;
  const std::string no_note_;  // the dispatch layer reports a fallback
  const std::chrono::steady_clock::time_point submitted_ = std::chrono::steady_clock::now();
};

}  // namespace

void add_service_phase(JoinStats* stats, std::chrono::steady_clock::time_point submitted,
                       const JoinStats* earlier) {
  double phases = 0.0;
  for (const JoinStats* joined : {earlier, static_cast<const JoinStats*>(stats)})
    if (joined)
      for (const auto& [name, seconds] : joined->phase_seconds) phases += seconds;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - submitted).count();
  if (elapsed > phases) stats->phase_seconds.emplace_back("service", elapsed - phases);
}

ServiceJobFailure::ServiceJobFailure(const std::string& failure, bool before_pairs)
    : Error(job_error_message(failure)), before_pairs_(before_pairs),
      fallback_note_(job_fallback_note(failure)) {}

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

std::unique_ptr<BatchSource> submit_to_service(const PointSet& left, const PointSet* right,
                                               const JoinSpec& spec, PairStream::Options options,
                                               const KnnSpec* knn) {
  return std::make_unique<ServiceStream>(left, right, spec, std::move(options), knn);
}

}  // namespace simjoin::pg
