// The extension's settings (GUCs), defined in settings.cpp and registered from _PG_init.
#pragma once

#include "types.h"

namespace simjoin::pg {

// simjoin.device = auto | gpu | cpu
extern int device_setting;
// simjoin.gpu_error = fallback | error: on a GPU failure, rerun on the CPU with a NOTICE, or ERROR.
extern int gpu_error_setting;
// simjoin.threads: CPU engine worker threads (0 = all cores).
extern int threads_setting;
// simjoin.explain: emit a NOTICE with what ran (device, algorithm, dims, batches, pairs, phases).
extern bool explain_setting;
// simjoin.explain_machine_details: include device name and timings in EXPLAIN / NOTICE output
// (off in regression tests so that expected output does not depend on the machine).
extern bool explain_details_setting;

void define_settings();

// The JoinSpec fields that come from settings (device, threads).
JoinSpec spec_from_settings(double eps, Metric metric);

enum GpuErrorMode { GPU_ERROR_FALLBACK = 0, GPU_ERROR_ERROR = 1 };

}  // namespace simjoin::pg
