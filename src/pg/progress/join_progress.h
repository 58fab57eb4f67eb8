// A running join's progress where PostgreSQL keeps its own commands' progress (the backend's
// st_progress_* fields, pg_stat_progress_*), under a command number of simjoin's, so that every
// session can read it (the simjoin_progress view: progress_view.cpp) without shared memory of
// our own, preloaded or not. Only the backend's own thread reports. A join reports only when
// nothing else does (a COPY's progress around it, an outer join of ours); an ERROR ends the
// report (AbortTransaction clears the backend's progress).
#pragma once

extern "C" {
#include "postgres.h"
#include "utils/backend_status.h"
}

#include <cstdint>

#include "engine/types.h"

namespace simjoin::pg {

// The progress fields' command number, not one of PostgreSQL's (ProgressCommandType).
constexpr int32 kSimjoinProgressCommand = 0x534A4E;

// The command number in a backend's progress fields (st_progress_command holds an int; simjoin's
// number is not one of ProgressCommandType's enumerators).
int32 progress_command_of(const PgBackendStatus* entry);

enum class ProgressCommand : int64 {
  SimilarityJoin = 1,
  SimilarityJoinStats = 2,
  SimilarityKnnJoin = 3,
  Dbscan = 4,
  CustomScan = 5,
  AggregateScan = 6,
};

enum class ProgressPhase : int64 { Loading = 1, Joining = 2 };

// st_progress_param's slots.
enum ProgressParam {
  PROGRESS_COMMAND = 0,      // ProgressCommand
  PROGRESS_PHASE = 1,        // ProgressPhase
  PROGRESS_ROWS_LOADED = 2,  // rows read into the engine's input so far, both sides
  PROGRESS_WORK_DONE = 3,    // candidate pairs (distance evaluations) finished
  PROGRESS_WORK_TOTAL = 4,   // their sampled estimate; -1 until known
  PROGRESS_PAIRS = 5,        // pairs the engine returned
};

// Starts this backend's report (phase Loading) and returns true: the caller owns it. Returns
// false where another report is running; `owned` false then makes the calls below no-ops, so
// that a join nested in another (a custom scan's input, a function in a query) leaves the
// outer one's report alone.
bool progress_begin(ProgressCommand command, Oid relid);
// Ends the report begun by the progress_begin that returned `owned`.
void progress_end(bool owned);

void progress_loading(bool owned);  // phase Loading again (a rescan): the points are forgotten
void progress_add_rows(std::uint64_t rows);  // more rows loaded (written every few thousand)
void progress_set_rows(bool owned, std::uint64_t rows);  // the rows loaded, all
// Phase Joining on these points, which must stay valid until the report ends or goes back to
// Loading: their sampled work becomes the total once the join has run half a second
// (estimate_join_work, on this thread), times `passes` (DBSCAN's two: its counts, its links).
void progress_joining(bool owned, const PointSet& left, const PointSet* right,
                      const JoinSpec& spec, unsigned passes = 1);
void progress_candidates(bool owned, std::uint64_t done);  // the engine's candidates done
void progress_add_pairs(bool owned, std::uint64_t pairs);

}  // namespace simjoin::pg
