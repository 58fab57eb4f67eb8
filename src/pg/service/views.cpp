// What the GPU service shows of itself: simjoin_device_info() (can a join use a GPU here, and if
// not, why), simjoin_devices() (each device with its ledger and load) and simjoin_jobs() (each
// job: its session, state, device, reservation and progress). They read the shared state only; nothing here touches a GPU.
extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

PG_FUNCTION_INFO_V1(simjoin_device_info);
PG_FUNCTION_INFO_V1(simjoin_devices);
PG_FUNCTION_INFO_V1(simjoin_jobs);
}

#include <cstring>
#include <string>

#include "pg/pg_guard.h"
#include "pg/service/client.h"
#include "pg/service/job.h"
#include "pg/service/shared.h"
#include "pg/statistics_visibility.h"

using namespace simjoin::pg;

extern "C" Datum simjoin_device_info(PG_FUNCTION_ARGS) {
  TupleDesc desc;
  if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
    elog(ERROR, "simjoin: return type must be a row type");
  char detail[512];
  const bool available = cpp_guard([&] {
    std::string why;
    const bool ready = service_ready(&why);
    if (ready) {
      ServiceShared* shared = service_shared();
      why = std::string("the GPU service runs joins on ") + shared->devices[0].name;
    }
    std::snprintf(detail, sizeof detail, "%s", why.c_str());
    return ready;
  });
  Datum values[2] = {BoolGetDatum(available), CStringGetTextDatum(detail)};
  bool nulls[2] = {false, false};
  PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

extern "C" Datum simjoin_devices(PG_FUNCTION_ARGS) {
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  ServiceShared* shared = service_shared();
  if (!shared) PG_RETURN_NULL();
  SpinLockAcquire(&shared->mutex);
  const int n = shared->n_devices;
  DeviceLedger ledgers[kMaxDevices];
  std::memcpy(ledgers, shared->devices, sizeof ledgers);
  int queued[kMaxDevices + 1] = {0};
  for (const JobSlot& slot : shared->jobs)
    if (static_cast<JobState>(slot.state.load()) == JobState::Queued) queued[0]++;
  SpinLockRelease(&shared->mutex);
  for (int d = 0; d < n; ++d) {
    const DeviceLedger& l = ledgers[d];
    Datum values[9] = {Int32GetDatum(d),
                       CStringGetTextDatum(l.name),
                       Int64GetDatum(static_cast<int64>(l.total_bytes)),
                       Int64GetDatum(static_cast<int64>(l.limit_bytes)),
                       Int64GetDatum(static_cast<int64>(l.reserved_bytes)),
                       Int32GetDatum(l.running_jobs),
                       Int32GetDatum(queued[0]),
                       Int64GetDatum(static_cast<int64>(l.jobs_done)),
                       Int64GetDatum(static_cast<int64>(l.jobs_failed))};
    bool nulls[9] = {false};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  PG_RETURN_NULL();
}

extern "C" Datum simjoin_jobs(PG_FUNCTION_ARGS) {
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
  ServiceShared* shared = service_shared();
  if (!shared) PG_RETURN_NULL();
  const TimestampTz now = GetCurrentTimestamp();
  for (int s = 0; s < kMaxJobs; ++s) {
    JobSlot& slot = shared->jobs[s];
    SpinLockAcquire(&shared->mutex);
    const JobState state = static_cast<JobState>(slot.state.load());
    const uint64 job_id = slot.job_id;
    const JobKind kind = static_cast<JobKind>(slot.kind);
    const int32 pid = slot.backend_pid;
    const Oid role = slot.role;
    const int32 device = slot.device;
    const uint64 reserved = slot.reserved_bytes, wanted = slot.want_bytes;
    const uint64 estimate = slot.candidates_estimate;
    const TimestampTz submitted = slot.submitted_at, started = slot.started_at;
    SpinLockRelease(&shared->mutex);
    if (state == JobState::Free) continue;
    Datum values[13];
    bool nulls[13] = {false};
    // pg_stat_activity's rule: another role's job shows its id, state, device and kind, and its
    // session, sizes, progress and times only to members of that role or of pg_read_all_stats.
    const bool details = sees_details_of(role);
    for (int column : {1, 4, 5, 6, 7, 8, 9, 10, 11}) nulls[column] = !details;
    values[0] = Int64GetDatum(static_cast<int64>(job_id));
    values[1] = Int32GetDatum(pid);
    values[2] = CStringGetTextDatum(job_state_name(state));
    values[3] = Int32GetDatum(device);
    nulls[3] = device < 0;
    values[4] = Int64GetDatum(static_cast<int64>(wanted));
    values[5] = Int64GetDatum(static_cast<int64>(reserved));
    values[6] = Int64GetDatum(static_cast<int64>(slot.pairs.load()));
    values[7] = Int64GetDatum(static_cast<int64>(slot.candidates_done.load()));
    values[8] = Int64GetDatum(static_cast<int64>(estimate));
    values[9] = TimestampTzGetDatum(submitted);
    values[10] = Float8GetDatum(static_cast<double>((started ? started : now) - submitted) / 1e6);
    values[11] = Float8GetDatum(started ? static_cast<double>(now - started) / 1e6 : 0.0);
    // The job's kind (join, neighbour stats, dbscan): SQL 1.5's 13th column (the scripts before
    // it declare 12, and tuplestore_putvalues reads only those).
    values[12] = CStringGetTextDatum(job_kind_name(kind));
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  PG_RETURN_NULL();
}
