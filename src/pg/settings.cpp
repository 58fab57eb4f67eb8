// The extension's settings (GUCs).
#include "settings.h"

extern "C" {
#include "postgres.h"
#include "utils/guc.h"
}

namespace simjoin::pg {

int device_setting = static_cast<int>(Device::Auto);
int gpu_error_setting = GPU_ERROR_FALLBACK;
int threads_setting = 0;
bool explain_setting = false;
bool explain_details_setting = true;

namespace {

const struct config_enum_entry device_options[] = {
    {"auto", static_cast<int>(Device::Auto), false},
    {"gpu", static_cast<int>(Device::Gpu), false},
    {"cpu", static_cast<int>(Device::Cpu), false},
    {nullptr, 0, false},
};

const struct config_enum_entry gpu_error_options[] = {
    {"fallback", GPU_ERROR_FALLBACK, false},
    {"error", GPU_ERROR_ERROR, false},
    {nullptr, 0, false},
};

}  // namespace

void define_settings() {
  DefineCustomEnumVariable(
      "simjoin.device", "Where similarity joins run: auto, gpu or cpu.",
      "auto uses the GPU when one is usable and the join is large enough to gain from it.",
      &device_setting, static_cast<int>(Device::Auto), device_options, PGC_USERSET, 0, nullptr,
      nullptr, nullptr);
  DefineCustomEnumVariable(
      "simjoin.gpu_error", "What a GPU failure does: fallback (rerun on the CPU) or error.",
      "fallback reruns a GPU join that failed before handing over its first pairs on the CPU "
      "engine, with a NOTICE. simjoin.device = gpu without a usable GPU is an ERROR either way.",
      &gpu_error_setting, GPU_ERROR_FALLBACK, gpu_error_options, PGC_USERSET, 0, nullptr,
      nullptr, nullptr);
  DefineCustomIntVariable("simjoin.threads", "CPU engine worker threads (0: one per core).",
                          nullptr, &threads_setting, 0, 0, 1024, PGC_USERSET, 0, nullptr,
                          nullptr, nullptr);
  DefineCustomBoolVariable("simjoin.explain",
                           "Report each join's device, algorithm, batches and timings as a NOTICE.",
                           nullptr, &explain_setting, false, PGC_USERSET, 0, nullptr, nullptr,
                           nullptr);
  DefineCustomBoolVariable(
      "simjoin.explain_machine_details",
      "Include what differs between machines (device, batches, timings) in simjoin's NOTICE "
      "and EXPLAIN output; EXPLAIN's counters are shown either way.",
      "Turned off by the regression tests so that their output is the same on every machine.",
      &explain_details_setting, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
}

JoinSpec spec_from_settings(double eps, Metric metric) {
  JoinSpec spec;
  spec.eps = eps;
  spec.metric = metric;
  spec.device = static_cast<Device>(device_setting);
  spec.threads = threads_setting;
  return spec;
}

}  // namespace simjoin::pg
