// The extension's settings (GUCs).
#include "pg/settings.h"

#include <climits>
#include <cstddef>

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
#include "utils/guc.h"
}

#include "engine/parallel/buffer_cache.h"

namespace simjoin::pg {

int device_setting = static_cast<int>(Device::Auto);
int algorithm_setting = static_cast<int>(Algorithm::Auto);
int gpu_error_setting = GPU_ERROR_FALLBACK;
int threads_setting = 0;
int load_threads_setting = -1;
int buffer_cache_mb = 256;
bool explain_setting = false;
bool explain_details_setting = true;
int service_device_setting = SERVICE_DEVICE_GPU;
int gpu_memory_limit_mb = 0;
int max_cpu_threads_setting = 0;
int service_test_fault_setting = 0;

namespace {

const struct config_enum_entry device_options[] = {
    {"auto", static_cast<int>(Device::Auto), false},
    {"gpu", static_cast<int>(Device::Gpu), false},
    {"cpu", static_cast<int>(Device::Cpu), false},
    {nullptr, 0, false},
};

const struct config_enum_entry algorithm_options[] = {
    {"auto", static_cast<int>(Algorithm::Auto), false},
    {"grid", static_cast<int>(Algorithm::Grid), false},
    {"szl", static_cast<int>(Algorithm::Szl), false},
    {"bruteforce", static_cast<int>(Algorithm::BruteForce), false},
    {nullptr, 0, false},
};

const struct config_enum_entry gpu_error_options[] = {
    {"fallback", GPU_ERROR_FALLBACK, false},
    {"error", GPU_ERROR_ERROR, false},
    {nullptr, 0, false},
};

const struct config_enum_entry service_device_options[] = {
    {"gpu", SERVICE_DEVICE_GPU, false},
    {"cpu", SERVICE_DEVICE_CPU, false},
    {"off", SERVICE_DEVICE_OFF, false},
    {nullptr, 0, false},
};

// simjoin.service_test_fault: the JobFault values (pg/service/job.h).
const struct config_enum_entry fault_options[] = {
    {"none", 0, false},      {"error", 1, false}, {"bad_alloc", 2, false},
    {"exit", 3, false},      {"stall", 4, false}, {"late_error", 5, false},
    {"sticky", 6, false},
    {nullptr, 0, false},
};

void assign_buffer_cache(int megabytes, void*) {
  set_buffer_cache_limit(static_cast<std::size_t>(megabytes) << 20);
}

}  // namespace

void define_settings() {
  // A PGC_POSTMASTER setting can only be defined while preloading (else PostgreSQL raises FATAL);
  // without preloading there is no service anyway.
  if (process_shared_preload_libraries_in_progress)
    DefineCustomEnumVariable(
      "simjoin.service_device", "What the GPU service runs joins on: gpu, cpu (tests) or off.",
      "Read at server start, with shared_preload_libraries = 'simjoin'. gpu: the service owns "
      "every visible GPU; cpu: it runs the CPU engine as its device, so that the shared-memory "
      "path is tested without a GPU; off: no service (joins run on the CPU engine).",
      &service_device_setting, SERVICE_DEVICE_GPU, service_device_options, PGC_POSTMASTER, 0,
      nullptr, nullptr, nullptr);
  DefineCustomIntVariable(
      "simjoin.gpu_memory_limit",
      "Device memory the GPU service's jobs may reserve in all, per GPU (0: automatic).",
      "0 leaves room for the CUDA contexts: 90% of the memory free after the service started, "
      "less 512 MB (1 GB for the CPU test device). A job that does not fit waits in the queue; a "
      "job larger than the limit runs in chunks within it.",
      &gpu_memory_limit_mb, 0, 0, INT_MAX, PGC_SIGHUP, GUC_UNIT_MB, nullptr, nullptr, nullptr);
  DefineCustomIntVariable(
      "simjoin.max_cpu_threads",
      "CPU engine threads all sessions together may run at once (0: one per core).",
      "With the library preloaded; a join that finds the threads taken runs on fewer (at least "
      "one).",
      &max_cpu_threads_setting, 0, 0, 4096, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
  DefineCustomEnumVariable(
      "simjoin.service_test_fault", "A fault the GPU service injects into this session's jobs.",
      "For the tests of the service's fault handling: none, error, bad_alloc, exit, stall, "
      "late_error, sticky.",
      &service_test_fault_setting, 0, fault_options, PGC_SUSET, GUC_NOT_IN_SAMPLE, nullptr,
      nullptr, nullptr);
  DefineCustomEnumVariable(
      "simjoin.device", "Where similarity joins run: auto, gpu or cpu.",
      "auto uses the GPU when one is usable and the join is large enough to gain from it.",
      &device_setting, static_cast<int>(Device::Auto), device_options, PGC_USERSET, 0, nullptr,
      nullptr, nullptr);
  DefineCustomEnumVariable(
      "simjoin.algorithm", "The join algorithm: auto, grid, szl or bruteforce.",
      "auto prices the grid, the Set-of-Z-Lists join (szl) and brute force on samples of the "
      "inputs and runs the cheapest on the device chosen; the others force one (szl runs brute "
      "force for an infinite eps; on a GPU without the SZL the join runs on the CPU).",
      &algorithm_setting, static_cast<int>(Algorithm::Auto), algorithm_options, PGC_USERSET, 0,
      nullptr, nullptr, nullptr);
  DefineCustomEnumVariable(
      "simjoin.gpu_error", "What a GPU failure does: fallback (rerun on the CPU) or error.",
      "fallback reruns a GPU join that failed before handing over its first pairs on the CPU "
      "engine, with a NOTICE. simjoin.device = gpu without a usable GPU is an ERROR either way.",
      &gpu_error_setting, GPU_ERROR_FALLBACK, gpu_error_options, PGC_USERSET, 0, nullptr,
      nullptr, nullptr);
  DefineCustomIntVariable("simjoin.threads", "CPU engine worker threads (0: one per core).",
                          nullptr, &threads_setting, 0, 0, 1024, PGC_USERSET, 0, nullptr,
                          nullptr, nullptr);
  DefineCustomIntVariable(
      "simjoin.buffer_cache",
      "Memory a session keeps between joins for the CPU engine's large arrays (0: none).",
      "Freed arrays of 1 MB and more are kept, up to this much, and reused by the next join "
      "instead of fresh memory (whose every page costs a fault on first touch); their pages are "
      "given back lazily (MADV_FREE), so the kernel takes them whenever it needs memory.",
      &buffer_cache_mb, 256, 0, INT_MAX / 2, PGC_SIGHUP, GUC_UNIT_MB, nullptr, assign_buffer_cache,
      nullptr);
  DefineCustomIntVariable(
      "simjoin.load_threads",
      "Threads that parse a table's rows beside the session reading them for a join (-1: auto).",
      "-1: where PostgreSQL's parallel workers for the read would not each have a core beside "
      "the session's, and the table has 1 MB or more; 0: never (parallel workers as PostgreSQL "
      "plans them); N: always, N threads (fewer where simjoin.max_cpu_threads leaves fewer).",
      &load_threads_setting, -1, -1, 64, PGC_USERSET, 0, nullptr, nullptr, nullptr);
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
  spec.algorithm = static_cast<Algorithm>(algorithm_setting);
  spec.threads = threads_setting;
  return spec;
}

Algorithm parse_algorithm(const char* name) {
  for (const config_enum_entry* option = algorithm_options; option->name; ++option) {
    if (pg_strcasecmp(name, option->name) == 0) return static_cast<Algorithm>(option->val);
  }
  ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                  errmsg("simjoin: unknown algorithm \"%s\"", name),
                  errhint("Use auto, grid, szl or bruteforce.")));
  pg_unreachable();
}

}  // namespace simjoin::pg
