// Running the engine from a backend: device choice, GPU fallback, interrupts, the explain NOTICE.
#include "engine_runner.h"

extern "C" {
#include "miscadmin.h"
}

#include <cstdio>
#include <string>

#include "pg_guard.h"
#include "settings.h"

namespace simjoin::pg {

namespace {

// Counts what passes through, so that a GPU failure is only retried before any pair was taken.
class CountingSink : public PairSink {
 public:
  explicit CountingSink(PairSink& inner) : inner_(inner) {}
  bool consume(const PairBatch& batch) override {
    pairs_taken_ += batch.size;
    return inner_.consume(batch);
  }
  bool keep_going() override { return inner_.keep_going(); }
  std::size_t pairs_taken() const { return pairs_taken_; }

 private:
  PairSink& inner_;
  std::size_t pairs_taken_ = 0;
};

void notice(const char* text) {
  pg_call([text] { ereport(NOTICE, (errmsg("simjoin: %s", text))); });
}

}  // namespace

bool InterruptibleSink::keep_going() {
  return !(QueryCancelPending || ProcDiePending);
}

JoinStats run_engine(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     PairSink& sink) {
  if (spec.device == Device::Gpu) {
    std::string why;
    if (!gpu_available(&why))
      throw Error("simjoin.device is 'gpu' but no GPU is usable: " + why);
  }
  CountingSink counting(sink);
  JoinStats stats;
  try {
    stats = run_join(left, right, spec, counting);
  } catch (const PgError&) {
    throw;  // from the sink: PostgreSQL's own error, not the engine's
  } catch (const Error& e) {
    const bool may_retry = spec.device != Device::Cpu && gpu_error_setting == GPU_ERROR_FALLBACK &&
                           counting.pairs_taken() == 0 && gpu_available(nullptr);
    if (!may_retry) throw;
    const std::string message =
        std::string("GPU join failed (") + e.what() + "); running it on the CPU";
    notice(message.c_str());
    JoinSpec cpu_spec = spec;
    cpu_spec.device = Device::Cpu;
    stats = run_join(left, right, cpu_spec, counting);
  }
  if (explain_setting) {
    char line[1024];
    describe_join(stats, line, sizeof line);
    notice(line);
  }
  return stats;
}

void raise_if_interrupted(const JoinStats& stats) {
  if (!stats.stopped) return;
  CHECK_FOR_INTERRUPTS();
  if (QueryCancelPending || ProcDiePending)
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
