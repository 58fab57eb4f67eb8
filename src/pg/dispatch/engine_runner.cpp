// Running the engine from a backend: device choice, GPU fallback, interrupts, the explain NOTICE.
#include "pg/dispatch/engine_runner.h"

extern "C" {
#include "miscadmin.h"
}

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "pg/dispatch/cpu_thread_cap.h"
#include "pg/pg_guard.h"
#include "pg/service/client.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

void notice(const char* text) {
  pg_call([text] { ereport(NOTICE, (errmsg("simjoin: %s", text))); });
}

}  // namespace

bool InterruptibleSink::keep_going() { return !interrupt_pending(); }

namespace {

// Hands the service job's batches to the sink on this thread; stops on an interrupt or when the
// sink says so.
JoinStats drain_service_job(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                            std::optional<JoinWork> work, PairSink& sink, std::string* note) {
  PairStream::Options options = stream_options();
  options.keep_distance = true;
  std::unique_ptr<BatchSource> source =
      submit_to_service(left, right, spec, options, std::move(work));
  StreamBatch batch;
  for (;;) {
    const BatchSource::Next next = source->next(&batch, std::chrono::milliseconds(50));
    if (next == BatchSource::Next::End) break;
    if (next == BatchSource::Next::Timeout) {
      if (!sink.keep_going()) source->stop();
      continue;
    }
    const PairBatch pairs{batch.left, batch.right, batch.distance, batch.size};
    if (!sink.consume(pairs)) source->stop();
  }
  if (source->error()) std::rethrow_exception(source->error());
  *note = source->fallback_note();
  return source->stats();
}

}  // namespace

JoinStats run_engine(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     PairSink& sink) {
  std::string note;
  std::optional<JoinWork> work;
  if (route_join(left, right, spec, &note, &work) == Device::Gpu) {
    JoinStats stats = drain_service_job(left, right, spec, std::move(work), sink, &note);
    report_join(stats, note);
    return stats;
  }
  if (!note.empty()) notice(note.c_str());
  const CpuThreadLease threads(spec.threads);
  JoinStats stats = run_join(left, right, on_leased_cpu(spec, threads), sink);
  report_join(stats, std::string());
  return stats;
}

bool interrupt_pending() { return QueryCancelPending || ProcDiePending; }

PairStream::Options stream_options() {
  PairStream::Options options;
  options.cpu_fallback = gpu_error_setting == GPU_ERROR_FALLBACK;
  options.interrupted = interrupt_pending;
  return options;
}

void report_join(const JoinStats& stats, const std::string& fallback_note) {
  if (!fallback_note.empty()) notice(fallback_note.c_str());
  if (explain_setting) {
    char line[1024];
    describe_join(stats, line, sizeof line);
    notice(line);
  }
}

void raise_if_interrupted(bool stopped) {
  if (!stopped) return;
  CHECK_FOR_INTERRUPTS();
  if (interrupt_pending())
    ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg("canceling statement")));
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
