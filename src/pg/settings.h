// The extension's settings (GUCs), defined in settings.cpp and registered from _PG_init.
#pragma once

#include "engine/types.h"

namespace simjoin::pg {

// simjoin.device = auto | gpu | cpu
extern int device_setting;
// simjoin.algorithm = auto | grid | szl | bruteforce (an Algorithm).
extern int algorithm_setting;
// simjoin.gpu_error = fallback | error: on a GPU failure, rerun on the CPU with a NOTICE, or ERROR.
extern int gpu_error_setting;
// simjoin.threads: CPU engine worker threads (0 = all cores).
extern int threads_setting;
// simjoin.load_threads: parse threads reading a table side beside the leader (-1: auto).
extern int load_threads_setting;
// simjoin.buffer_cache (MB): the engine's buffer cache limit (engine/parallel/buffer_cache.h).
extern int buffer_cache_mb;
// simjoin.explain: emit a NOTICE with what ran (device, algorithm, dims, batches, pairs, phases).
extern bool explain_setting;
// simjoin.explain_machine_details: include device name and timings in EXPLAIN / NOTICE output
// (off in regression tests so that expected output does not depend on the machine).
extern bool explain_details_setting;

// simjoin.service_device (server start): what the GPU service runs joins on.
enum ServiceDevice { SERVICE_DEVICE_GPU = 0, SERVICE_DEVICE_CPU = 1, SERVICE_DEVICE_OFF = 2 };
extern int service_device_setting;
// simjoin.gpu_memory_limit (MB, 0 = automatic): the ledger's limit per device.
extern int gpu_memory_limit_mb;
// simjoin.max_cpu_threads (0 = one per core): the cluster-wide CPU engine thread cap.
extern int max_cpu_threads_setting;
// simjoin.service_test_fault: a JobFault (pg/service/job.h) injected into this session's jobs.
extern int service_test_fault_setting;

void define_settings();

// The JoinSpec fields that come from settings (device, algorithm, threads).
JoinSpec spec_from_settings(double eps, Metric metric);

// An algorithm by its setting's name (auto, grid, szl, bruteforce; any case); ERROR naming the
// value and the valid ones otherwise.
Algorithm parse_algorithm(const char* name);

enum GpuErrorMode { GPU_ERROR_FALLBACK = 0, GPU_ERROR_ERROR = 1 };

}  // namespace simjoin::pg
