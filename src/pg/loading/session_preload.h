// The library in every new session of a database where the extension is created, so that the
// planner's hooks (the custom scans) are there for distance joins written only with other
// extensions' operators (cube, point, PostGIS, pgvector), which load nothing of simjoin's.
// CREATE EXTENSION (and the update to 1.8) adds simjoin to the database's
// session_preload_libraries (simjoin_session_preload()); DROP EXTENSION takes it out again.
#pragma once

namespace simjoin::pg {

// Installs the hook that takes simjoin out of the database's session_preload_libraries when the
// extension is dropped. From _PG_init.
void session_preload_init();

}  // namespace simjoin::pg
