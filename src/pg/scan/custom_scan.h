// The SimilarityJoin custom scans, as PostgreSQL enters them (pg/scan/custom_scan.cpp).
#pragma once

namespace simjoin::pg {

// Called once from _PG_init: defines the scans' settings, installs their planner hooks and
// registers their executor methods. Touches no GPU.
void custom_scan_init();

}  // namespace simjoin::pg
