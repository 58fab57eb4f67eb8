// The route of a backend's jobs and the GPU fallback policy (pg/dispatch/dispatch.h).
#include "pg/dispatch/dispatch.h"

#include "engine/choice/device_choice.h"
#include "pg/pg_guard.h"
#include "pg/settings.h"

namespace simjoin::pg {

namespace {

bool gpu_error_falls_back() { return gpu_error_setting == GPU_ERROR_FALLBACK; }

}  // namespace

Device route_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                  std::string* note, std::optional<JoinWork>* work) {
  std::string why;
  switch (spec.device) {
    case Device::Cpu:
      return Device::Cpu;
    case Device::Gpu:
      if (service_ready(&why)) return Device::Gpu;
      if (!gpu_error_falls_back())
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

bool falls_back(const ServiceJobFailure& failure) {
  return gpu_error_falls_back() && failure.before_pairs();
}

void report_note(const std::string& note) {
  if (note.empty()) return;
  pg_call([&note] { ereport(NOTICE, (errmsg("simjoin: %s", note.c_str()))); });
}

}  // namespace simjoin::pg
