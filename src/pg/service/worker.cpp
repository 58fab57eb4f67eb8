// The GPU service: a background worker, the only process of the cluster that calls CUDA. Its main
// thread (a PostgreSQL process thread: latches, DSM, settings) admits queued jobs against the
// device ledgers (in submission order, younger jobs that fit going before one that does not until
// it has waited 5 s) and attaches their segments; each admitted job runs the
// engine on a runner thread (no PostgreSQL call there: only atomics, memcpy and SetLatch, which
// is signal-safe), which publishes a join's result batches into the job's ring (pg/service/job.h),
// or writes an aggregate's per-point arrays into its segment (pg/service/aggregate_job.h).
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

PGDLLEXPORT void simjoin_service_main(Datum);
}

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "engine/batch_source.h"
#include "engine/engine.h"
#include "engine/join_backend.h"
#include "engine/parallel/pair_order.h"
#include "engine/parallel/worker_thread.h"
#include "gpu_backend.h"
#include "pg/service/aggregate_job.h"
#include "pg/service/job.h"
#include "pg/service/shared.h"
#include "pg/settings.h"

namespace simjoin::pg {

// Faults: an engine error ends its job only; a context poisoned by a sticky CUDA error, or an
// injected "exit", makes the service exit with status 1, which the postmaster restarts without a
// crash restart of the cluster. On every exit (SIGTERM included) the runners are stopped and
// joined first and their jobs marked failed, so that no session waits for a dead service.

namespace {

std::atomic<bool> stopping{false};       // the service is exiting: runners end their jobs
std::atomic<bool> exit_requested{false}; // a runner asks the main thread to restart the service

struct Runner {
  int slot = -1;
  dsm_segment* segment = nullptr;
  JobHeader* job = nullptr;
  dsm_segment* points_segments[2] = {nullptr, nullptr};  // the backend's, when read in place
  const double* left = nullptr;
  const double* right = nullptr;
  std::uint64_t reserved = 0;
  int device = 0;
  std::atomic<bool> ended{false};
  std::thread thread;
};
std::vector<std::unique_ptr<Runner>> runners;  // main thread only

void copy_text(char* to, std::size_t size, const std::string& from) {
  std::snprintf(to, size, "%s", from.c_str());
}

// The runner's sink: copies each batch into the ring, waiting (polling) for room.
class RingSink : public PairSink {
 public:
  RingSink(JobHeader* job, JobSlot* slot) : job_(job), slot_(slot) {}

  bool consume(const PairBatch& batch) override {
    std::size_t done = 0;
    while (done < batch.size) {
      if (!wait_for_room()) return false;
      const RingSlotView view = ring_slot(job_, job_->head.load(std::memory_order_relaxed));
      const std::size_t n = std::min<std::size_t>(batch.size - done, job_->slot_pairs);
      std::memcpy(view.left, batch.left + done, n * sizeof(std::uint32_t));
      std::memcpy(view.right, batch.right + done, n * sizeof(std::uint32_t));
      if (job_->keep_distance) std::memcpy(view.distance, batch.distance + done, n * sizeof(double));
      if (job_->order_by_right)
        sort_pairs_by_right(view.left, view.right, job_->keep_distance ? view.distance : nullptr, n,
                            scratch_, keyed_);
      *view.size = n;
      job_->head.fetch_add(1, std::memory_order_release);  // publishes the slot's contents
      slot_->pairs.fetch_add(n, std::memory_order_relaxed);
      if (!published_) {
        published_ = true;
        slot_->state.store(static_cast<std::uint32_t>(JobState::Streaming));
      }
      SetLatch(slot_->backend_latch);
      done += n;
    }
    if (job_->fault == JobFault::LateError) throw Error("simjoin: injected fault after the first batch");
    return keep_going();
  }

  bool keep_going() override {
    return !stopping.load() && slot_->withdrawn.load() == 0;
  }

  void progress(std::uint64_t candidates_done) override {
    slot_->candidates_done.store(candidates_done, std::memory_order_relaxed);
  }

  bool published() const { return published_; }

 private:
  bool wait_for_room() {
    auto pause = std::chrono::microseconds(20);
    while (job_->head.load() - job_->tail.load(std::memory_order_acquire) >= job_->ring_slots) {
      if (!keep_going()) return false;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
    return keep_going();
  }

  JobHeader* job_;
  JobSlot* slot_;
  bool published_ = false;
  std::vector<std::uint64_t> scratch_;
  std::vector<std::pair<std::uint64_t, double>> keyed_;
};

// The CPU test device's stand-in for a context poisoned by a sticky CUDA error.
std::atomic<bool> test_device_poisoned{false};

void inject_fault(JobHeader* job, JobSlot* slot, bool cpu_device) {
  switch (job->fault) {
    case JobFault::Sticky:
      if (!cpu_device) gpu::poison_context_for_test();
      test_device_poisoned.store(true);
      throw Error("simjoin: injected sticky error (CPU test device)");
    case JobFault::Error:
      throw Error("simjoin: injected fault");
    case JobFault::BadAlloc: {
      // An engine worker thread fails: its exception is rethrown here (engine/parallel/worker_thread.h).
      parallel_for_ranges(2 * 65536, 2, [](std::size_t begin, std::size_t) {
        if (begin > 0) throw std::bad_alloc();
      });
      break;
    }
    case JobFault::Exit:
      exit_requested.store(true);
      SetLatch(service_shared()->service_latch);
      while (!stopping.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      throw Error("simjoin: the GPU service stopped");
    case JobFault::Stall:
      while (!stopping.load() && slot->withdrawn.load() == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      break;
    default:
      break;
  }
}

// The runner thread: the engine on the job's points, its result into the ring.
void run_job(Runner* runner, bool cpu_device) {
  ServiceShared* shared = service_shared();
  JobSlot* slot = &shared->jobs[runner->slot];
  JobHeader* job = runner->job;
  RingSink sink(job, slot);
  std::string error;
  try {
    if (!cpu_device) gpu::select_gpu(runner->device);  // this thread's GPU: its ledger's
    inject_fault(job, slot, cpu_device);
    const PointSet left{runner->left, job->n_left, job->dim};
    const PointSet right{runner->right, job->n_right, job->dim};
    const PointSet* right_side = job->self_join ? nullptr : &right;
    JoinSpec spec = job->spec;
    spec.device = cpu_device ? Device::Cpu : Device::Gpu;
    spec.device_memory_bytes = runner->reserved;
    const char* device_name = cpu_device ? "gpu service: cpu test device" : nullptr;
    if (job->kind == JobKind::Join || job->kind == JobKind::Knn) {
      spec.batch_pairs = job->slot_pairs;
      KnnSpec knn = job->knn;
      knn.device = spec.device;
      knn.batch_pairs = job->slot_pairs;
      JoinStats stats = job->kind == JobKind::Join ? run_join(left, right_side, spec, sink)
                                                   : run_knn_join(left, right_side, knn, sink);
      if (device_name) stats.device = device_name;
      record_join_stats(&job->stats, stats);
    } else {  // an aggregate: its arrays into the segment, no ring
      const AggregateOutcome outcome = run_aggregate_job(
          job, left, right_side, spec, [&sink] { return sink.keep_going(); }, device_name);
      slot->candidates_done.store(outcome.candidates, std::memory_order_relaxed);
      slot->pairs.store(outcome.pairs, std::memory_order_relaxed);
    }
    // Stopped by the service's exit, not by the backend: the result is incomplete.
    if (stopping.load()) throw Error("simjoin: the GPU service stopped");
  } catch (const std::bad_alloc&) {
    error = "out of memory in the simjoin engine (GPU service)";
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown C++ exception in the GPU service";
  }
  if (!error.empty()) {
    copy_text(job->error, sizeof job->error, error);
    job->failed_before_pairs = !sink.published();
    const bool poisoned = cpu_device ? test_device_poisoned.load() : !gpu::context_healthy();
    if (poisoned) exit_requested.store(true);  // a sticky error: the postmaster restarts us
  }
  job->finished.store(error.empty() ? 1 : 2, std::memory_order_release);
  slot->state.store(static_cast<std::uint32_t>(error.empty() ? JobState::Done : JobState::Failed));
  SetLatch(slot->backend_latch);
  runner->ended.store(true);
  SetLatch(shared->service_latch);
}

// Maps the job's segment and the backend's points segments (no resource owner here: mapped until
// detached); false when the backend already left (a segment is gone, or never completed).
bool attach_job(Runner* runner, dsm_handle handle) {
  runner->segment = dsm_attach(handle);
  if (!runner->segment) return false;
  runner->job = static_cast<JobHeader*>(dsm_segment_address(runner->segment));
  JobHeader* job = runner->job;
  if (job->magic != kJobMagic) return false;
  const std::uint32_t handles[2] = {job->left_segment, job->right_segment};
  const std::uint64_t offsets[2] = {job->left_offset, job->right_offset};
  const double* points[2];
  for (int side = 0; side < 2; ++side) {
    if (handles[side] == 0) {
      points[side] = job_points(job, offsets[side]);
      continue;
    }
    runner->points_segments[side] = dsm_attach(handles[side]);
    if (!runner->points_segments[side]) return false;
    points[side] = static_cast<const double*>(dsm_segment_address(runner->points_segments[side]));
  }
  runner->left = points[0];
  runner->right = points[1];
  return true;
}

void detach_segments(Runner* runner) {
  for (dsm_segment*& points : runner->points_segments) {
    if (points) dsm_detach(points);
    points = nullptr;
  }
  if (runner->segment) dsm_detach(runner->segment);
  runner->segment = nullptr;
}

// Ends a runner whose thread finished (or, when the service exits, stops it first): joins the
// thread, detaches the segment, returns the reservation to the ledger.
void retire(Runner* runner, bool failed_by_exit) {
  if (runner->thread.joinable()) runner->thread.join();
  ServiceShared* shared = service_shared();
  JobSlot* slot = &shared->jobs[runner->slot];
  if (failed_by_exit && runner->job->finished.load() == 0) {
    copy_text(runner->job->error, sizeof runner->job->error, "simjoin: the GPU service stopped");
    runner->job->failed_before_pairs = runner->job->head.load() == 0;
    runner->job->finished.store(2);
    slot->state.store(static_cast<std::uint32_t>(JobState::Failed));
  }
  const bool failed = runner->job->finished.load() == 2;
  SetLatch(slot->backend_latch);
  detach_segments(runner);
  SpinLockAcquire(&shared->mutex);
  DeviceLedger& ledger = shared->devices[runner->device];
  ledger.reserved_bytes -= runner->reserved;
  ledger.running_jobs--;
  if (failed) ledger.jobs_failed++; else ledger.jobs_done++;
  slot->service_released = true;
  free_slot_if_released(slot);
  SpinLockRelease(&shared->mutex);
}

void retire_ended_runners() {
  for (auto it = runners.begin(); it != runners.end();) {
    if ((*it)->ended.load()) {
      retire(it->get(), false);
      it = runners.erase(it);
    } else {
      ++it;
    }
  }
}

// before_shmem_exit: stop and join every runner; their jobs fail with "the GPU service stopped".
void stop_runners(int, Datum) {
  stopping.store(true);
  for (auto& runner : runners) retire(runner.get(), true);
  runners.clear();
  ServiceShared* shared = service_shared();
  SpinLockAcquire(&shared->mutex);
  shared->service_pid = 0;
  shared->service_latch = nullptr;
  shared->state.store(static_cast<std::uint32_t>(ServiceState::Absent));
  SpinLockRelease(&shared->mutex);
}

// Per device: the ledger limit simjoin.gpu_memory_limit = 0 stands for.
std::vector<std::uint64_t> automatic_limits;

// The automatic limit leaves room for the contexts: 90% of the memory free after the service's
// warm-up, less 512 MB; the CPU test device has 1 GB.
std::uint64_t automatic_ledger_limit(std::uint64_t free_bytes, bool cpu_device) {
  if (cpu_device) return 1ull << 30;
  const std::uint64_t margin = 512ull << 20;
  const std::uint64_t ninety = free_bytes / 10 * 9;
  return ninety > margin ? ninety - margin : ninety / 2;
}

std::uint64_t ledger_limit(int device) {
  if (gpu_memory_limit_mb > 0) return static_cast<std::uint64_t>(gpu_memory_limit_mb) << 20;
  return automatic_limits[device];
}

// Probes the devices (every usable GPU, each warmed up, or the CPU test device) and fills their
// ledgers; returns false (with the reason set) when there is none.
bool start_devices(ServiceShared* shared, bool cpu_device) {
  std::vector<DeviceLedger> ledgers;
  automatic_limits.clear();
  if (cpu_device) {
    DeviceLedger ledger{};
    copy_text(ledger.name, sizeof ledger.name, "cpu (test device)");
    ledger.total_bytes = 1ull << 30;
    ledgers.push_back(ledger);
    automatic_limits.push_back(automatic_ledger_limit(0, true));
  } else {
    try {
      std::string why;
      if (!gpu::backend().usable(&why)) throw Error(why);
      install_gpu_backend(&gpu::backend());
      const int count = std::min(gpu::gpu_count(), kMaxDevices);
      for (int d = 0; d < count; ++d) {
        gpu::select_gpu(d);
        gpu::warm_up();
        DeviceLedger ledger{};
        std::string name;
        std::size_t free_bytes = 0, total_bytes = 0;
        gpu::memory_info(&name, &free_bytes, &total_bytes);
        copy_text(ledger.name, sizeof ledger.name, name);
        ledger.total_bytes = total_bytes;
        ledgers.push_back(ledger);
        automatic_limits.push_back(automatic_ledger_limit(free_bytes, false));
      }
      gpu::select_gpu(0);
    } catch (const std::exception& e) {
      copy_text(shared->unusable_reason, sizeof shared->unusable_reason, e.what());
      return false;
    }
  }
  SpinLockAcquire(&shared->mutex);
  for (std::size_t d = 0; d < ledgers.size(); ++d) {
    ledgers[d].limit_bytes = ledger_limit(static_cast<int>(d));
    shared->devices[d] = ledgers[d];
  }
  shared->n_devices = static_cast<std::int32_t>(ledgers.size());
  SpinLockRelease(&shared->mutex);
  return true;
}

// A queued job that does not fit lets younger ones that fit go first (backfill) until it has
// waited this long; then no younger job starts before it, and the ledger drains for it.
constexpr TimestampTz kQueueAgingMicros = 5 * USECS_PER_SEC;

// The device with the most ledger room.
int roomiest_device(const ServiceShared* shared) {
  int device = 0;
  for (int d = 1; d < shared->n_devices; ++d) {
    const DeviceLedger& a = shared->devices[d];
    const DeviceLedger& b = shared->devices[device];
    if (a.limit_bytes - a.reserved_bytes > b.limit_bytes - b.reserved_bytes) device = d;
  }
  return device;
}

// Admits queued jobs in submission order, each that fits its device's ledger; one that does not
// fit is overtaken by younger ones that do until it has waited kQueueAgingMicros.
void admit_jobs(bool cpu_device) {
  ServiceShared* shared = service_shared();
  for (;;) {
    int chosen = -1;
    std::uint64_t grant = 0;
    int device = 0;
    SpinLockAcquire(&shared->mutex);
    int queued[kMaxJobs];
    int n_queued = 0;
    for (int s = 0; s < kMaxJobs; ++s) {
      JobSlot& slot = shared->jobs[s];
      if (static_cast<JobState>(slot.state.load()) != JobState::Queued) continue;
      if (slot.withdrawn.load()) {  // withdrawn while queued: nothing to undo
        slot.state.store(static_cast<std::uint32_t>(JobState::Failed));
        slot.service_released = true;
        free_slot_if_released(&slot);
        continue;
      }
      queued[n_queued++] = s;
    }
    std::sort(queued, queued + n_queued,
              [&](int a, int b) { return shared->jobs[a].job_id < shared->jobs[b].job_id; });
    const TimestampTz now = GetCurrentTimestamp();
    for (int q = 0; q < n_queued && chosen < 0; ++q) {
      JobSlot& slot = shared->jobs[queued[q]];
      device = roomiest_device(shared);
      DeviceLedger& ledger = shared->devices[device];
      grant = std::min(slot.want_bytes, ledger.limit_bytes);
      if (ledger.reserved_bytes + grant <= ledger.limit_bytes) {
        ledger.reserved_bytes += grant;
        ledger.running_jobs++;
        slot.device = device;
        slot.reserved_bytes = grant;
        slot.started_at = now;
        slot.state.store(static_cast<std::uint32_t>(JobState::Running));
        chosen = queued[q];
      } else if (now - slot.submitted_at >= kQueueAgingMicros) {
        break;  // it has waited long enough: the younger wait behind it
      }
    }
    const dsm_handle handle = chosen >= 0 ? shared->jobs[chosen].segment : 0;
    SpinLockRelease(&shared->mutex);
    if (chosen < 0) return;

    auto runner = std::make_unique<Runner>();
    runner->slot = chosen;
    runner->reserved = grant;
    runner->device = device;
    if (!attach_job(runner.get(), handle)) {  // the backend already left
      detach_segments(runner.get());
      SpinLockAcquire(&shared->mutex);
      JobSlot& slot = shared->jobs[chosen];
      shared->devices[device].reserved_bytes -= grant;
      shared->devices[device].running_jobs--;
      slot.state.store(static_cast<std::uint32_t>(JobState::Failed));
      slot.service_released = true;
      free_slot_if_released(&slot);
      SpinLockRelease(&shared->mutex);
      continue;
    }
    Runner* raw = runner.get();
    runners.push_back(std::move(runner));
    raw->thread = start_worker_thread(run_job, raw, cpu_device);
  }
}

// A new service process takes over: jobs a dead one held are failed, queued jobs stay queued.
void take_over(ServiceShared* shared) {
  SpinLockAcquire(&shared->mutex);
  shared->service_pid = MyProcPid;
  shared->service_latch = MyLatch;
  shared->cpu_device = service_device_setting == SERVICE_DEVICE_CPU;
  shared->n_devices = 0;
  for (JobSlot& slot : shared->jobs) {
    const JobState state = static_cast<JobState>(slot.state.load());
    if (state == JobState::Running || state == JobState::Streaming) {
      slot.state.store(static_cast<std::uint32_t>(JobState::Failed));
    }
    if (state != JobState::Free && state != JobState::Queued) {
      slot.service_released = true;
      free_slot_if_released(&slot);
      if (slot.backend_latch) SetLatch(slot.backend_latch);
    }
  }
  shared->state.store(static_cast<std::uint32_t>(ServiceState::Starting));
  SpinLockRelease(&shared->mutex);
}

}  // namespace

}  // namespace simjoin::pg

using namespace simjoin::pg;

extern "C" void simjoin_service_main(Datum) {
  pqsignal(SIGTERM, die);
  pqsignal(SIGHUP, SignalHandlerForConfigReload);
  BackgroundWorkerUnblockSignals();
  BackgroundWorkerInitializeConnection(nullptr, nullptr, 0);  // no database: pg_stat_activity
  ServiceShared* shared = service_shared();
  take_over(shared);
  before_shmem_exit(stop_runners, 0);
  const bool cpu_device = shared->cpu_device;
  const bool usable = start_devices(shared, cpu_device);
  shared->state.store(static_cast<std::uint32_t>(usable ? ServiceState::Ready : ServiceState::Unusable));
  if (!usable)
    ereport(LOG, (errmsg("simjoin: the GPU service found no usable GPU: %s; joins run on the CPU engine",
                         shared->unusable_reason)));
  else
    ereport(LOG, (errmsg("simjoin: GPU service ready on %s (ledger %llu MB)", shared->devices[0].name,
                         static_cast<unsigned long long>(shared->devices[0].limit_bytes >> 20))));

  for (;;) {
    (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100, PG_WAIT_EXTENSION);
    ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
    if (ConfigReloadPending) {
      ConfigReloadPending = false;
      ProcessConfigFile(PGC_SIGHUP);
      SpinLockAcquire(&shared->mutex);
      for (int d = 0; d < shared->n_devices; ++d) shared->devices[d].limit_bytes = ledger_limit(d);
      SpinLockRelease(&shared->mutex);
    }
    retire_ended_runners();
    if (exit_requested.load()) {
      ereport(LOG, (errmsg("simjoin: the GPU service restarts (its device context failed or a test asked)")));
      proc_exit(1);
    }
    if (usable) admit_jobs(cpu_device);
  }
}
