// The progress report of this backend's join (join_progress.h): st_progress_command set to
// simjoin's command number by hand (pgstat_progress_start_command takes only PostgreSQL's), the
// parameters through pgstat_progress_update_param, which PostgreSQL's own commands use.
#include "pg/progress/join_progress.h"

extern "C" {
#include "pgstat.h"
#include "port/atomics.h"
#include "utils/backend_progress.h"
#include "utils/backend_status.h"
}

#include <chrono>
#include <cstring>
#include <optional>

#include "engine/choice/work_estimate.h"

namespace simjoin::pg {

namespace {

static_assert(sizeof(ProgressCommandType) == sizeof(int32), "the command field holds an int");

constexpr std::uint64_t kRowsBetweenWrites = 16384;
constexpr auto kEstimateAfter = std::chrono::milliseconds(500);

struct Report {
  bool active = false;                 // a report of ours runs (also checked in the backend)
  std::uint64_t rows = 0;              // rows loaded
  std::uint64_t rows_written = 0;      // as last written
  std::uint64_t pairs = 0;
  std::optional<PointSet> left;        // the joining phase's points, for the estimate
  std::optional<PointSet> right;
  JoinSpec spec;
  unsigned passes = 1;                 // the estimate's multiple (DBSCAN: two passes)
  bool total_known = false;
  std::chrono::steady_clock::time_point joining_since;
};

Report report;

// Whether this backend's progress fields are ours: `report` may be stale after an ERROR, which
// cleared them (and a COPY may have set them since).
bool reporting() {
  return report.active && MyBEEntry != nullptr &&
         progress_command_of(MyBEEntry) == kSimjoinProgressCommand;
}

void set(ProgressParam param, std::int64_t value) {
  if (reporting()) pgstat_progress_update_param(param, value);
}

}  // namespace

int32 progress_command_of(const PgBackendStatus* entry) {
  int32 command;
  std::memcpy(&command, &entry->st_progress_command, sizeof command);
  return command;
}

bool progress_begin(ProgressCommand command, Oid relid) {
  PgBackendStatus* entry = MyBEEntry;
  if (entry == nullptr || !pgstat_track_activities) return false;
  if (progress_command_of(entry) != PROGRESS_COMMAND_INVALID) return false;
  PGSTAT_BEGIN_WRITE_ACTIVITY(entry);
  std::memcpy(&entry->st_progress_command, &kSimjoinProgressCommand,
              sizeof kSimjoinProgressCommand);
  entry->st_progress_command_target = relid;
  MemSet(&entry->st_progress_param, 0, sizeof(entry->st_progress_param));
  PGSTAT_END_WRITE_ACTIVITY(entry);
  report = Report{};
  report.active = true;
  set(PROGRESS_COMMAND, static_cast<std::int64_t>(command));
  set(PROGRESS_PHASE, static_cast<std::int64_t>(ProgressPhase::Loading));
  set(PROGRESS_WORK_TOTAL, -1);
  return true;
}

void progress_end(bool owned) {
  if (!owned) return;
  if (reporting()) pgstat_progress_end_command();
  report = Report{};
}

void progress_loading(bool owned) {
  if (!owned) return;
  report.left.reset();
  report.right.reset();
  set(PROGRESS_PHASE, static_cast<std::int64_t>(ProgressPhase::Loading));
}

void progress_add_rows(std::uint64_t rows) {
  if (!report.active) return;
  report.rows += rows;
  if (report.rows - report.rows_written < kRowsBetweenWrites) return;
  report.rows_written = report.rows;
  set(PROGRESS_ROWS_LOADED, static_cast<std::int64_t>(report.rows));
}

void progress_set_rows(bool owned, std::uint64_t rows) {
  if (!owned || !report.active) return;
  report.rows = report.rows_written = rows;
  set(PROGRESS_ROWS_LOADED, static_cast<std::int64_t>(rows));
}

void progress_joining(bool owned, const PointSet& left, const PointSet* right,
                      const JoinSpec& spec, unsigned passes) {
  if (!owned || !reporting()) return;
  report.left = left;
  report.right = right ? std::optional<PointSet>(*right) : std::nullopt;
  report.spec = spec;
  report.spec.threads = 1;  // the estimate runs beside the join's own threads, on this one
  report.passes = passes;
  report.total_known = false;
  report.joining_since = std::chrono::steady_clock::now();
  report.rows_written = report.rows;
  set(PROGRESS_ROWS_LOADED, static_cast<std::int64_t>(report.rows));
  set(PROGRESS_PHASE, static_cast<std::int64_t>(ProgressPhase::Joining));
  set(PROGRESS_WORK_DONE, 0);
  set(PROGRESS_WORK_TOTAL, -1);
}

void progress_candidates(bool owned, std::uint64_t done) {
  if (!owned || !reporting()) return;
  set(PROGRESS_WORK_DONE, static_cast<std::int64_t>(done));
  if (report.total_known || !report.left) return;
  if (std::chrono::steady_clock::now() - report.joining_since < kEstimateAfter) return;
  report.total_known = true;  // one try: a join too odd to sample reports no total
  try {
    const JoinWork work =
        estimate_join_work(*report.left, report.right ? &*report.right : nullptr, report.spec);
    set(PROGRESS_WORK_TOTAL, static_cast<std::int64_t>(work.candidates * report.passes));
  } catch (...) {
  }
}

void progress_add_pairs(bool owned, std::uint64_t pairs) {
  if (!owned || !report.active) return;
  report.pairs += pairs;
  set(PROGRESS_PAIRS, static_cast<std::int64_t>(report.pairs));
}

}  // namespace simjoin::pg
