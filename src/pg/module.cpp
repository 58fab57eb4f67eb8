// The extension module: its magic block and _PG_init. _PG_init may run in the postmaster (when
// preloaded), so it only registers settings and hooks: CUDA is initialized lazily, in a backend,
// on the first join that asks for the GPU.
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

PGDLLEXPORT void _PG_init(void);
}

#include "custom_scan.h"
#include "settings.h"

extern "C" void _PG_init(void) {
  simjoin::pg::define_settings();
  simjoin::pg::custom_scan_init();
  MarkGUCPrefixReserved("simjoin");  // after every simjoin.* setting is defined
}
