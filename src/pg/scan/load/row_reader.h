// Reading a plain table side's rows straight into points, beside its SeqScan: what the parallel
// workers (pg/scan/load/parallel_load.cpp) and the leader's parse threads
// (pg/scan/load/threaded_load.cpp) share: the columns read, one row's key and needed columns
// (read_columns), the agreement of participants' references, appending a point to the side.
#pragma once

#include "pg/scan/form_state.h"

namespace simjoin::pg::cs {

constexpr int kMaxNeed = 16;

// What every participant reads (in the parallel context's segment when there are workers).
struct LoadShared {
  Oid relid;
  FormInfo form;
  KeyRef ref;  // the join's reference when the load began (dim -1: not fixed yet)
  AttrNumber key_attno;
  AttrNumber last_attno;  // the largest of the key's and the needed columns' numbers
  int n_need;
  AttrNumber need_attno[kMaxNeed];
  pg_atomic_uint32 give_up;  // a participant met a row it leaves to load_side
};

enum RowResult { ROW_NULL_KEY, ROW_POINT, ROW_GIVE_UP };

struct RowReader {
  const LoadShared* shared;
  KeyRef ref;  // this participant's: fixed by its first key unless the join's was
  MemoryContext row_mcxt;  // detoasted keys
  double* coords;          // the last row's coordinates (in the caller's context)
  int coords_dim;
};

RowReader make_reader(const LoadShared* shared, const KeyRef& ref);
void free_reader(RowReader* reader);
// One table row, given its columns (by attribute number - 1, up to shared->last_attno): its
// key's coordinates (reader->coords) and its needed columns, or why it has none.
RowResult read_columns(RowReader* reader, const Datum* columns, const bool* nulls, Datum* values,
                       bool* isnull);
RowResult read_row(RowReader* reader, TupleTableSlot* slot, Datum* values, bool* isnull);
// A row's needed columns (shared.need_attno), from its columns (by attribute number - 1).
void needed_columns(const LoadShared& shared, const Datum* columns, const bool* nulls,
                    Datum* values, bool* isnull);
// Whether a participant's reference agrees with the others' (merged: the first one fixed).
bool agree(KeyRef* merged, int dim, int32 srid, bool srid_set);
// Rows with points appended to the side (values_only: no tuples): rows x dim coordinates,
// rows x n_need values and as many nulls.
void append_rows(SimJoinState* st, Side* side, const double* coords, const Datum* values,
                 const bool* isnull, uint32 rows);
// Whether the side may be read beside its SeqScan (by threads; by workers where the plan also
// allows parallel mode); fills the columns of shared.
bool parallel_load_applies(SimJoinState* st, Side* side, PlanState* child, ExprState* key,
                           LoadShared* shared);
// PostgreSQL's parallel workers for reading this table (0: none).
int load_workers(Relation rel);
// Room for the rows of the whole table in the side's arrays, reserved at once.
void reserve_rows(SimJoinState* st, Side* side, Relation rel);
// The parse threads that read this table beside the leader (pg/scan/load/threaded_load.cpp), or
// 0 where PostgreSQL's `workers` parallel workers read it sooner (simjoin.load_threads).
int load_threads(Relation rel, int workers);
// The side read by the leader, its tuples parsed by `threads` threads beside it; false when a
// row must be left to load_side (finish_load then resets the side).
bool threaded_load_side(SimJoinState* st, Side* side, Relation rel, const LoadShared& columns,
                        int threads);
// The end of a load beside the SeqScan: the side complete, or reset for load_side.
bool finish_load(SimJoinState* st, Side* side, bool complete, const KeyRef& saved_ref,
                 int workers_planned, int workers_launched);

}  // namespace simjoin::pg::cs
