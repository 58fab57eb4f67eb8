// Who sees another session's details in simjoin's views (simjoin_jobs, simjoin_progress):
// pg_stat_activity's rule.
#pragma once

extern "C" {
#include "postgres.h"
#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "utils/acl.h"
}

namespace simjoin::pg {

// Whether the current user may see the details of a session of `role`: it has that role's
// privileges or pg_read_all_stats'.
inline bool sees_details_of(Oid role) {
  return has_privs_of_role(GetUserId(), role) ||
         has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
}

}  // namespace simjoin::pg
