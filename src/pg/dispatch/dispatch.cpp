// The dispatch layer (pg/dispatch/dispatch.h): the route, taken once per job; the GPU fallback
// policy; the streams a join hands its consumer (the CPU engine on leased threads; a service job
// that goes on on the CPU after a failure), the sink-driven run, the aggregates; the NOTICEs.
#include "pg/dispatch/dispatch.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "engine/choice/device_choice.h"
#include "engine/choice/work_estimate.h"
#include "pg/dispatch/cpu_threads.h"
#include "pg/pg_guard.h"
#include "pg/service/aggregate_client.h"
#include "pg/service/client.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

// ---- the route and the fallback policy -------------------------------------------------------

bool gpu_error_falls_back() { return gpu_error_setting == GPU_ERROR_FALLBACK; }

void report_note(const std::string& note);

// The device a join runs on, from simjoin.device: Device::Gpu means the GPU service, Device::Cpu
// this backend's CPU engine. simjoin.device = gpu without a ready service raises an ERROR, or
// (simjoin.gpu_error = fallback) sets *note to the reason and picks the CPU. auto picks the
// service when it is ready and auto_prefers_gpu (engine/choice/device_choice.h) says so; *work
// then holds the sampled work it weighed, if it estimated one. Inside cpp_guard.
// `auto_prefers_gpu()` decides simjoin.device = auto once the service is ready.
template <typename AutoPrefersGpu>
Device route(Device device, std::string* note, AutoPrefersGpu&& auto_prefers_gpu) {
  std::string why;
  switch (device) {
    case Device::Cpu:
      return Device::Cpu;
    case Device::Gpu:
      if (service_ready(&why)) return Device::Gpu;
      if (!gpu_error_falls_back())
        throw Error("simjoin.device is 'gpu' but " + why);
      *note = "simjoin.device is 'gpu' but " + why + "; running the join on the CPU";
      return Device::Cpu;
    case Device::Auto:
    default:
      return service_ready(nullptr) && auto_prefers_gpu() ? Device::Gpu : Device::Cpu;
  }
}

Device route_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                  std::string* note, SampledWork* sampled) {
  return route(spec.device, note, [&] {
    // The SZL is not on the GPU yet (the service's backend would run it on its CPU).
    if (spec.algorithm == Algorithm::Szl) return false;
    const int threads = cpu_threads_free(spec.threads);
    DeviceEstimate priced;
    const bool gpu = auto_prefers_gpu(left, right, spec, threads, sampled, false, &priced);
    if (explain_setting && sampled->has_grid)  // sampled, hence priced
      report_note(describe_device_estimate(priced, sampled->grid, threads));
    return gpu;
  });
}

// A kNN join the GPU's kNN join does not take (gpu_takes_knn) runs here whatever simjoin.device
// says (as the documentation of simjoin.device tells; its explain line says device=cpu).
Device route_knn(const PointSet& left, const PointSet* right, const KnnSpec& knn,
                 const JoinSpec& settings, std::string* note) {
  if (!gpu_takes_knn(knn)) return Device::Cpu;
  return route(settings.device, note, [&] {
    return knn_prefers_gpu(left, right, knn, cpu_threads_free(settings.threads));
  });
}

// The GPU fallback policy: a failed service job reruns on this backend's CPU engine (with its
// fallback_note() as a NOTICE) when simjoin.gpu_error = fallback and no pair had reached the
// consumer; otherwise its error is raised.
bool falls_back(const ServiceJobFailure& failure) {
  return gpu_error_falls_back() && failure.before_pairs();
}

// A NOTICE "simjoin: <note>", unless the note is empty. Inside cpp_guard.
void report_note(const std::string& note) {
  if (note.empty()) return;
  pg_call([&note] { ereport(NOTICE, (errmsg("simjoin: %s", note.c_str()))); });
}

// Runs on_service() on the GPU service or on_cpu(note). A ServiceJobFailure thrown by on_service
// reruns on_cpu with the failure's note when falls_back(); other failures propagate. `note`: why a
// job meant for the GPU runs on the CPU (empty when the CPU was chosen). Both must return the
// same type. Inside cpp_guard.
template <typename OnService, typename OnCpu>
auto run_routed(Device device, std::string note, OnService&& on_service, OnCpu&& on_cpu)
    -> decltype(on_cpu(std::string())) {
  if (device == Device::Gpu) {
    try {
      return on_service();
    } catch (const ServiceJobFailure& failure) {
      if (!falls_back(failure)) throw;
      note = failure.fallback_note();
    }
  }
  return on_cpu(std::move(note));
}

// Routes the job once and runs on_service(routed) or on_cpu(routed, note) as run_routed does:
// `routed` is `spec` with the samples the route took (Algorithm::Auto reads them instead of
// sampling again; the service's progress report reads the grid's).
template <typename OnService, typename OnCpu>
auto dispatch(const PointSet& left, const PointSet* right, const JoinSpec& spec,
              OnService&& on_service, OnCpu&& on_cpu) -> decltype(on_cpu(spec, std::string())) {
  std::string note;
  JoinSpec routed = spec;
  const Device device = route_join(left, right, spec, &note, &routed.sampled);
  return run_routed(
      device, std::move(note), [&] { return on_service(routed); },
      [&](std::string cpu_note) { return on_cpu(routed, std::move(cpu_note)); });
}

// A job that runs to its end on the backend's CPU: the note's NOTICE first (why a job meant
// for the GPU runs here), then run(threads) with `threads` (0: all) leased for the call.
template <typename Run>
auto run_on_leased_cpu(const std::string& note, int threads, Run&& run) {
  report_note(note);
  const CpuThreadLease lease(threads);
  return run(lease);
}

// dispatch() for a job that runs to its end on the backend's thread: on the CPU,
// run_on_cpu(cpu_spec) as run_on_leased_cpu runs it.
template <typename OnService, typename OnCpu>
auto dispatch_and_wait(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                       OnService&& on_service, OnCpu&& run_on_cpu) {
  return dispatch(left, right, spec, std::forward<OnService>(on_service),
                  [&run_on_cpu](const JoinSpec& routed, const std::string& note) {
                    return run_on_leased_cpu(note, routed.threads, [&](const CpuThreadLease& lease) {
                      return run_on_cpu(on_leased_cpu(routed, lease));
                    });
                  });
}

// ---- joins ------------------------------------------------------------------------------------

// The join on this backend's CPU engine, on threads leased from the cluster-wide cap; reports
// `note` (why a join meant for the GPU runs here) as its fallback note.
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
  std::uint64_t candidates_done() const override { return stream_.candidates_done(); }

 private:
  CpuThreadLease lease_;  // declared before the stream: returned after its threads ended
  PairStream stream_;
  std::string note_;
};

// A job of the service that, when it fails and falls_back() (before its first batch), goes on
// as a LocalStream: the consumer reads the CPU engine's batches from the same source.
class ServiceStreamWithFallback : public BatchSource {
 public:
  ServiceStreamWithFallback(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                            PairStream::Options options)
      : left_(left), has_right_(right != nullptr), spec_(spec), options_(options),
        source_(submit_to_service(left, right, spec, std::move(options))) {
    if (right) right_ = *right;
  }
  Next next(StreamBatch* batch, std::chrono::milliseconds timeout) override {
    const Next next = source_->next(batch, timeout);
    if (next != Next::End || rerun_ || !source_->error()) return next;
    try {
      std::rethrow_exception(source_->error());
    } catch (const ServiceJobFailure& failure) {
      if (!falls_back(failure)) return next;
      rerun_ = true;
      source_ = std::make_unique<LocalStream>(left_, has_right_ ? &right_ : nullptr, spec_,
                                              options_, failure.fallback_note());
      return Next::Timeout;  // the caller asks again: the CPU engine's batches follow
    } catch (...) {
    }
    return next;
  }
  void stop() noexcept override { source_->stop(); }
  const JoinStats& stats() const override { return source_->stats(); }
  std::exception_ptr error() const override { return source_->error(); }
  const std::string& fallback_note() const override { return source_->fallback_note(); }
  std::uint64_t candidates_done() const override { return source_->candidates_done(); }

 private:
  PointSet left_;
  PointSet right_;
  bool has_right_;
  JoinSpec spec_;
  PairStream::Options options_;
  bool rerun_ = false;
  std::unique_ptr<BatchSource> source_;  // the service's job, then the CPU rerun
};

// Hands the stream's batches to the sink on this thread; stops on an interrupt or when the sink
// says so. Raises the stream's error.
JoinStats drain(BatchSource& source, PairSink& sink) {
  StreamBatch batch;
  for (;;) {
    sink.progress(source.candidates_done());
    const BatchSource::Next next = source.next(&batch, std::chrono::milliseconds(50));
    if (next == BatchSource::Next::End) break;
    if (next == BatchSource::Next::Timeout) {
      if (!sink.keep_going()) source.stop();
      continue;
    }
    const PairBatch pairs{batch.left, batch.right, batch.distance, batch.size};
    if (!sink.consume(pairs)) source.stop();
  }
  if (source.error()) std::rethrow_exception(source.error());
  return source.stats();
}

// ---- aggregates -------------------------------------------------------------------------------

bool no_interrupt() { return !interrupt_pending(); }

// The explain NOTICEs of a DBSCAN: its counting join (if it ran one) and its linking join.
void report_dbscan(const DbscanResult& result) {
  if (!result.counting.algorithm.empty()) report_join(result.counting, std::string());
  report_join(result.linking, std::string());
}

}  // namespace

bool InterruptibleSink::keep_going() { return !interrupt_pending(); }

void InterruptibleSink::progress(std::uint64_t candidates_done) {
  progress_candidates(reports_progress_, candidates_done);
}

JoinStats run_engine(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     PairSink& sink) {
  return dispatch_and_wait(
      left, right, spec,
      [&](const JoinSpec& routed) {
        PairStream::Options options = stream_options();
        options.keep_distance = true;
        ServiceStreamWithFallback source(left, right, routed, std::move(options));
        JoinStats stats = drain(source, sink);
        report_join(stats, source.fallback_note());
        return stats;
      },
      [&](const JoinSpec& cpu_spec) {
        JoinStats stats = run_join(left, right, cpu_spec, sink);
        report_join(stats, std::string());
        return stats;
      });
}

JoinStats run_knn(const PointSet& left, const PointSet* right, KnnSpec spec,
                  const JoinSpec& settings, PairSink& sink) {
  std::string note;
  const Device device = route_knn(left, right, spec, settings, &note);
  return run_routed(
      device, std::move(note),
      [&] {
        PairStream::Options options = stream_options();
        options.keep_distance = true;
        const std::unique_ptr<BatchSource> source =
            submit_to_service(left, right, settings, std::move(options), &spec);
        JoinStats stats = drain(*source, sink);
        report_join(stats, std::string());
        return stats;
      },
      [&](const std::string& cpu_note) {
        return run_on_leased_cpu(cpu_note, spec.threads, [&](const CpuThreadLease& lease) {
          spec.threads = lease.count();
          spec.device = Device::Cpu;
          JoinStats stats = run_knn_join(left, right, spec, sink);
          report_join(stats, std::string());
          return stats;
        });
      });
}

PairStream::Options stream_options() {
  PairStream::Options options;
  options.interrupted = interrupt_pending;
  return options;
}

std::unique_ptr<BatchSource> start_join(const PointSet& left, const PointSet* right,
                                        const JoinSpec& spec, PairStream::Options options) {
  return dispatch(
      left, right, spec,
      [&](const JoinSpec& routed) -> std::unique_ptr<BatchSource> {
        return std::make_unique<ServiceStreamWithFallback>(left, right, routed, options);
      },
      [&](const JoinSpec& routed, std::string note) -> std::unique_ptr<BatchSource> {
        return std::make_unique<LocalStream>(left, right, routed, options, std::move(note));
      });
}

void report_join(const JoinStats& stats, const std::string& fallback_note) {
  report_note(fallback_note);
  if (explain_setting) {
    char line[1024];
    describe_join(stats, line, sizeof line);
    report_note(line);
  }
}

void describe_join(const JoinStats& stats, char* buffer, size_t size) {
  std::string text;
  const std::string device = explain_details_setting ? stats.device
                             : stats.device.rfind("gpu", 0) == 0 ? "gpu" : stats.device;
  text = "device=" + device + " algorithm=" + stats.algorithm +
         " indexed_dims=" + std::to_string(stats.indexed_dims);
  if (explain_details_setting) {
    text += " batches=" + std::to_string(stats.batches) +
            " candidates=" + std::to_string(stats.candidates);
  }
  text += " pairs=" + std::to_string(stats.pairs);
  if (explain_details_setting && !stats.estimates.empty()) {
    text += " auto chose from:";
    for (const AlgorithmEstimate& e : stats.estimates) {
      char item[128];
      std::snprintf(item, sizeof item, " %s=%.3g candidates/%.3gs", e.algorithm.c_str(),
                    e.candidates, e.seconds);
      text += item;
    }
  }
  if (explain_details_setting && !stats.phase_seconds.empty()) {
    text += " time:";
    for (const auto& [phase, seconds] : stats.phase_seconds) {
      char item[96];
      std::snprintf(item, sizeof item, " %s=%.3fs", phase.c_str(), seconds);
      text += item;
    }
  }
  std::snprintf(buffer, size, "%s", text.c_str());
}


NeighbourStats compute_neighbour_stats(const PointSet& left, const PointSet* right,
                                       const JoinSpec& spec, StatsSide side,
                                       const std::uint64_t* partner_ranks,
                                       StatsFields fields, bool reports_progress) {
  return dispatch_and_wait(
      left, right, spec,
      [&](const JoinSpec& routed) {
        NeighbourStats stats =
            neighbour_stats_on_service(left, right, routed, side, partner_ranks, fields);
        if (!stats.join.stopped) report_join(stats.join, std::string());
        return stats;
      },
      [&](const JoinSpec& cpu_spec) {
        // The counts alone run on the engine's grid without pairs.
        NeighbourStats stats = run_neighbour_stats(left, right, cpu_spec, side, partner_ranks,
                                                   no_interrupt, {}, fields,
                                                   progress_into(reports_progress));
        report_join(stats.join, std::string());
        return stats;
      });
}

DbscanResult compute_dbscan(const PointSet& points, const JoinSpec& spec,
                            std::uint64_t min_points, bool reports_progress) {
  return dispatch_and_wait(
      points, nullptr, spec,
      [&](const JoinSpec& routed) {
        DbscanResult result = dbscan_on_service(points, routed, min_points);
        if (!result.linking.stopped) report_dbscan(result);
        return result;
      },
      [&](const JoinSpec& cpu_spec) {
        // No runner: in 1-3 dimensions the engine's grid DBSCAN, which enumerates no pairs; else
        // its two joins.
        DbscanResult result = run_dbscan(points, cpu_spec, min_points, no_interrupt, {},
                                         progress_into(reports_progress));
        if (!result.counting.stopped && !result.linking.stopped) report_dbscan(result);
        return result;
      });
}

}  // namespace simjoin::pg
