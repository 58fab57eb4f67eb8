// simjoin_progress_info(): one row per backend reporting a simjoin join (join_progress.h), read
// from PostgreSQL's backend status array as pg_stat_get_progress_info reads it, with its
// visibility rule: another role's backend shows only its pid, database and table unless the caller has
// that role's privileges or pg_read_all_stats'.
extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/backend_progress.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simjoin_progress_info);
}

#include <cstring>

#include "pg/progress/join_progress.h"
#include "pg/statistics_visibility.h"

namespace simjoin::pg {

namespace {

const char* command_name(int64 command) {
  switch (static_cast<ProgressCommand>(command)) {
    case ProgressCommand::SimilarityJoin: return "similarity_join";
    case ProgressCommand::SimilarityJoinStats: return "similarity_join_stats";
    case ProgressCommand::SimilarityKnnJoin: return "similarity_knn_join";
    case ProgressCommand::Dbscan: return "simjoin_dbscan";
    case ProgressCommand::CustomScan: return "SimilarityJoin";
    case ProgressCommand::AggregateScan: return "SimilarityJoinAggregate";
  }
  return "unknown";
}

const char* phase_name(int64 phase) {
  switch (static_cast<ProgressPhase>(phase)) {
    case ProgressPhase::Loading: return "loading";
    case ProgressPhase::Joining: return "joining";
  }
  return "unknown";
}

}  // namespace

}  // namespace simjoin::pg

// simjoin_progress_info(OUT pid, OUT datid, OUT relid, OUT command, OUT phase, OUT rows_loaded,
// OUT work_done, OUT work_total, OUT pairs)
extern "C" Datum simjoin_progress_info(PG_FUNCTION_ARGS) {
  using namespace simjoin::pg;
  constexpr int kColumns = 9;
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  const int backends = pgstat_fetch_stat_numbackends();
  for (int i = 1; i <= backends; ++i) {
    LocalPgBackendStatus* local = pgstat_fetch_stat_local_beentry(i);
    if (local == nullptr) continue;
    const PgBackendStatus& entry = local->backendStatus;
    if (progress_command_of(&entry) != kSimjoinProgressCommand) continue;
    Datum values[kColumns];
    bool nulls[kColumns];
    std::memset(nulls, 0, sizeof nulls);
    values[0] = Int32GetDatum(entry.st_procpid);
    values[1] = ObjectIdGetDatum(entry.st_databaseid);
    values[2] = ObjectIdGetDatum(entry.st_progress_command_target);
    nulls[2] = !OidIsValid(entry.st_progress_command_target);
    const bool visible = sees_details_of(entry.st_userid);
    const int64* param = entry.st_progress_param;
    if (visible) {
      values[3] = CStringGetTextDatum(command_name(param[PROGRESS_COMMAND]));
      values[4] = CStringGetTextDatum(phase_name(param[PROGRESS_PHASE]));
      values[5] = Int64GetDatum(param[PROGRESS_ROWS_LOADED]);
      values[6] = Int64GetDatum(param[PROGRESS_WORK_DONE]);
      values[7] = Int64GetDatum(param[PROGRESS_WORK_TOTAL]);
      nulls[7] = param[PROGRESS_WORK_TOTAL] < 0;
      values[8] = Int64GetDatum(param[PROGRESS_PAIRS]);
    } else {
      for (int c = 3; c < kColumns; ++c) nulls[c] = true;
    }
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  return (Datum)0;
}
