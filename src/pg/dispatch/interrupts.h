// Pending query cancels, statement timeouts and backend terminations, as the engine's joins and the
// service's jobs poll them. Shared by the dispatch layer and the service client.
#pragma once

namespace simjoin::pg {

// Whether a query cancel, statement_timeout or backend termination is pending. Reads plain
// volatile flags only: safe on any thread, never raises.
bool interrupt_pending();

// Called in plain C context (no C++ frames with destructors below) after a join stopped early:
// processes the pending cancel/timeout; raises "canceling statement" if nothing else did.
void raise_if_interrupted(bool stopped);

}  // namespace simjoin::pg
