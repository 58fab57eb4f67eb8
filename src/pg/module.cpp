// The extension module: its magic block and _PG_init. _PG_init may run in the postmaster (when
// preloaded), so it only registers settings, hooks and, when preloaded, the GPU service's shared
// memory and background worker: CUDA is initialized only in that worker, never in the postmaster
// or a backend.
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

PGDLLEXPORT void _PG_init(void);
}

#include "pg/loading/session_preload.h"
#include "pg/scan/custom_scan.h"
#include "pg/service/shared.h"
#include "pg/settings.h"

extern "C" {
#include "miscadmin.h"
}

extern "C" void _PG_init(void) {
  simjoin::pg::define_settings();
  simjoin::pg::custom_scan_init();
  simjoin::pg::session_preload_init();
  if (process_shared_preload_libraries_in_progress) simjoin::pg::service_preload_init();
  MarkGUCPrefixReserved("simjoin");  // after every simjoin.* setting is defined
}
