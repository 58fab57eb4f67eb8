// The SimilarityJoin's outer side read through an index of its table (IndexProbe, planned in
// pg/scan/index_probe.cpp): while the inner side is read, each inner row's probe values are
// kept; the outer side is then the rows that one index scan per inner row returns, each row
// once: their TIDs gathered, sorted and made unique, each row fetched once (the visible version
// under the query's snapshot, HOT chains followed) and passed through the SeqScan child's filter
// and projection, so that load_row sees the tuples the child would have returned for them.
#include "pg/scan/form_state.h"
#include "pg/scan/index_probe.h"

extern "C" {
#include "access/genam.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
}

#include <cstdlib>

namespace simjoin::pg::cs {

struct ProbeState {
  const IndexProbe* plan;
  ExprState** values;  // per key, over the inner child's tuple
  int16* typlen;
  bool* typbyval;
  MemoryContext mcxt;  // the inner rows' values
  Datum* row_values;   // n_rows x n_keys
  bool* row_null;
  uint32 n_rows;
  uint32 cap;
  // The last read of the outer side (EXPLAIN ANALYZE): whether it went through the index, the
  // index scans, the TIDs they returned (with repeats), and the rows loaded.
  bool used;
  uint64 probes;
  uint64 tids;
  uint64 rows;
};

namespace {

int compare_tids(const void* a, const void* b) {
  return ItemPointerCompare(const_cast<ItemPointer>(static_cast<const ItemPointerData*>(a)),
                            const_cast<ItemPointer>(static_cast<const ItemPointerData*>(b)));
}

// The TIDs the index scans of every inner row return, sorted and each once (in tids_mcxt).
ItemPointerData* probe_tids(ProbeState* ps, Relation rel, Snapshot snapshot, uint64* count) {
  const IndexProbe& plan = *ps->plan;
  Relation index = index_open(plan.index, AccessShareLock);
  IndexScanDesc scan = index_beginscan(rel, index, snapshot, plan.n_keys, 0);
  ScanKeyData* keys = static_cast<ScanKeyData*>(palloc(sizeof(ScanKeyData) * plan.n_keys));
  uint64 n = 0, cap = 1024;
  ItemPointerData* tids = static_cast<ItemPointerData*>(
      MemoryContextAllocHuge(CurrentMemoryContext, sizeof(ItemPointerData) * cap));
  for (uint32 r = 0; r < ps->n_rows; ++r) {
    CHECK_FOR_INTERRUPTS();
    const Datum* values = ps->row_values + static_cast<Size>(r) * plan.n_keys;
    const bool* nulls = ps->row_null + static_cast<Size>(r) * plan.n_keys;
    bool any_null = false;
    for (int k = 0; k < plan.n_keys; ++k) {
      const ProbeKey& key = plan.keys[k];
      any_null = any_null || nulls[k];  // a strict operator: no outer row satisfies it
      ScanKeyEntryInitialize(&keys[k], 0, static_cast<AttrNumber>(key.attno),
                             static_cast<StrategyNumber>(key.strategy), key.subtype,
                             key.collation, key.function, values[k]);
    }
    if (any_null) continue;
    index_rescan(scan, keys, plan.n_keys, nullptr, 0);
    ++ps->probes;
    for (ItemPointer tid; (tid = index_getnext_tid(scan, ForwardScanDirection)) != nullptr;) {
      if (n == cap) {
        cap *= 2;
        tids = static_cast<ItemPointerData*>(repalloc_huge(tids, sizeof(ItemPointerData) * cap));
      }
      tids[n++] = *tid;
    }
  }
  index_endscan(scan);
  index_close(index, NoLock);  // (kept locked to the end of the transaction, as the executor does)
  ps->tids = n;
  qsort(tids, n, sizeof(ItemPointerData), compare_tids);
  uint64 unique = 0;
  for (uint64 i = 0; i < n; ++i)
    if (unique == 0 || !ItemPointerEquals(&tids[unique - 1], &tids[i])) tids[unique++] = tids[i];
  *count = unique;
  return tids;
}

}  // namespace

void begin_index_probe(SimJoinState* st, const IndexProbe& probe) {
  st->probe = nullptr;
  if (!OidIsValid(probe.index)) return;
  ProbeState* ps = static_cast<ProbeState*>(palloc0(sizeof(ProbeState)));
  ps->plan = &probe;
  ps->values = static_cast<ExprState**>(palloc(sizeof(ExprState*) * probe.n_keys));
  ps->typlen = static_cast<int16*>(palloc(sizeof(int16) * probe.n_keys));
  ps->typbyval = static_cast<bool*>(palloc(sizeof(bool) * probe.n_keys));
  for (int k = 0; k < probe.n_keys; ++k) {
    // The values read the inner child's columns: shifted like the inner key (begin_scan).
    Expr* value = static_cast<Expr*>(copyObjectImpl(probe.keys[k].value));
    int shift = st->outer_columns;
    shift_index_vars(reinterpret_cast<Node*>(value), &shift);
    ps->values[k] = ExecInitExpr(value, nullptr);
    get_typlenbyval(exprType(reinterpret_cast<Node*>(value)), &ps->typlen[k], &ps->typbyval[k]);
  }
  ps->mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin probe values",
                                   ALLOCSET_DEFAULT_SIZES);
  st->probe = ps;
}

void reset_probe_values(SimJoinState* st) {
  ProbeState* ps = st->probe;
  if (!ps) return;
  MemoryContextReset(ps->mcxt);
  ps->row_values = nullptr;
  ps->row_null = nullptr;
  ps->n_rows = ps->cap = 0;
}

void note_probe_values(SimJoinState* st, TupleTableSlot* inner_slot) {
  ProbeState* ps = st->probe;
  const int n_keys = ps->plan->n_keys;
  uint32 cap_null = ps->cap;  // (both arrays grow alike: reserve_row_values)
  ensure_capacity(ps->mcxt, &ps->row_null, &cap_null, static_cast<size_t>(ps->n_rows) + 1, n_keys);
  ensure_capacity(ps->mcxt, &ps->row_values, &ps->cap, static_cast<size_t>(ps->n_rows) + 1, n_keys);
  ExprContext* econtext = st->key_cxt;
  econtext->ecxt_scantuple = inner_slot;
  Datum* values = ps->row_values + static_cast<Size>(ps->n_rows) * n_keys;
  bool* nulls = ps->row_null + static_cast<Size>(ps->n_rows) * n_keys;
  for (int k = 0; k < n_keys; ++k) {
    const Datum value = ExecEvalExprSwitchContext(ps->values[k], econtext, &nulls[k]);
    MemoryContext old = MemoryContextSwitchTo(ps->mcxt);
    values[k] = nulls[k] ? Datum(0) : datumCopy(value, ps->typbyval[k], ps->typlen[k]);
    MemoryContextSwitchTo(old);
  }
  ++ps->n_rows;
}

bool probe_load_side(SimJoinState* st, Side* side, PlanState* child, ExprState* key,
                     bool force_wild) {
  ProbeState* ps = st->probe;
  ps->used = false;
  ps->probes = ps->tids = ps->rows = 0;
  if (!IsA(child, SeqScanState)) return false;
  ScanState* scan_state = reinterpret_cast<ScanState*>(child);
  Relation rel = scan_state->ss_currentRelation;
  // More inner rows than planned, as many as a tenth of the table's: read it whole.
  const double table_rows = rel->rd_rel->reltuples;
  if (table_rows >= 0 && ps->n_rows > Max(table_rows / 10, 1000.0)) return false;
  ps->used = true;
  Snapshot snapshot = st->css.ss.ps.state->es_snapshot;
  MemoryContext tids_mcxt =
      AllocSetContextCreate(CurrentMemoryContext, "simjoin probe tids", ALLOCSET_DEFAULT_SIZES);
  MemoryContext old = MemoryContextSwitchTo(tids_mcxt);
  uint64 n_tids = 0;
  ItemPointerData* tids = probe_tids(ps, rel, snapshot, &n_tids);
  MemoryContextSwitchTo(old);
  IndexFetchTableData* fetch = table_index_fetch_begin(rel);
  TupleTableSlot* slot = scan_state->ss_ScanTupleSlot;
  ExprContext* econtext = child->ps_ExprContext;
  for (uint64 i = 0; i < n_tids; ++i) {
    if ((i & 1023) == 0) CHECK_FOR_INTERRUPTS();
    ItemPointerData tid = tids[i];
    bool call_again = false, all_dead = false;
    if (!table_index_fetch_tuple(fetch, &tid, snapshot, slot, &call_again, &all_dead)) continue;
    ResetExprContext(econtext);
    econtext->ecxt_scantuple = slot;
    if (child->qual && !ExecQual(child->qual, econtext)) continue;
    TupleTableSlot* row = child->ps_ProjInfo ? ExecProject(child->ps_ProjInfo) : slot;
    load_row(st, side, row, key, force_wild);  // (an outer row: never false)
    ++ps->rows;
  }
  table_index_fetch_end(fetch);
  ExecClearTuple(slot);
  MemoryContextDelete(tids_mcxt);
  return true;
}

void explain_index_probe(const SimJoinState* st, ExplainState* es) {
  const ProbeState* ps = st->probe;
  if (!ps) return;
  ExplainPropertyText("Outer Rows Read Through Index", get_rel_name(ps->plan->index), es);
  if (!es->analyze || !ps->used) return;
  ExplainPropertyInteger("Index Probes", nullptr, static_cast<int64>(ps->probes), es);
  ExplainPropertyInteger("Index Rows", nullptr, static_cast<int64>(ps->tids), es);
  ExplainPropertyInteger("Outer Rows Read", nullptr, static_cast<int64>(ps->rows), es);
}

}  // namespace simjoin::pg::cs
