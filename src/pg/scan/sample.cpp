// Planning-time estimate of a similarity join's result size, from block samples of both inputs'
// key columns and, for a per-row bound, of that side's radius (cached per backend, dropped on
// relcache invalidation or when the table's size changed by more than a fifth).
#include "pg/scan/internal.h"

extern "C" {
#include "access/tableam.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "catalog/pg_class.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/sampling.h"
}

#include <algorithm>
#include <cmath>

#include "engine/distance.h"

namespace simjoin::pg::cs {

namespace {

constexpr int kTopRadii = 32;

struct Sample {
  bool used = false;
  Oid relid = InvalidOid;
  AttrNumber attno = 0;     // the key's column, or 0 for an expression key:
  Expr* key = nullptr;      // the expression, its Vars numbered 1
  Expr* radius = nullptr;   // a per-row bound sampled with the key (Vars numbered 1), or null
  MemoryContext memory = nullptr;  // holds points and key (under TopMemoryContext)
  FormInfo form{};
  double table_tuples = 0;  // rel->tuples when sampled
  int seen = 0;             // rows sampled (NULL keys included)
  int n = 0;                // points read
  int wild = 0;             // rows whose key the engine cannot take
  int dim = 0;
  double* points = nullptr;  // n * dim
  double* radii = nullptr;   // n radius values where radius is set (-Infinity: NULL)
  double* extents = nullptr;  // PostGIS keys: n boxes (xmin, ymin, xmax, ymax; a point's is itself)
  int boxes = 0;             // PostGIS keys with an extent among the points (their centres)
  double radius_sum = 0;     // of their radii
  int n_top = 0;             // the largest radii, descending (outsized_boxes)
  double top_radii[kTopRadii] = {};
  uint64 last_use = 0;
};

constexpr int kCacheSize = 16;
Sample cache[kCacheSize];
uint64 use_clock = 0;
bool callback_registered = false;

void drop(Sample* s) {
  if (s->memory) MemoryContextDelete(s->memory);
  *s = Sample{};
}

void relcache_callback(Datum, Oid relid) {
  for (Sample& s : cache)
    if (s.used && (relid == InvalidOid || s.relid == relid)) drop(&s);
}

bool same_form(const FormInfo& a, const FormInfo& b) {
  return a.kind == b.kind && a.cosine == b.cosine;
}

// Whether `var` is a user column of the relation with range-table index `relid`, at this level.
bool user_column_of(const Var* var, Index relid) {
  return var->varlevelsup == 0 && static_cast<Index>(var->varno) == relid && var->varattno > 0;
}

// The plain column a key is, or 0.
AttrNumber key_column(RelOptInfo* rel, Expr* key) {
  while (key && IsA(key, RelabelType)) key = reinterpret_cast<RelabelType*>(key)->arg;
  if (!key || !IsA(key, Var)) return 0;
  const Var* var = reinterpret_cast<Var*>(key);
  return user_column_of(var, rel->relid) ? var->varattno : 0;
}

// Whether the key expression can be evaluated on sampled rows of `rel` at planning time: its
// Vars are that relation's user columns, and it has no parameters, subqueries, placeholders,
// aggregates, sets or volatile functions.
bool evaluable_walker(Node* node, void* context) {
  if (!node) return false;
  const Index relid = *static_cast<Index*>(context);
  if (IsA(node, Var)) return !user_column_of(reinterpret_cast<Var*>(node), relid);
  if (IsA(node, Param) || IsA(node, SubLink) || IsA(node, SubPlan) ||
      IsA(node, AlternativeSubPlan) || IsA(node, PlaceHolderVar) || IsA(node, Aggref) ||
      IsA(node, WindowFunc) || IsA(node, GroupingFunc) || IsA(node, CurrentOfExpr) ||
      IsA(node, NextValueExpr))
    return true;
  return expression_tree_walker(
      node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(evaluable_walker)), context);
}

bool evaluable_key(RelOptInfo* rel, Expr* key) {
  Index relid = rel->relid;
  return key && !evaluable_walker(reinterpret_cast<Node*>(key), &relid) &&
         !contain_volatile_functions(reinterpret_cast<Node*>(key)) &&
         !expression_returns_set(reinterpret_cast<Node*>(key));
}

// A radius value as a double: -Infinity for NULL (no distance is within it), NaN (above every
// float8 in PostgreSQL's order) as +Infinity. false: a type the sample does not read.
bool radius_value(Oid type, Datum value, bool isnull, double* out) {
  if (isnull) {
    *out = -INFINITY;
    return true;
  }
  switch (type) {
    case FLOAT8OID: *out = DatumGetFloat8(value); break;
    case FLOAT4OID: *out = DatumGetFloat4(value); break;
    case INT2OID: *out = DatumGetInt16(value); break;
    case INT4OID: *out = DatumGetInt32(value); break;
    case INT8OID: *out = static_cast<double>(DatumGetInt64(value)); break;
    default: return false;
  }
  if (std::isnan(*out)) *out = INFINITY;
  return true;
}

// Evaluates `key` and `radius` (Vars numbered 1; radius may be null) on each of the copied rows
// and hands the values to take(key, radius), in a subtransaction: a key that raises an error on
// some row (the executor would raise it too, or skip the row behind a cheaper clause) makes the
// sample unusable instead of failing the plan. A cancel is raised again.
template <typename Take>
bool evaluate_key_on_rows(Relation rel, Expr* key, Expr* radius, const FormInfo& form,
                          HeapTuple* rows, int count, const Take& take) {
  MemoryContext caller = CurrentMemoryContext;
  ResourceOwner owner = CurrentResourceOwner;
  bool ok = true;
  BeginInternalSubTransaction(nullptr);
  MemoryContextSwitchTo(caller);
  PG_TRY();
  {
    ExprState* state = ExecInitExpr(key, nullptr);
    ExprState* radius_state = radius ? ExecInitExpr(radius, nullptr) : nullptr;
    const Oid radius_type = radius ? exprType(reinterpret_cast<Node*>(radius)) : InvalidOid;
    ExprContext* econtext = CreateStandaloneExprContext();
    TupleTableSlot* slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
    for (int i = 0; i < count; ++i) {
      ExecStoreHeapTuple(rows[i], slot, false);
      econtext->ecxt_scantuple = slot;
      bool isnull;
      const Datum value = ExecEvalExprSwitchContext(state, econtext, &isnull);
      double bound = 0;
      if (radius_state) {
        bool radius_null;
        const Datum r = ExecEvalExprSwitchContext(radius_state, econtext, &radius_null);
        if (!radius_value(radius_type, r, radius_null, &bound)) elog(ERROR, "radius type");
      }
      if (!isnull) take(detoast_key(form, value), bound);
      ResetExprContext(econtext);
      CHECK_FOR_INTERRUPTS();
    }
    ExecDropSingleTupleTableSlot(slot);
    FreeExprContext(econtext, true);
    ReleaseCurrentSubTransaction();
    MemoryContextSwitchTo(caller);
    CurrentResourceOwner = owner;
  }
  PG_CATCH();
  {
    MemoryContextSwitchTo(caller);
    ErrorData* error = CopyErrorData();
    FlushErrorState();
    RollbackAndReleaseCurrentSubTransaction();
    MemoryContextSwitchTo(caller);
    CurrentResourceOwner = owner;
    if (error->sqlerrcode == ERRCODE_QUERY_CANCELED) ReThrowError(error);
    FreeErrorData(error);
    ok = false;
  }
  PG_END_TRY();
  return ok;
}

void take_sample(Oid relid, AttrNumber attno, Expr* key, Expr* radius, const FormInfo& form,
                 double tuples, Sample* s) {
  Relation rel = table_open(relid, NoLock);  // the query holds its lock already
  const BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
  const int target = sample_rows_setting;
  const int target_blocks = static_cast<int>(std::min<BlockNumber>(nblocks, 300));

  // Everything is read into a local sample in a work context; the cache entry is written only
  // once it is complete, so an ERROR while sampling (out of memory, a cancel) leaves the entry
  // unused and nothing in TopMemoryContext.
  MemoryContext work = AllocSetContextCreate(CurrentMemoryContext, "simjoin sample",
                                             ALLOCSET_DEFAULT_SIZES);
  MemoryContext old = MemoryContextSwitchTo(work);
  Sample sample;
  sample.relid = relid;
  sample.attno = attno;
  sample.form = form;
  sample.table_tuples = tuples;
  int capacity = 256;
  double* points = nullptr;
  double* radii = nullptr;
  double* extents = nullptr;
  const bool geometry = form.kind == KEY_GEOMETRY;
  KeyRef ref;
  const bool varlena = form.kind != KEY_POINT;
  double* buffer = nullptr;
  // An expression key is evaluated after the scan, on copies of the sampled rows (never while
  // the AM holds a heap page: the expression may read out-of-line values or call anything).
  HeapTuple* rows = key ? static_cast<HeapTuple*>(palloc(sizeof(HeapTuple) * Max(target, 1)))
                        : nullptr;
  int row_count = 0;
  auto take = [&](Datum value, double bound) {
    KeyExtent extent{};
    const KeyStatus status = classify_key(form, value, &ref, &extent);
    if (status == KEY_OK && extent.is_box) {
      ++sample.boxes;
      sample.radius_sum += extent.radius;
      const bool full = sample.n_top == kTopRadii;
      if (!full || sample.top_radii[kTopRadii - 1] < extent.radius) {
        int k = full ? kTopRadii - 1 : sample.n_top++;
        for (; k > 0 && sample.top_radii[k - 1] < extent.radius; --k)
          sample.top_radii[k] = sample.top_radii[k - 1];
        sample.top_radii[k] = extent.radius;
      }
    }
    if (status == KEY_WILD) ++sample.wild;
    if (status != KEY_OK) return;
    if (!points) {
      points = static_cast<double*>(palloc(sizeof(double) * capacity * ref.dim));
      radii = static_cast<double*>(palloc(sizeof(double) * capacity));
      if (geometry) extents = static_cast<double*>(palloc(sizeof(double) * 4 * capacity));
      buffer = static_cast<double*>(palloc(sizeof(double) * ref.dim));
    } else if (sample.n == capacity) {
      capacity *= 2;
      points = static_cast<double*>(repalloc(points, sizeof(double) * capacity * ref.dim));
      radii = static_cast<double*>(repalloc(radii, sizeof(double) * capacity));
      if (geometry)
        extents = static_cast<double*>(repalloc(extents, sizeof(double) * 4 * capacity));
    }
    read_key(form, value, ref, buffer);
    memcpy(points + static_cast<size_t>(sample.n) * ref.dim, buffer, sizeof(double) * ref.dim);
    radii[sample.n] = bound;
    if (geometry) {
      double* box = extents + 4 * static_cast<size_t>(sample.n);
      box[0] = extent.xmin;
      box[1] = extent.ymin;
      box[2] = extent.xmax;
      box[3] = extent.ymax;
    }
    ++sample.n;
  };
  bool usable = true;

  if (target_blocks > 0) {
    BlockSamplerData sampler;
    BlockSampler_Init(&sampler, nblocks, target_blocks, 0x5eed + relid);
    TupleTableSlot* slot = table_slot_create(rel, nullptr);
    TableScanDesc scan = table_beginscan_analyze(rel);
    BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
    const TransactionId oldest = GetOldestNonRemovableTransactionId(rel);
    int blocks_left = target_blocks;
    while (BlockSampler_HasMore(&sampler) && sample.seen < target) {
      const BlockNumber block = BlockSampler_Next(&sampler);
      // The rows still wanted spread over the blocks still to come: the chosen blocks are
      // visited in table order, and a fixed share per block would reach the target before the
      // last ones (the table's tail, where rows added last are, never sampled).
      const int per_block = (target - sample.seen + blocks_left - 1) / Max(blocks_left, 1);
      --blocks_left;
      if (!table_scan_analyze_next_block(scan, block, strategy)) continue;
      double live = 0, dead = 0;
      int taken = 0;
      // Drain the block (the AM releases its buffer at the end of it).
      while (table_scan_analyze_next_tuple(scan, oldest, &live, &dead, slot)) {
        if (taken >= per_block || sample.seen >= target) continue;
        ++taken;
        ++sample.seen;
        if (key) {
          rows[row_count++] = ExecCopySlotHeapTuple(slot);
          continue;
        }
        bool isnull;
        Datum value = slot_getattr(slot, attno, &isnull);
        if (isnull) continue;
        // The heap page is locked here: never fetch an out-of-line value.
        if (varlena && VARATT_IS_EXTERNAL(DatumGetPointer(value))) {
          --sample.seen;
          continue;
        }
        take(detoast_key(form, value), 0);
      }
    }
    table_endscan(scan);
    ExecDropSingleTupleTableSlot(slot);
    FreeAccessStrategy(strategy);
  }
  if (key && row_count > 0)
    usable = evaluate_key_on_rows(rel, key, radius, form, rows, row_count, take);
  table_close(rel, NoLock);
  if (usable) {
    sample.memory = AllocSetContextCreate(TopMemoryContext, "simjoin sample cache",
                                          ALLOCSET_SMALL_SIZES);
    MemoryContextSwitchTo(sample.memory);
    if (sample.n > 0) {
      const Size bytes = sizeof(double) * sample.n * ref.dim;
      sample.points = static_cast<double*>(palloc(bytes));
      memcpy(sample.points, points, bytes);
      if (radius) {
        sample.radii = static_cast<double*>(palloc(sizeof(double) * sample.n));
        memcpy(sample.radii, radii, sizeof(double) * sample.n);
      }
      if (geometry) {
        sample.extents = static_cast<double*>(palloc(sizeof(double) * 4 * sample.n));
        memcpy(sample.extents, extents, sizeof(double) * 4 * sample.n);
      }
    }
    if (key) sample.key = static_cast<Expr*>(copyObjectImpl(key));
    if (radius) sample.radius = static_cast<Expr*>(copyObjectImpl(radius));
  }
  sample.dim = ref.dim;
  sample.used = usable;
  MemoryContextSwitchTo(old);
  MemoryContextDelete(work);
  *s = usable ? sample : Sample{};
}

// The sample of a relation's key (and, where radius is not null, of its per-row bound). null: no
// sample (not a plain table, no privileges, row-level security, a key or radius that cannot be
// evaluated at planning time or raised an error on a sampled row).
Sample* get_sample(PlannerInfo* root, RelOptInfo* rel, Expr* key, Expr* radius,
                   const FormInfo& form) {
  if (sample_rows_setting <= 0) return nullptr;
  if (rel->reloptkind != RELOPT_BASEREL || rel->rtekind != RTE_RELATION) return nullptr;
  const AttrNumber attno = key_column(rel, key);
  // An expression key (or any key sampled with a radius: both are evaluated on copied rows) and
  // the radius, their Vars renumbered to 1 (cache and evaluation).
  Expr* key_expr = nullptr;
  Expr* radius_expr = nullptr;
  if (radius) {
    const Oid type = exprType(reinterpret_cast<Node*>(radius));
    if (!evaluable_key(rel, radius) ||
        !(type == FLOAT8OID || type == FLOAT4OID || type == INT2OID || type == INT4OID ||
          type == INT8OID))
      return nullptr;
    radius_expr = static_cast<Expr*>(copyObjectImpl(radius));
    ChangeVarNodes(reinterpret_cast<Node*>(radius_expr), rel->relid, 1, 0);
  }
  if (attno == 0 || radius) {
    if (!evaluable_key(rel, key)) return nullptr;
    key_expr = static_cast<Expr*>(copyObjectImpl(key));
    ChangeVarNodes(reinterpret_cast<Node*>(key_expr), rel->relid, 1, 0);
  }
  RangeTblEntry* rte = planner_rt_fetch(rel->relid, root);
  if (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) return nullptr;
  const Oid relid = rte->relid;
  // Sampling reads rows: only what the user may read, and not past row-level security.
  if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK) return nullptr;
  if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED) return nullptr;
  if (!callback_registered) {
    CacheRegisterRelcacheCallback(relcache_callback, 0);
    callback_registered = true;
  }
  const double tuples = rel->tuples;
  Sample* victim = &cache[0];
  for (Sample& s : cache) {
    if (s.used && s.relid == relid && s.attno == attno && same_form(s.form, form) &&
        equal(s.key, key_expr) && equal(s.radius, radius_expr)) {
      const double ratio = (tuples + 1) / (s.table_tuples + 1);
      if (ratio < 0.8 || ratio > 1.25) {
        drop(&s);
        victim = &s;
        break;
      }
      s.last_use = ++use_clock;
      return &s;
    }
    if (!s.used || (victim->used && s.last_use < victim->last_use)) victim = &s;
  }
  drop(victim);
  take_sample(relid, attno, key_expr, radius_expr, form, tuples, victim);
  if (!victim->used) return nullptr;  // the key raised an error on a sampled row
  victim->last_use = ++use_clock;
  return victim;
}

// The radius the executor joins a side's boxes with (the largest one not outsized, as
// demote_outsized_boxes decides), and the fraction of the sampled rows it makes wild.
double joined_radius(const Sample* s, double bound, double rows, double* wild_fraction) {
  *wild_fraction = 0;
  if (s->boxes == 0) return 0;
  const double cap = outsized_radius(bound, s->radius_sum / Max(s->n, 1));
  int outsized = 0;
  while (outsized < s->n_top && s->top_radii[outsized] > cap) ++outsized;
  const bool all_known = outsized < s->n_top || s->n_top == s->boxes;
  if (outsized == 0 || !all_known ||
      !few_outsized(static_cast<double>(outsized) / s->seen * rows, rows))
    return s->top_radii[0];
  *wild_fraction = static_cast<double>(outsized) / s->seen;
  return outsized < s->n_top ? s->top_radii[outsized] : 0;
}

}  // namespace

double sampled_extent_fraction(PlannerInfo* root, RelOptInfo* rel, Expr* key,
                               const FormInfo& form) {
  const Sample* s = form.kind == KEY_GEOMETRY ? get_sample(root, rel, key, nullptr, form) : nullptr;
  return s && s->seen > 0 ? static_cast<double>(s->boxes) / s->seen : 0;
}

bool estimate_pairs(PlannerInfo* root, RelOptInfo* outer_rel, Expr* outer_key,
                    RelOptInfo* inner_rel, Expr* inner_key, const FormInfo& form,
                    const PairBound& bound, PairEstimate* out) {
  Sample* so = get_sample(root, outer_rel, outer_key, bound.radius_side == 0 ? bound.radius : nullptr,
                          form);
  if (!so) return false;
  Sample* si = get_sample(root, inner_rel, inner_key, bound.radius_side == 1 ? bound.radius : nullptr,
                          form);
  if (!si) return false;
  *out = PairEstimate{};
  const double n_outer = outer_rel->rows, n_inner = inner_rel->rows;
  if (so->seen == 0 || si->seen == 0) return true;
  const int dim = so->dim;
  const Metric metric = form.metric;
  // The bound of each row of the radius side (or the one bound): eps for the cosine distance,
  // the engine's accumulated bound otherwise; NaN where no distance is within it.
  const Sample* bounded = bound.radius_side == 0 ? so : bound.radius_side == 1 ? si : nullptr;
  const int nb = bounded ? bounded->n : 1;
  double* row_eps = static_cast<double*>(palloc(sizeof(double) * nb));
  double* row_acc = static_cast<double*>(palloc(sizeof(double) * nb));
  double* row_reach = static_cast<double*>(palloc(sizeof(double) * nb));  // the engine's bound
  double widest = NAN;  // the largest engine bound: the window on the first coordinate
  for (int k = 0; k < nb; ++k) {
    const double eps = bounded ? bound.radius_eps(bounded->radii[k]) : bound.eps;
    const double engine = std::isnan(eps) ? NAN : engine_bound(form, eps, KeyRef{Max(dim, 1)});
    row_eps[k] = std::isnan(engine) ? NAN : eps;
    row_reach[k] = engine;
    if (!std::isnan(engine)) widest = std::isnan(widest) ? engine : Max(widest, engine);
  }
  // Keys with an extent: the engine's candidates are the centres within the bound plus both
  // sides' largest radius (outsized ones wild, decided on the widest bound as the executor
  // does), each of them checked by the operator; the pairs within the bound are at most those
  // whose boxes are.
  double outsized_o = 0, outsized_i = 0, radii = 0;
  if (!std::isnan(widest))
    radii = joined_radius(so, widest, n_outer, &outsized_o) +
            joined_radius(si, widest, n_inner, &outsized_i);
  // Wild rows are paired with every row of the other side.
  double estimate = (static_cast<double>(so->wild) / so->seen + outsized_o) * n_outer * n_inner +
                    (static_cast<double>(si->wild) / si->seen + outsized_i) * n_outer * n_inner;
  double candidate_estimate = estimate;
  const bool box_filter = radii > 0 && so->extents && si->extents;
  int within_self = 0;  // rows of the radius side whose bound holds distance 0
  if (radii > 0) widest = NAN;
  for (int k = 0; k < nb; ++k) {
    row_acc[k] = NAN;
    if (std::isnan(row_reach[k])) continue;
    if (radii > 0) {
      row_reach[k] = engine_bound(form, row_eps[k] + radii, KeyRef{Max(dim, 1)});
      widest = std::isnan(widest) ? row_reach[k] : Max(widest, row_reach[k]);
    }
    row_acc[k] = accumulated_bound(row_reach[k], metric);
    if (row_eps[k] >= 0) ++within_self;
  }
  if (so->n > 0 && si->n > 0 && so->dim == si->dim) {
    const int no = so->n, ni = si->n;
    // Both inputs scan the same rows (a self-join, with or without a radius): the same sample.
    const bool self = so->relid == si->relid && no == ni && so->seen == si->seen &&
                      memcmp(so->points, si->points, sizeof(double) * no * dim) == 0;
    const bool cosine = metric == Metric::Cosine;
    // Inner sample sorted on the first coordinate: |dx0| <= distance for all three metrics, so
    // each outer point only looks at a window; work stays near-linear for selective joins.
    uint32* order = static_cast<uint32*>(palloc(sizeof(uint32) * ni));
    double* first = static_cast<double*>(palloc(sizeof(double) * ni));
    for (int j = 0; j < ni; ++j) order[j] = j;
    const double* ip = si->points;
    std::sort(order, order + ni, [ip, dim](uint32 x, uint32 y) {
      return ip[static_cast<size_t>(x) * dim] < ip[static_cast<size_t>(y) * dim];
    });
    for (int j = 0; j < ni; ++j) first[j] = ip[static_cast<size_t>(order[j]) * dim];
    double count = 0, candidates = 0, evaluations = 0;
    int processed = 0, matched = 0;
    for (int i = 0; i < no && !std::isnan(widest); ++i, ++processed) {
      if (evaluations > 2e7) break;  // bounded planning work: extrapolate from `processed`
      const int bi = bound.radius_side == 0 ? i : 0;
      if (bound.radius_side == 0 && std::isnan(row_acc[bi])) continue;
      const double* a = so->points + static_cast<size_t>(i) * dim;
      // The cosine distance bounds no coordinate difference: every inner point is looked at.
      const double reach = bound.radius_side == 0 ? row_reach[bi] : widest;
      const double lo = a[0] - reach, hi = a[0] + reach;
      const int begin =
          cosine ? 0 : static_cast<int>(std::lower_bound(first, first + ni, lo) - first);
      bool any = self && row_eps[bound.radius_side < 0 ? 0 : i] >= 0;  // the row with itself
      for (int k = begin; k < ni && (cosine || first[k] <= hi); ++k) {
        const uint32 j = order[k];
        if (self && static_cast<int>(j) == i) continue;
        const int b = bound.radius_side == 1 ? static_cast<int>(j) : bi;
        if (std::isnan(row_acc[b])) continue;
        evaluations += dim;
        const double* p = ip + static_cast<size_t>(j) * dim;
        if (cosine ? exact_distance(a, p, dim, metric) <= row_eps[b]
                   : accumulate_distance(a, p, dim, metric) <= row_acc[b]) {
          candidates += 1;
          if (box_filter && !(box_gap_sq(so->extents + 4 * static_cast<size_t>(i), 2,
                                         si->extents + 4 * static_cast<size_t>(j), 2) <=
                              row_eps[b] * row_eps[b] * (1 + 1e-9)))
            continue;
          count += 1;
          any = true;
        }
      }
      if (any) ++matched;
    }
    pfree(order);
    pfree(first);
    // Selectivity over all sampled rows (NULL keys included); the sampled points stand for
    // so->n / so->seen of the rows.
    const double point_pairs = self ? static_cast<double>(processed) * (ni - 1)
                                    : static_cast<double>(processed) * ni;
    if (point_pairs > 0) {
      const double fraction_o = static_cast<double>(so->n) / so->seen;
      const double fraction_i = static_cast<double>(si->n) / si->seen;
      const double keyed_pairs = fraction_o * fraction_i * n_outer * n_inner / point_pairs;
      estimate += (count + 0.5) * keyed_pairs;
      candidate_estimate += (candidates + 0.5) * keyed_pairs;
      if (self) {  // each row with itself, where its bound holds distance 0
        const double itself = fraction_o * Min(n_outer, n_inner) * within_self / nb;
        estimate += itself;
        candidate_estimate += itself;
      }
      out->outer_keyed = fraction_o;
      out->outer_matched = fraction_o * matched / processed;
    }
  }
  pfree(row_eps);
  pfree(row_acc);
  pfree(row_reach);
  out->pairs = Min(estimate, n_outer * n_inner);
  out->candidates = Min(Max(candidate_estimate, estimate), n_outer * n_inner);
  return true;
}

}  // namespace simjoin::pg::cs
