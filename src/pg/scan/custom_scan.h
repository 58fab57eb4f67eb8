// The SimilarityJoin custom scan provider: planner hook and executor callbacks.
#pragma once

namespace simjoin::pg {

// Called once from _PG_init: registers the custom scan methods, the join path hook and its
// settings. Touches no GPU.
void custom_scan_init();

}  // namespace simjoin::pg
