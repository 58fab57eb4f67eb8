// The executor of the SimilarityJoinAggregate scan (pg/scan/aggregate/aggregate.h). At its first row:
// the child SimilarityJoin scan loads both sides (start_scan, no stream: engine_by_caller); the
// engine folds its pairs per outer point (compute_neighbour_stats; a self-join, both sides the
// same points, runs once with SelfPairs::All: every row its own partner, as SQL counts it; with
// cube's box clauses or another PairDecision than the engine's, the child's pair stream is
// folded instead, each pair checked on the boxes and decided and measured as planned); the
// points' counts and distances are combined per group value (a TupleHashTable on the group
// key's equality: non-unique keys, NULL keys one group), or summed into one count without GROUP
// BY; then the child's own rows, the pairs with a wild row that PostgreSQL's operator accepted
// (projected to the key and the distance), are folded in. One row per group comes out (every
// group has a partner: inner join), or the one count.
#include "pg/scan/aggregate/aggregate.h"
#include "pg/scan/aggregate/plan_info.h"

#include "pg/dispatch/dispatch.h"
#include "pg/pg_guard.h"
#include "pg/progress/join_progress.h"
#include "pg/scan/form_state.h"
#include "pg/scan/state.h"
#include "pg/settings.h"


extern "C" {
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
}

#include <cmath>
#include <cstring>
#include <limits>

namespace simjoin::pg::cs {

namespace {

void begin_aggregate(CustomScanState* node, EState* estate, int eflags);
TupleTableSlot* exec_aggregate(CustomScanState* node);
void end_aggregate(CustomScanState* node);
void rescan_aggregate(CustomScanState* node);
void explain_aggregate(CustomScanState* node, List* ancestors, ExplainState* es);

const CustomExecMethods aggregate_exec_methods =
    scan_exec_methods("SimilarityJoinAggregate", begin_aggregate, exec_aggregate, end_aggregate,
                      rescan_aggregate, explain_aggregate);

// One group's aggregates.
struct GroupValues {
  uint64 count;
  double min_distance;
  double max_distance;
};

struct AggregateState {
  CustomScanState css;  // first: the executor sees a CustomScanState
  SimJoinState* join;   // the child
  bool grouped;
  Oid eq_operator;
  Oid collation;
  int distance_column;  // in the child's rows (-1: none)
  int counted_column;   // a left join's counted column in the child's rows (-1: every row counts)
  int n_aggs;
  int* kinds;           // EngineAggregate per aggregate
  PairDecision decision;  // how the engine's pairs are decided
  ExprState* distance_state;  // PAIRS_RECHECKED: the distance on the child's scan tuple
  int key_need;         // the key's position in the outer side's needed columns
  int key_column;       // the key's position in the outer side's tuples
  bool key_unique;      // a unique index proves the key unique (NULLs aside)
  // the result of one scan
  bool computed;
  bool emitted;         // the count without GROUP BY, or the NULL group of a direct scan
  GroupValues total;    // the count without GROUP BY, or the NULL group of a direct scan
  // A unique key and no wild row: each outer point with a partner is its own group, read from
  // the engine's per-point results in place (no hash table).
  bool direct;
  uint32 n_points;
  uint32 next_point;
  uint64* counts;
  double* min_distance;
  double* max_distance;
  MemoryContext groups_mcxt;
  TupleHashTable groups;
  TupleHashIterator iterator;
  TupleTableSlot* key_slot;    // a key to look up (virtual)
  TupleTableSlot* entry_slot;  // a group's stored key (minimal)
  uint64 engine_pairs;         // EXPLAIN ANALYZE
  EngineTotals engine_totals;  // EXPLAIN ANALYZE's Engine line (compute_neighbour_stats' runs)
  uint64 wild_pairs;
  uint64 rechecked_pairs;      // PAIRS_RECHECKED: engine pairs the clause's operator checked
  uint64 group_count;
};

Node* create_state(CustomScan* cscan) {
  AggregateState* as = static_cast<AggregateState*>(palloc0(sizeof(AggregateState)));
  NodeSetTag(as, T_CustomScanState);
  as->css.methods = &aggregate_exec_methods;
  const AggregatePlanInfo plan = deform_aggregate_plan_private(cscan);
  as->grouped = plan.grouped;
  as->eq_operator = plan.eq_operator;
  as->collation = plan.collation;
  as->distance_column = plan.distance_column;
  as->key_unique = plan.key_unique;
  as->counted_column = plan.counted_column;
  as->n_aggs = plan.n_aggs;
  as->kinds = plan.kinds;
  as->decision = static_cast<PairDecision>(plan.pair_decision);
  return reinterpret_cast<Node*>(as);
}

GroupValues empty_group() {
  return GroupValues{0, std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()};
}

void begin_aggregate(CustomScanState* node, EState* estate, int eflags) {
  AggregateState* as = reinterpret_cast<AggregateState*>(node);
  CustomScan* cscan = reinterpret_cast<CustomScan*>(node->ss.ps.plan);
  Plan* child_plan = static_cast<Plan*>(linitial(cscan->custom_plans));
  PlanState* child = ExecInitNode(child_plan, estate, eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK));
  node->custom_ps = list_make1(child);
  as->join = reinterpret_cast<SimJoinState*>(child);
  as->join->engine_by_caller = true;
  if (as->decision == PAIRS_RECHECKED && as->distance_column >= 0) {
    const TargetEntry* tle =
        list_nth_node(TargetEntry, child_plan->targetlist, as->distance_column);
    as->distance_state = ExecInitExpr(tle->expr, child);
  }
  as->key_need = as->key_column = -1;
  if (as->grouped) {
    // The child's first output column is the key: a column of its scan tuple's outer part.
    const TargetEntry* tle = linitial_node(TargetEntry, child_plan->targetlist);
    const Var* var = reinterpret_cast<const Var*>(tle->expr);
    if (!IsA(var, Var) || var->varno != INDEX_VAR || var->varattno > as->join->outer_columns)
      elog(ERROR, "simjoin: the aggregate's group key is not a column of the outer side");
    as->key_column = var->varattno - 1;
    const Side& outer = as->join->outer;
    for (int c = 0; c < outer.n_need; ++c)
      if (outer.need[c] == as->key_column) as->key_need = c;
    if (as->key_need < 0) elog(ERROR, "simjoin: the aggregate's group key is not read");
    TupleDesc scan_desc = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor;
    TupleDesc key_desc = CreateTemplateTupleDesc(1);
    TupleDescCopyEntry(key_desc, 1, scan_desc, 1);
    as->key_slot = ExecInitExtraTupleSlot(estate, key_desc, &TTSOpsVirtual);
    as->entry_slot = ExecInitExtraTupleSlot(estate, key_desc, &TTSOpsMinimalTuple);
    as->groups_mcxt = AllocSetContextCreate(CurrentMemoryContext, "simjoin aggregate groups",
                                            ALLOCSET_DEFAULT_SIZES);
    Oid* eq_functions;
    FmgrInfo* hash_functions;
    execTuplesHashPrepare(1, &as->eq_operator, &eq_functions, &hash_functions);
    AttrNumber* key_columns = static_cast<AttrNumber*>(palloc(sizeof(AttrNumber)));
    key_columns[0] = 1;
    Oid* collations = static_cast<Oid*>(palloc(sizeof(Oid)));
    collations[0] = as->collation;
    as->groups = BuildTupleHashTableExt(&node->ss.ps, key_desc, 1, key_columns, eq_functions,
                                        hash_functions, collations, 1024, sizeof(GroupValues),
                                        CurrentMemoryContext, as->groups_mcxt,
                                        node->ss.ps.ps_ExprContext->ecxt_per_tuple_memory, false);
  }
  as->total = empty_group();
}

// The group of a key value (created empty).
GroupValues* group_of(AggregateState* as, Datum key, bool key_null) {
  TupleTableSlot* slot = as->key_slot;
  ExecClearTuple(slot);
  slot->tts_values[0] = key;
  slot->tts_isnull[0] = key_null;
  ExecStoreVirtualTuple(slot);
  bool is_new;
  TupleHashEntry entry = LookupTupleHashEntry(as->groups, slot, &is_new, nullptr);
  if (is_new) {
    GroupValues* values =
        static_cast<GroupValues*>(MemoryContextAlloc(as->groups_mcxt, sizeof(GroupValues)));
    *values = empty_group();
    entry->additional = values;
    as->group_count++;
  }
  return static_cast<GroupValues*>(entry->additional);
}

// Folds `count` pairs whose distances range over [min_distance, max_distance] into a group, in
// the order of PostgreSQL's min and max on float8 (NaN, a wild row's distance, above every
// number); a fold without pairs (a left join's row without a partner) leaves the distances.
void fold(GroupValues* group, uint64 count, double min_distance, double max_distance) {
  if (count == 0) return;
  if (group->count == 0) {
    group->min_distance = min_distance;
    group->max_distance = max_distance;
  } else {
    if (float8_lt(min_distance, group->min_distance)) group->min_distance = min_distance;
    if (float8_gt(max_distance, group->max_distance)) group->max_distance = max_distance;
  }
  group->count += count;
}

// The group key of an outer point: its deformed value, or its stored row's.
Datum point_key(AggregateState* as, uint32 point, bool* isnull) {
  SimJoinState* st = as->join;
  Side* side = &st->outer;
  if (side->values) {
    const Size cell = static_cast<Size>(point) * side->n_need + as->key_need;
    *isnull = side->isnull[cell];
    return side->values[cell];
  }
  TupleTableSlot* slot = st->outer_slot;
  ExecStoreMinimalTuple(fetch_tuple(st, side, side->point_row[point]), slot, false);
  side->current = kNoRow;
  return slot_getattr(slot, as->key_column + 1, isnull);
}

// Whether an outer point's group key is NULL: its null flag read in place where the values are
// deformed, else point_key's.
bool point_key_null(AggregateState* as, uint32 point) {
  const Side& side = as->join->outer;
  if (side.values) return side.isnull[static_cast<Size>(point) * side.n_need + as->key_need];
  bool isnull;
  point_key(as, point, &isnull);
  return isnull;
}

// An outer point's aggregates as a group's (distances 0 where only counts were folded).
GroupValues point_values(const uint64* counts, const double* min_distance,
                         const double* max_distance, uint32 p) {
  return GroupValues{counts[p], min_distance ? min_distance[p] : 0.0,
                     max_distance ? max_distance[p] : 0.0};
}

void fold_points(AggregateState* as, uint64* counts, double* min_distance, double* max_distance,
                 MemoryContextCallback* held);

// A memory-context callback's NeighbourStats (fold_engine_pairs keeps the engine's per-point
// arrays in place).
void delete_held_stats(void* stats) { delete static_cast<NeighbourStats*>(stats); }

// Whether an engine candidate is a pair of the join, and its distance where asked (*distance),
// under a decision other than the engine's (engine_pair_passes, planar_pair_passes).
inline bool decide_pair(AggregateState* as, uint32 p, uint32 q, double d, bool distances,
                        double* distance) {
  SimJoinState* st = as->join;
  if (as->decision == PAIRS_PLANAR) return planar_pair_passes(st, p, q, distance);
  bool rechecked;
  const bool pass = engine_pair_passes(st, p, q, d, distances ? as->distance_state : nullptr,
                                       distance, &rechecked);
  if (rechecked) as->rechecked_pairs++;
  return pass;
}

// The engine's pairs through the child's pair stream, where they are not all the join's or
// their distance is not the clause's as they come: cube's box clauses checked on each, or a
// decision (decide_pair). Folded per outer point into arrays in groups_mcxt (per_point; the
// distances' only where asked), or into the one group. Returns the pairs that passed.
uint64 fold_streamed(AggregateState* as, bool per_point, bool distances, uint64** counts,
                     double** min_distance, double** max_distance) {
  SimJoinState* st = as->join;
  const Size n = st->outer.n_points;
  if (per_point) {
    MemoryContext mcxt = as->groups_mcxt;
    *counts = static_cast<uint64*>(
        MemoryContextAllocExtended(mcxt, sizeof(uint64) * n, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO));
    if (distances) {  // (set at a point's first pair)
      *min_distance = static_cast<double*>(MemoryContextAllocHuge(mcxt, sizeof(double) * n));
      *max_distance = static_cast<double*>(MemoryContextAllocHuge(mcxt, sizeof(double) * n));
    }
  }
  uint64 pairs = 0;
  start_stream(st);  // with distances: the scan's engine_by_caller
  fold_streamed_pairs(st, [&](uint32 p, uint32 q, double d) {
    if (as->decision != PAIRS_EXACT && !decide_pair(as, p, q, d, distances, &d)) return;
    ++pairs;
    if (!per_point) {
      fold(&as->total, 1, d, d);
      return;
    }
    const bool first = (*counts)[p]++ == 0;
    if (!distances) return;
    // in float8's order (NaN, an evaluated distance, above every number)
    if (first || float8_lt(d, (*min_distance)[p])) (*min_distance)[p] = d;
    if (first || float8_gt(d, (*max_distance)[p])) (*max_distance)[p] = d;
  });
  stop_stream(st);  // (the child's engine runs are this scan's: explain_aggregate reads them)
  return pairs;
}

// The engine's pairs: per outer point (grouped) or their number.
void fold_engine_pairs(AggregateState* as) {
  SimJoinState* st = as->join;
  const uint32 n = st->outer.n_points;
  const bool per_point = as->grouped;
  bool distances = false;  // min or max of the distance asked for
  for (int k = 0; k < as->n_aggs; ++k) distances = distances || as->kinds[k] != AGG_COUNT;
  uint64* counts = nullptr;
  double* min_distance = nullptr;
  double* max_distance = nullptr;
  if (st->n_boxes > 0 || as->decision != PAIRS_EXACT) {
    as->engine_pairs +=
        fold_streamed(as, per_point, distances, &counts, &min_distance, &max_distance);
    if (!per_point) return;
    fold_points(as, counts, min_distance, max_distance, nullptr);
    return;
  }
  // Per point, the engine's arrays are kept where they are (not copied) until the groups' memory
  // goes: a reset callback of groups_mcxt deletes them.
  MemoryContextCallback* held = nullptr;
  if (per_point) {
    held = static_cast<MemoryContextCallback*>(
        MemoryContextAllocZero(as->groups_mcxt, sizeof(MemoryContextCallback)));
    held->func = delete_held_stats;
    MemoryContextRegisterResetCallback(as->groups_mcxt, held);
  }
  const bool self_join = same_points(st);
  uint64 pairs = 0;
  const bool stopped = cpp_guard([&]() -> bool {
    const PointSet left = side_points(st, &st->outer);
    const PointSet right = side_points(st, &st->inner);
    JoinSpec spec = spec_from_settings(st->bound, st->form.metric);
    spec.self_pairs = SelfPairs::All;
    progress_joining(st->progress_owned, left, self_join ? nullptr : &right, spec);
    NeighbourStats stats = compute_neighbour_stats(
        left, self_join ? nullptr : &right, spec, StatsSide::Left, nullptr,
        distances ? StatsFields::All
        : per_point ? StatsFields::CountsOnly
                    : StatsFields::PairsOnly,
        st->progress_owned);
    if (stats.join.stopped) return true;
    add_engine_totals(&as->engine_totals, stats.join);
    pairs = stats.pairs;
    if (!per_point) {  // one group: the points' counts add up to the pairs
      if (!distances) {
        fold(&as->total, pairs, 0, 0);
        return false;
      }
      for (uint32 p = 0; p < n; ++p)
        fold(&as->total, stats.count[p], stats.min_distance[p], stats.max_distance[p]);
    } else {
      NeighbourStats* kept = new NeighbourStats(std::move(stats));
      held->arg = kept;
      counts = reinterpret_cast<uint64*>(kept->count.data());
      if (distances) {
        min_distance = kept->min_distance.data();
        max_distance = kept->max_distance.data();
      }
    }
    return false;
  });
  raise_if_interrupted(stopped);
  as->engine_pairs += pairs;
  if (per_point) fold_points(as, counts, min_distance, max_distance, held);
}

// The outer points' counts (and distances, where asked) into their groups. Without wild rows no
// other pair comes: a unique key's groups are the points themselves, but for the NULL keys, one
// group (as->total); their counts are cleared once folded there. held (if any) holds the arrays,
// released once the groups hold their own aggregates.
void fold_points(AggregateState* as, uint64* counts, double* min_distance, double* max_distance,
                 MemoryContextCallback* held) {
  SimJoinState* st = as->join;
  const uint32 n = st->outer.n_points;
  as->direct = as->key_unique && st->outer.n_wild == 0 && st->inner.n_wild == 0;
  for (uint32 p = 0; p < n; ++p) {
    if (counts[p] == 0) continue;
    if ((p & 0xFFFF) == 0) CHECK_FOR_INTERRUPTS();
    if (as->direct && !point_key_null(as, p)) {  // a group of its own
      as->group_count++;
      continue;
    }
    const GroupValues values = point_values(counts, min_distance, max_distance, p);
    if (as->direct) {  // a NULL key: the NULL group
      fold(&as->total, values.count, values.min_distance, values.max_distance);
      counts[p] = 0;
    } else {
      bool key_null;
      const Datum key = point_key(as, p, &key_null);
      fold(group_of(as, key, key_null), values.count, values.min_distance, values.max_distance);
    }
    ResetExprContext(as->css.ss.ps.ps_ExprContext);
  }
  if (as->direct) {
    if (as->total.count > 0) as->group_count++;
    as->n_points = n;
    as->next_point = 0;
    as->counts = counts;
    as->min_distance = min_distance;
    as->max_distance = max_distance;
    return;
  }
  if (!held) return;
  delete_held_stats(held->arg);  // the groups hold their own aggregates now
  held->arg = nullptr;
}

// The child's rows: pairs with a wild row that the join's clauses accepted, and a left join's
// outer rows without such a pair (NULL in the counted column and the distance: a group with
// count 0 where the engine found no partner either).
void fold_wild_pairs(AggregateState* as) {
  PlanState* child = &as->join->css.ss.ps;
  for (;;) {
    TupleTableSlot* row = ExecProcNode(child);
    if (TupIsNull(row)) break;
    uint64 count = 1;
    if (as->counted_column >= 0) {
      bool null;
      slot_getattr(row, as->counted_column + 1, &null);
      count = null ? 0 : 1;
    }
    as->wild_pairs += count;
    double distance = 0;
    if (as->distance_column >= 0) {
      bool null;
      const Datum value = slot_getattr(row, as->distance_column + 1, &null);
      distance = null ? std::nan("") : DatumGetFloat8(value);
    }
    GroupValues* group = &as->total;
    if (as->grouped) {
      bool key_null;
      const Datum key = slot_getattr(row, 1, &key_null);
      group = group_of(as, key, key_null);
    }
    fold(group, count, distance, distance);
    ResetExprContext(as->css.ss.ps.ps_ExprContext);
  }
}

void compute(AggregateState* as) {
  SimJoinState* st = as->join;
  PlanState* child = &st->css.ss.ps;
  if (child->chgParam != nullptr) ExecReScan(child);
  if (!st->started) start_scan(st);
  if (!st->finished && st->use_engine && st->outer.n_points > 0 && st->inner.n_points > 0)
    fold_engine_pairs(as);
  fold_wild_pairs(as);
  if (as->grouped && !as->direct) InitTupleHashIterator(as->groups, &as->iterator);
  as->computed = true;
}

// The scan tuple of a group: its key, then its aggregates.
TupleTableSlot* group_row(AggregateState* as, TupleTableSlot* scan, const GroupValues& group,
                          int first) {
  for (int k = 0; k < as->n_aggs; ++k) {
    const int column = first + k;
    scan->tts_isnull[column] = false;
    switch (as->kinds[k]) {
      case AGG_COUNT:
        scan->tts_values[column] = Int64GetDatum(static_cast<int64>(group.count));
        break;
      case AGG_MIN_DISTANCE:
      case AGG_MAX_DISTANCE: {
        const double d = as->kinds[k] == AGG_MIN_DISTANCE ? group.min_distance : group.max_distance;
        scan->tts_isnull[column] = group.count == 0;
        scan->tts_values[column] = Float8GetDatum(group.count == 0 ? 0.0 : d);
        break;
      }
    }
  }
  return ExecStoreVirtualTuple(scan);
}

TupleTableSlot* next_group(ScanState* node) {
  AggregateState* as = reinterpret_cast<AggregateState*>(node);
  if (!as->computed) compute(as);
  TupleTableSlot* scan = node->ss_ScanTupleSlot;
  ExecClearTuple(scan);
  if (!as->grouped) {
    if (as->emitted) return scan;
    as->emitted = true;
    return group_row(as, scan, as->total, 0);
  }
  if (as->direct) {
    while (as->next_point < as->n_points) {
      const uint32 p = as->next_point++;
      if (as->counts[p] == 0) continue;
      scan->tts_values[0] = point_key(as, p, &scan->tts_isnull[0]);
      return group_row(as, scan, point_values(as->counts, as->min_distance, as->max_distance, p), 1);
    }
    if (as->emitted || as->total.count == 0) return scan;
    as->emitted = true;  // the NULL keys' group
    scan->tts_isnull[0] = true;
    scan->tts_values[0] = 0;
    return group_row(as, scan, as->total, 1);
  }
  TupleHashEntry entry = ScanTupleHashTable(as->groups, &as->iterator);
  if (!entry) return scan;
  ExecStoreMinimalTuple(entry->firstTuple, as->entry_slot, false);
  scan->tts_values[0] = slot_getattr(as->entry_slot, 1, &scan->tts_isnull[0]);
  return group_row(as, scan, *static_cast<GroupValues*>(entry->additional), 1);
}

bool recheck_group(ScanState*, TupleTableSlot*) { return true; }

TupleTableSlot* exec_aggregate(CustomScanState* node) {
  // Without a qual, a projection or an EvalPlanQual recheck, ExecScan would only reset the
  // per-row context (next_group allocates nothing there): a million groups come out a few
  // milliseconds sooner without it.
  if (!node->ss.ps.qual && !node->ss.ps.ps_ProjInfo && !node->ss.ps.state->es_epq_active)
    return next_group(&node->ss);
  return ExecScan(&node->ss, next_group, recheck_group);
}

void reset_result(AggregateState* as) {
  as->computed = false;
  as->emitted = false;
  as->direct = false;
  as->n_points = 0;
  as->total = empty_group();
  if (as->grouped) {
    ResetTupleHashTable(as->groups);
    MemoryContextReset(as->groups_mcxt);
  }
}

void end_aggregate(CustomScanState* node) {
  AggregateState* as = reinterpret_cast<AggregateState*>(node);
  ExecEndNode(&as->join->css.ss.ps);
  if (as->groups_mcxt) MemoryContextDelete(as->groups_mcxt);
}

void rescan_aggregate(CustomScanState* node) {
  AggregateState* as = reinterpret_cast<AggregateState*>(node);
  PlanState* child = &as->join->css.ss.ps;
  if (node->ss.ps.chgParam) UpdateChangedParamSet(child, node->ss.ps.chgParam);
  ExecReScan(child);
  reset_result(as);
}

void explain_aggregate(CustomScanState* node, List* ancestors, ExplainState* es) {
  AggregateState* as = reinterpret_cast<AggregateState*>(node);
  CustomScan* cscan = reinterpret_cast<CustomScan*>(node->ss.ps.plan);
  List* context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
  StringInfoData text;
  initStringInfo(&text);
  ListCell* lc;
  int position = 0;
  foreach (lc, cscan->custom_scan_tlist) {
    Node* expr = reinterpret_cast<Node*>(lfirst_node(TargetEntry, lc)->expr);
    if (position++ == 0 && as->grouped) continue;
    appendStringInfo(&text, "%s%s", text.len ? ", " : "",
                     deparse_expression(expr, context, true, false));
  }
  const char* key =
      as->grouped ? deparse_expression(reinterpret_cast<Node*>(
                                           linitial_node(TargetEntry, cscan->custom_scan_tlist)->expr),
                                       context, true, false)
                  : nullptr;
  if (as->n_aggs == 0) {  // a GROUP BY or DISTINCT without aggregates: the groups alone
    ExplainPropertyText("Engine Groups", key, es);
  } else {
    if (key) appendStringInfo(&text, " per %s", key);
    ExplainPropertyText("Engine Aggregates", text.data, es);
  }
  if (as->decision == PAIRS_PLANAR)
    ExplainPropertyText("Engine Pairs Decided By", "point distance, PostgreSQL's arithmetic", es);
  else if (as->decision == PAIRS_RECHECKED)
    ExplainPropertyText("Engine Pairs Decided By",
                        !as->join->engine_qual ? "the engine, the distance evaluated on each"
                        : as->join->form_state->certain_position >= 0
                            ? "the join clause, the engine within its certain bound"
                            : "the join clause",
                        es);
  if (es->analyze) {
    // the engine's runs: this scan's (compute_neighbour_stats), or the child's stream's
    const EngineTotals& totals =
        as->engine_totals.runs > 0 ? as->engine_totals : as->join->totals;
    if (totals.runs > 0) explain_engine_line(totals, es);
    ExplainPropertyUInteger("Engine Pairs", nullptr, as->engine_pairs, es);
    if (as->decision == PAIRS_RECHECKED)
      ExplainPropertyUInteger("Engine Pairs Rechecked", nullptr, as->rechecked_pairs, es);
    ExplainPropertyUInteger("Pairs With Wild Rows", nullptr, as->wild_pairs, es);
    if (as->grouped) ExplainPropertyUInteger("Groups", nullptr, as->group_count, es);
  }
}

}  // namespace

CustomScanMethods aggregate_scan_methods = {"SimilarityJoinAggregate", create_state};

}  // namespace simjoin::pg::cs
