// A side of the SimilarityJoin scan read by PostgreSQL's parallel workers (parallel_load_side):
// a plain sequential scan of a large table, each worker sending its rows' coordinates and
// by-value columns to the leader through a message queue.
#include "pg/scan/load/row_reader.h"

extern "C" {
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "optimizer/optimizer.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "storage/latch.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"
}

#include <algorithm>
#include <cmath>
#include <cstring>

namespace simjoin::pg::cs {

// A side of the SimilarityJoin scan read by PostgreSQL's parallel workers (parallel_load_side).
// Reading a large table's rows into points is most of an aggregate join's time on the CPU
// engine and nearly all of it on the GPU, and it runs in one process. Where the side is a plain
// sequential scan of a table (no filter, the key and the needed columns plain columns, the
// needed ones by value), a parallel context (as parallel CREATE INDEX starts one) runs workers
// that scan the table's blocks beside the leader under its snapshot, read each row's key
// (pg/scan/keys/keys.cpp: the same readers as load_side) and send batches of coordinates and
// column values through a message queue per worker; the leader appends them to the side as it
// appends its own rows. A row whose key is wild, skipped (EMPTY, a zero vector) or a box, or
// keys of another dimension or SRID than the others', makes every participant stop: load_side
// then reads the side as always. Rows come in block order per participant, not table order.
// Where those workers would share cores with the leader, parallel_load_side has the leader read
// the side with parse threads instead (pg/scan/load/threaded_load.cpp, simjoin.load_threads).

namespace {

constexpr uint64 kKeyShared = UINT64CONST(0x53494D4A4F494E01);
constexpr uint64 kKeyScan = UINT64CONST(0x53494D4A4F494E02);
constexpr uint64 kKeyQueues = UINT64CONST(0x53494D4A4F494E03);
constexpr int kMaxWorkers = 32;
constexpr Size kQueueBytes = 1024 * 1024;  // per worker
constexpr Size kBatchBytes = 64 * 1024;    // a worker's message
constexpr int kLeaderRowsPerTurn = 2048;   // the leader's rows between looks at the queues
constexpr Size kRowMemory = 64 * 1024;     // detoasted keys held before a reset
constexpr double kReserveRowsMax = 1 << 28;  // reserve_rows: a larger table grows as it is read

// A worker's message: this header, rows x dim coordinates, rows x n_need values, as many nulls.
struct BatchHeader {
  uint32 rows;
  int32 dim;
  int32 srid;
  int32 srid_set;
};

}  // namespace

RowReader make_reader(const LoadShared* shared, const KeyRef& ref) {
  RowReader reader;
  reader.shared = shared;
  reader.ref = ref;
  reader.row_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin parallel load rows",
                                          ALLOCSET_DEFAULT_SIZES);
  reader.coords_dim = 64;
  reader.coords = static_cast<double*>(palloc(sizeof(double) * reader.coords_dim));
  return reader;
}

void free_reader(RowReader* reader) {
  MemoryContextDelete(reader->row_mcxt);
  pfree(reader->coords);
}

RowResult read_columns(RowReader* reader, const Datum* columns, const bool* nulls, Datum* values,
                       bool* isnull) {
  const LoadShared* shared = reader->shared;
  if (nulls[shared->key_attno - 1]) return ROW_NULL_KEY;
  if (MemoryContextMemAllocated(reader->row_mcxt, false) > kRowMemory)
    MemoryContextReset(reader->row_mcxt);
  MemoryContext old = MemoryContextSwitchTo(reader->row_mcxt);
  const Datum value = detoast_key(shared->form, columns[shared->key_attno - 1]);
  const bool point = key_is_point(shared->form, value, &reader->ref);
  MemoryContextSwitchTo(old);
  if (!point) return ROW_GIVE_UP;
  if (reader->ref.dim > reader->coords_dim) {
    reader->coords = static_cast<double*>(repalloc(reader->coords, sizeof(double) * reader->ref.dim));
    reader->coords_dim = reader->ref.dim;
  }
  read_key(shared->form, value, reader->ref, reader->coords);
  needed_columns(*shared, columns, nulls, values, isnull);
  return ROW_POINT;
}

void needed_columns(const LoadShared& shared, const Datum* columns, const bool* nulls,
                    Datum* values, bool* isnull) {
  for (int c = 0; c < shared.n_need; ++c) {
    values[c] = columns[shared.need_attno[c] - 1];
    isnull[c] = nulls[shared.need_attno[c] - 1];
  }
}

RowResult read_row(RowReader* reader, TupleTableSlot* slot, Datum* values, bool* isnull) {
  slot_getsomeattrs(slot, reader->shared->last_attno);
  return read_columns(reader, slot->tts_values, slot->tts_isnull, values, isnull);
}

bool agree(KeyRef* merged, int dim, int32 srid, bool srid_set) {
  if (dim < 0) return true;  // no key read yet
  if (merged->dim < 0) merged->dim = dim;
  if (merged->dim != dim) return false;
  if (!srid_set) return true;
  if (!merged->srid_set) {
    merged->srid = srid;
    merged->srid_set = true;
  }
  return merged->srid == srid;
}

void append_rows(SimJoinState* st, Side* side, const double* coords, const Datum* values,
                 const bool* isnull, uint32 rows) {
  const uint32 row = side->n;
  const int k = side->n_need;
  if (k > 0) {
    reserve_row_values(st, side, static_cast<size_t>(row) + rows);
    std::memcpy(side->values + static_cast<Size>(row) * k, values, sizeof(Datum) * k * rows);
    std::memcpy(side->isnull + static_cast<Size>(row) * k, isnull, sizeof(bool) * k * rows);
  }
  add_row_without_tuple(st, side, rows);
  append_point(st, side, row, coords, rows);
}

namespace {

// A worker's batch appended; false when its reference disagrees.
bool append_batch(SimJoinState* st, Side* side, KeyRef* merged, const char* data, Size bytes) {
  BatchHeader header;
  std::memcpy(&header, data, sizeof header);
  if (!agree(merged, header.dim, header.srid, header.srid_set != 0)) return false;
  st->ref = *merged;
  const int k = side->n_need;
  const Size coord_bytes = sizeof(double) * header.dim * static_cast<Size>(header.rows);
  const Size value_bytes = sizeof(Datum) * k * static_cast<Size>(header.rows);
  if (bytes != sizeof header + coord_bytes + value_bytes + sizeof(bool) * k * header.rows)
    elog(ERROR, "simjoin: a parallel load's batch of %zu bytes is malformed", bytes);
  // Copied out once: the queue's bytes need not be aligned for doubles.
  char* batch = static_cast<char*>(palloc(bytes - sizeof header));
  std::memcpy(batch, data + sizeof header, bytes - sizeof header);
  const double* coords = reinterpret_cast<const double*>(batch);
  const Datum* values = reinterpret_cast<const Datum*>(batch + coord_bytes);
  const bool* isnull = reinterpret_cast<const bool*>(batch + coord_bytes + value_bytes);
  append_rows(st, side, coords, values, isnull, header.rows);
  pfree(batch);
  return true;
}

// The table's column behind a column of the child's output, or 0.
AttrNumber table_column(const Plan* plan, Index scanrelid, int position) {
  if (position < 0 || position >= list_length(plan->targetlist)) return 0;
  const TargetEntry* tle = list_nth_node(TargetEntry, plan->targetlist, position);
  const Var* var = reinterpret_cast<const Var*>(tle->expr);
  if (!IsA(var, Var) || var->varno != static_cast<int>(scanrelid) || var->varattno <= 0 ||
      var->varlevelsup != 0)
    return 0;
  return var->varattno;
}

}  // namespace

// Workers for a table of this size, as PostgreSQL's compute_parallel_worker counts them.
int load_workers(Relation rel) {
  if (max_parallel_workers_per_gather <= 0) return 0;
  int workers = RelationGetParallelWorkers(rel, -1);
  if (workers < 0) {
    const double pages = RelationGetNumberOfBlocks(rel);
    if (pages < min_parallel_table_scan_size) return 0;
    double threshold = Max(min_parallel_table_scan_size, 1);
    workers = 1;
    while (pages >= threshold * 3 && workers < kMaxWorkers) {
      workers++;
      threshold *= 3;
    }
  }
  return Min(Min(workers, max_parallel_workers_per_gather), kMaxWorkers);
}

// Room for the rows a scan of the whole table will append, reserved once: the table's blocks
// times the rows per block of its statistics (PostgreSQL's own estimate of a table's rows), so
// the side's arrays do not grow by copying. Pages of a reservation left unused are never touched.
void reserve_rows(SimJoinState* st, Side* side, Relation rel) {
  const double pages = rel->rd_rel->relpages;
  const double tuples = rel->rd_rel->reltuples;
  if (pages <= 0 || tuples <= 0) return;
  const double blocks = RelationGetNumberOfBlocks(rel);
  const double rows = std::ceil(tuples / pages * blocks * 1.05);
  if (!(rows >= 1024) || rows > kReserveRowsMax) return;
  const uint32 want = static_cast<uint32>(rows);
  ensure_capacity(st->arrays_mcxt, &side->tuples, &side->cap, want);
  ensure_capacity(st->arrays_mcxt, &side->point_row, &side->points_cap, want);
  if (side->n_need > 0) reserve_row_values(st, side, want);
}

bool parallel_load_applies(SimJoinState* st, Side* side, PlanState* child, ExprState* key,
                           LoadShared* shared) {
  if (st->parallel_load_failed || !side->values_only) return false;
  if (reads_radius(st, side) || (side == &st->outer && st->ordered_output)) return false;
  if (IsInParallelMode() || IsParallelWorker() || side->n_need > kMaxNeed) return false;
  const EState* estate = st->css.ss.ps.state;
  const PlannedStmt* stmt = estate->es_plannedstmt;
  if (estate->es_epq_active || stmt->commandType != CMD_SELECT || stmt->hasModifyingCTE ||
      stmt->rowMarks != NIL || !IsMVCCSnapshot(estate->es_snapshot))
    return false;
  if (!IsA(child, SeqScanState) || child->plan->qual != NIL) return false;
  Relation rel = reinterpret_cast<ScanState*>(child)->ss_currentRelation;
  if (rel->rd_rel->relkind != RELKIND_RELATION || RelationUsesLocalBuffers(rel)) return false;
  const Index scanrelid = reinterpret_cast<const Scan*>(child->plan)->scanrelid;
  const Var* key_var = reinterpret_cast<const Var*>(key->expr);
  if (!key_var || !IsA(key_var, Var)) return false;
  shared->key_attno = table_column(child->plan, scanrelid, key_var->varattno - 1);
  if (shared->key_attno == 0) return false;
  shared->last_attno = shared->key_attno;
  shared->n_need = side->n_need;
  TupleDesc desc = RelationGetDescr(rel);
  for (int c = 0; c < side->n_need; ++c) {
    const AttrNumber attno = table_column(child->plan, scanrelid, side->need[c]);
    if (attno == 0 || !TupleDescAttr(desc, attno - 1)->attbyval) return false;
    shared->need_attno[c] = attno;
    shared->last_attno = Max(shared->last_attno, attno);
  }
  shared->relid = RelationGetRelid(rel);
  shared->form = st->form;
  shared->ref = st->ref;
  return true;
}

namespace {

// The leader's part: its own share of the blocks (unless it only collects) and the workers'
// batches, until every participant is done or one gives up. Returns false when one gave up.
bool collect_rows(SimJoinState* st, Side* side, Relation rel, ParallelTableScanDesc pscan,
                  LoadShared* shared, shm_mq_handle** readers, int launched) {
  KeyRef merged = st->ref;
  RowReader reader = make_reader(shared, st->ref);
  Datum values[kMaxNeed];
  bool isnull[kMaxNeed];
  const bool leader_reads = parallel_leader_participation || launched == 0;
  TableScanDesc scan = leader_reads ? table_beginscan_parallel(rel, pscan) : nullptr;
  TupleTableSlot* slot = leader_reads ? table_slot_create(rel, nullptr) : nullptr;
  bool* detached = static_cast<bool*>(palloc0(sizeof(bool) * Max(launched, 1)));
  int active = launched;
  bool own_done = !leader_reads;
  bool gave_up = false;
  while (!gave_up && (!own_done || active > 0)) {
    CHECK_FOR_INTERRUPTS();
    for (int r = 0; !own_done && !gave_up && r < kLeaderRowsPerTurn; ++r) {
      if (!table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
        own_done = true;
        break;
      }
      const RowResult result = read_row(&reader, slot, values, isnull);
      if (result == ROW_NULL_KEY) continue;
      if (result == ROW_GIVE_UP ||
          !agree(&merged, reader.ref.dim, reader.ref.srid, reader.ref.srid_set)) {
        gave_up = true;
        break;
      }
      st->ref = merged;
      append_rows(st, side, reader.coords, values, isnull, 1);
    }
    bool received = false;
    for (int w = 0; w < launched && !gave_up; ++w) {
      while (!detached[w]) {
        Size bytes;
        void* data;
        const shm_mq_result res = shm_mq_receive(readers[w], &bytes, &data, true);
        if (res == SHM_MQ_WOULD_BLOCK) break;
        if (res == SHM_MQ_DETACHED) {
          detached[w] = true;
          active--;
          break;
        }
        received = true;
        if (!append_batch(st, side, &merged, static_cast<const char*>(data), bytes)) {
          gave_up = true;
          break;
        }
      }
    }
    if (pg_atomic_read_u32(&shared->give_up) != 0) gave_up = true;
    if (!gave_up && own_done && active > 0 && !received) {
      (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1, PG_WAIT_EXTENSION);
      ResetLatch(MyLatch);
    }
  }
  if (gave_up) pg_atomic_write_u32(&shared->give_up, 1);
  if (scan) {
    ExecDropSingleTupleTableSlot(slot);
    table_endscan(scan);
  }
  free_reader(&reader);
  pfree(detached);
  return !gave_up;
}

}  // namespace

bool parallel_load_side(SimJoinState* st, Side* side, PlanState* child, ExprState* key) {
  LoadShared columns;
  if (!parallel_load_applies(st, side, child, key, &columns)) return false;
  Relation rel = reinterpret_cast<ScanState*>(child)->ss_currentRelation;
  const int workers = st->parallel_load_ok ? load_workers(rel) : 0;
  const KeyRef saved_ref = st->ref;
  const int threads = load_threads(rel, workers);
  if (threads > 0) {
    reserve_rows(st, side, rel);
    const bool complete = threaded_load_side(st, side, rel, columns, threads);
    if (!finish_load(st, side, complete, saved_ref, 0, 0)) return false;
    side->load_threads = threads;
    return true;
  }
  if (workers == 0) return false;
  Snapshot snapshot = st->css.ss.ps.state->es_snapshot;

  EnterParallelMode();
  ParallelContext* pcxt = CreateParallelContext("$libdir/simjoin", "simjoin_parallel_load_main",
                                                workers);
  const Size scan_bytes = table_parallelscan_estimate(rel, snapshot);
  shm_toc_estimate_chunk(&pcxt->estimator, sizeof(LoadShared));
  shm_toc_estimate_chunk(&pcxt->estimator, scan_bytes);
  shm_toc_estimate_chunk(&pcxt->estimator, mul_size(kQueueBytes, workers));
  shm_toc_estimate_keys(&pcxt->estimator, 3);
  InitializeParallelDSM(pcxt);
  if (pcxt->seg == nullptr) {  // no dynamic shared memory now: the leader alone gains nothing
    DestroyParallelContext(pcxt);
    ExitParallelMode();
    return false;
  }
  LoadShared* shared = static_cast<LoadShared*>(shm_toc_allocate(pcxt->toc, sizeof(LoadShared)));
  std::memcpy(static_cast<void*>(shared), &columns, sizeof(LoadShared));
  pg_atomic_init_u32(&shared->give_up, 0);
  shm_toc_insert(pcxt->toc, kKeyShared, shared);
  ParallelTableScanDesc pscan =
      static_cast<ParallelTableScanDesc>(shm_toc_allocate(pcxt->toc, scan_bytes));
  table_parallelscan_initialize(rel, pscan, snapshot);
  shm_toc_insert(pcxt->toc, kKeyScan, pscan);
  char* queues = static_cast<char*>(shm_toc_allocate(pcxt->toc, mul_size(kQueueBytes, workers)));
  shm_toc_insert(pcxt->toc, kKeyQueues, queues);
  shm_mq_handle** readers = static_cast<shm_mq_handle**>(palloc(sizeof(shm_mq_handle*) * workers));
  for (int w = 0; w < workers; ++w) {
    shm_mq* mq = shm_mq_create(queues + kQueueBytes * w, kQueueBytes);
    shm_mq_set_receiver(mq, MyProc);
    readers[w] = shm_mq_attach(mq, pcxt->seg, nullptr);
  }
  LaunchParallelWorkers(pcxt);
  const int launched = pcxt->nworkers_launched;
  reserve_rows(st, side, rel);
  for (int w = 0; w < launched; ++w) shm_mq_set_handle(readers[w], pcxt->worker[w].bgwhandle);

  const bool complete = collect_rows(st, side, rel, pscan, shared, readers, launched);
  for (int w = 0; w < workers; ++w) shm_mq_detach(readers[w]);  // a worker still sending stops
  WaitForParallelWorkersToFinish(pcxt);
  DestroyParallelContext(pcxt);
  ExitParallelMode();
  pfree(readers);

  return finish_load(st, side, complete, saved_ref, workers, launched);
}

bool finish_load(SimJoinState* st, Side* side, bool complete, const KeyRef& saved_ref,
                 int workers_planned, int workers_launched) {
  if (!complete) {
    reset_side(side);
    side->values_only = true;  // as load_side decided
    st->ref = saved_ref;
    st->parallel_load_failed = true;
    return false;
  }
  side->load_workers_planned = workers_planned;
  side->load_workers_launched = workers_launched;
  side->loaded = true;
  // Every row read here has a point, appended with it: rows and points are the same index
  // (values_by_point would copy the values in the same order).
  side->values_by_row = side->values != nullptr && side->n != side->n_points;
  return true;
}

}  // namespace simjoin::pg::cs

// A parallel worker of parallel_load_side: its share of the table's blocks, read into batches
// sent to the leader.
extern "C" PGDLLEXPORT void simjoin_parallel_load_main(dsm_segment* seg, shm_toc* toc);

extern "C" void simjoin_parallel_load_main(dsm_segment* seg, shm_toc* toc) {
  using namespace simjoin::pg::cs;
  LoadShared* shared = static_cast<LoadShared*>(shm_toc_lookup(toc, kKeyShared, false));
  ParallelTableScanDesc pscan = static_cast<ParallelTableScanDesc>(shm_toc_lookup(toc, kKeyScan, false));
  char* queues = static_cast<char*>(shm_toc_lookup(toc, kKeyQueues, false));
  shm_mq* mq = reinterpret_cast<shm_mq*>(queues + kQueueBytes * ParallelWorkerNumber);
  shm_mq_set_sender(mq, MyProc);
  shm_mq_handle* sender = shm_mq_attach(mq, seg, nullptr);
  Relation rel = table_open(shared->relid, AccessShareLock);
  TableScanDesc scan = table_beginscan_parallel(rel, pscan);
  TupleTableSlot* slot = table_slot_create(rel, nullptr);
  RowReader reader = make_reader(shared, shared->ref);
  const int k = shared->n_need;
  double* coords = nullptr;  // the batch, allocated once the dimension is known
  Datum* values = nullptr;
  bool* isnull = nullptr;
  uint32 rows = 0;
  uint32 capacity = 0;
  int dim = 0;
  Datum row_values[kMaxNeed];
  bool row_isnull[kMaxNeed];
  auto send = [&]() -> bool {
    BatchHeader header{rows, reader.ref.dim, reader.ref.srid, reader.ref.srid_set ? 1 : 0};
    shm_mq_iovec parts[4] = {
        {reinterpret_cast<const char*>(&header), sizeof header},
        {reinterpret_cast<const char*>(coords), sizeof(double) * reader.ref.dim * static_cast<Size>(rows)},
        {reinterpret_cast<const char*>(values), sizeof(Datum) * k * static_cast<Size>(rows)},
        {reinterpret_cast<const char*>(isnull), sizeof(bool) * k * static_cast<Size>(rows)}};
    rows = 0;
    return shm_mq_sendv(sender, parts, 4, false, true) == SHM_MQ_SUCCESS;
  };
  bool sending = true;
  while (sending && table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
    CHECK_FOR_INTERRUPTS();
    const RowResult result = read_row(&reader, slot, row_values, row_isnull);
    if (result == ROW_NULL_KEY) continue;
    if (result == ROW_GIVE_UP) {
      pg_atomic_write_u32(&shared->give_up, 1);
      break;
    }
    if (coords == nullptr) {  // the first point fixed this participant's dimension
      dim = reader.ref.dim;
      const Size row_bytes = sizeof(double) * dim + (sizeof(Datum) + sizeof(bool)) * k;
      capacity = static_cast<uint32>(std::max<Size>(1, kBatchBytes / row_bytes));
      coords = static_cast<double*>(palloc(sizeof(double) * dim * static_cast<Size>(capacity)));
      values = static_cast<Datum*>(palloc(sizeof(Datum) * Max(k, 1) * static_cast<Size>(capacity)));
      isnull = static_cast<bool*>(palloc(sizeof(bool) * Max(k, 1) * static_cast<Size>(capacity)));
    }
    std::memcpy(coords + static_cast<Size>(rows) * dim, reader.coords, sizeof(double) * dim);
    if (k > 0) {
      std::memcpy(values + static_cast<Size>(rows) * k, row_values, sizeof(Datum) * k);
      std::memcpy(isnull + static_cast<Size>(rows) * k, row_isnull, sizeof(bool) * k);
    }
    if (++rows == capacity) {
      sending = send();
      if (pg_atomic_read_u32(&shared->give_up) != 0) sending = false;
    }
  }
  if (sending && rows > 0 && pg_atomic_read_u32(&shared->give_up) == 0) send();
  free_reader(&reader);
  ExecDropSingleTupleTableSlot(slot);
  table_endscan(scan);
  table_close(rel, AccessShareLock);
  shm_mq_detach(sender);
}
