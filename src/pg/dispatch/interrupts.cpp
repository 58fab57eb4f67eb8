// Pending interrupts (pg/dispatch/interrupts.h).
#include "pg/dispatch/interrupts.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
}

namespace simjoin::pg {

bool interrupt_pending() { return QueryCancelPending || ProcDiePending; }

void raise_if_interrupted(bool stopped) {
  if (!stopped) return;
  CHECK_FOR_INTERRUPTS();
  if (interrupt_pending())
    ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg("canceling statement")));
}

}  // namespace simjoin::pg
