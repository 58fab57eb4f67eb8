// Joins from a backend (pg/dispatch/engine_runner.h): the dispatch layer's streams (the CPU
// engine on leased threads; a service job that goes on on the CPU after a failure), the sink-driven
// run, the explain NOTICE.
#include "pg/dispatch/engine_runner.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "pg/dispatch/cpu_thread_cap.h"
#include "pg/dispatch/dispatch.h"
#include "pg/pg_guard.h"
#include "pg/service/client.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

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
                            PairStream::Options options, std::optional<JoinWork> work)
      : left_(left), has_right_(right != nullptr), spec_(spec), options_(options),
        source_(submit_to_service(left, right, spec, std::move(options), std::move(work))) {
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

}  // namespace

bool InterruptibleSink::keep_going() { return !interrupt_pending(); }

JoinStats run_engine(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     PairSink& sink) {
  return dispatch_and_wait(
      left, right, spec,
      [&](std::optional<JoinWork> work) {
        PairStream::Options options = stream_options();
        options.keep_distance = true;
        ServiceStreamWithFallback source(left, right, spec, std::move(options), std::move(work));
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

PairStream::Options stream_options() {
  PairStream::Options options;
  options.interrupted = interrupt_pending;
  return options;
}

std::unique_ptr<BatchSource> start_join(const PointSet& left, const PointSet* right,
                                        const JoinSpec& spec, PairStream::Options options) {
  return dispatch(
      left, right, spec,
      [&](std::optional<JoinWork> work) -> std::unique_ptr<BatchSource> {
        return std::make_unique<ServiceStreamWithFallback>(left, right, spec, options,
                                                           std::move(work));
      },
      [&](std::string note) -> std::unique_ptr<BatchSource> {
        return std::make_unique<LocalStream>(left, right, spec, options, std::move(note));
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

}  // namespace simjoin::pg
