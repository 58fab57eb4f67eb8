// Planning-time estimate of a similarity join's result size, from block samples of both inputs'
// key columns (cached per backend, dropped on relcache invalidation or when the table's size
// changed by more than a fifth).
#include "custom_scan_internal.h"

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

#include "distance.h"

namespace simjoin::pg::cs {

namespace {

constexpr int kTopRadii = 32;

struct Sample {
  bool used = false;
  Oid relid = InvalidOid;
  AttrNumber attno = 0;     // the key's column, or 0 for an expression key:
  Expr* key = nullptr;      // the expression, its Vars numbered 1
  MemoryContext memory = nullptr;  // holds points and key (under TopMemoryContext)
  FormInfo form{};
  double table_tuples = 0;  // rel->tuples when sampled
  int seen = 0;             // rows sampled (NULL keys included)
  int n = 0;                // points read
  int wild = 0;             // rows whose key the engine cannot take
  int dim = 0;
  double* points = nullptr;  // n * dim
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

// Evaluates `key` (Vars numbered 1) on each of the copied rows and classifies the values, in a
// subtransaction: a key that raises an error on some row (the executor would raise it too, or
// skip the row behind a cheaper clause) makes the sample unusable instead of failing the plan.
// A cancel is raised again.
template <typename Take>
bool evaluate_key_on_rows(Relation rel, Expr* key, const FormInfo& form, HeapTuple* rows,
                          int count, const Take& take) {
  MemoryContext caller = CurrentMemoryContext;
  ResourceOwner owner = CurrentResourceOwner;
  bool ok = true;
  BeginInternalSubTransaction(nullptr);
  MemoryContextSwitchTo(caller);
  PG_TRY();
  {
    ExprState* state = ExecInitExpr(key, nullptr);
    ExprContext* econtext = CreateStandaloneExprContext();
    TupleTableSlot* slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
    for (int i = 0; i < count; ++i) {
      ExecStoreHeapTuple(rows[i], slot, false);
      econtext->ecxt_scantuple = slot;
      bool isnull;
      const Datum value = ExecEvalExprSwitchContext(state, econtext, &isnull);
      if (!isnull) take(detoast_key(form, value));
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

void take_sample(Oid relid, AttrNumber attno, Expr* key, const FormInfo& form, double tuples,
                 Sample* s) {
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
  KeyRef ref;
  const bool varlena = form.kind != KEY_POINT;
  double* buffer = nullptr;
  // An expression key is evaluated after the scan, on copies of the sampled rows (never while
  // the AM holds a heap page: the expression may read out-of-line values or call anything).
  HeapTuple* rows = key ? static_cast<HeapTuple*>(palloc(sizeof(HeapTuple) * Max(target, 1)))
                        : nullptr;
  int row_count = 0;
  auto take = [&](Datum value) {
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
      buffer = static_cast<double*>(palloc(sizeof(double) * ref.dim));
    } else if (sample.n == capacity) {
      capacity *= 2;
      points = static_cast<double*>(repalloc(points, sizeof(double) * capacity * ref.dim));
    }
    read_key(form, value, ref, buffer);
    memcpy(points + static_cast<size_t>(sample.n) * ref.dim, buffer, sizeof(double) * ref.dim);
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
        take(detoast_key(form, value));
      }
    }
    table_endscan(scan);
    ExecDropSingleTupleTableSlot(slot);
    FreeAccessStrategy(strategy);
  }
  if (key && row_count > 0) usable = evaluate_key_on_rows(rel, key, form, rows, row_count, take);
  table_close(rel, NoLock);
  if (usable) {
    sample.memory = AllocSetContextCreate(TopMemoryContext, "simjoin sample cache",
                                          ALLOCSET_SMALL_SIZES);
    MemoryContextSwitchTo(sample.memory);
    if (sample.n > 0) {
      const Size bytes = sizeof(double) * sample.n * ref.dim;
      sample.points = static_cast<double*>(palloc(bytes));
      memcpy(sample.points, points, bytes);
    }
    if (key) sample.key = static_cast<Expr*>(copyObjectImpl(key));
  }
  sample.dim = ref.dim;
  sample.used = usable;
  MemoryContextSwitchTo(old);
  MemoryContextDelete(work);
  *s = usable ? sample : Sample{};
}

Sample* get_sample(PlannerInfo* root, RelOptInfo* rel, Expr* key, const FormInfo& form) {
  if (sample_rows_setting <= 0) return nullptr;
  if (rel->reloptkind != RELOPT_BASEREL || rel->rtekind != RTE_RELATION) return nullptr;
  const AttrNumber attno = key_column(rel, key);
  Expr* key_expr = nullptr;  // an expression key, its Vars renumbered to 1 (cache and evaluation)
  if (attno == 0) {
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
        equal(s.key, key_expr)) {
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
  take_sample(relid, attno, key_expr, form, tuples, victim);
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
  const Sample* s = form.kind == KEY_GEOMETRY ? get_sample(root, rel, key, form) : nullptr;
  return s && s->seen > 0 ? static_cast<double>(s->boxes) / s->seen : 0;
}

bool estimate_pairs(PlannerInfo* root, RelOptInfo* outer_rel, Expr* outer_key,
                    RelOptInfo* inner_rel, Expr* inner_key, const FormInfo& form, double eps,
                    double* pairs) {
  Sample* so = get_sample(root, outer_rel, outer_key, form);
  if (!so) return false;
  Sample* si = get_sample(root, inner_rel, inner_key, form);
  if (!si) return false;
  const double n_outer = outer_rel->rows, n_inner = inner_rel->rows;
  if (so->seen == 0 || si->seen == 0) {
    *pairs = 0;
    return true;
  }
  // Keys with an extent: the engine's candidates are the centres within eps plus both sides'
  // largest radius (outsized ones wild), each of them checked by the operator (priced as the
  // join's clauses).
  const double eps_bound = engine_bound(form, eps, Max(so->dim, 1));
  double outsized_o = 0, outsized_i = 0;
  const double radii = joined_radius(so, eps_bound, n_outer, &outsized_o) +
                       joined_radius(si, eps_bound, n_inner, &outsized_i);
  // Wild rows are paired with every row of the other side.
  double estimate = (static_cast<double>(so->wild) / so->seen + outsized_o) * n_outer * n_inner +
                    (static_cast<double>(si->wild) / si->seen + outsized_i) * n_outer * n_inner;
  const double bound = radii > 0 ? engine_bound(form, eps + radii, Max(so->dim, 1)) : eps_bound;
  if (!std::isnan(bound) && so->n > 0 && si->n > 0 && so->dim == si->dim) {
    const bool self = so == si;
    const int dim = so->dim;
    const int no = so->n, ni = si->n;
    const Metric metric = form.metric;
    const double acc_bound = accumulated_bound(bound, metric);
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
    double count = 0, evaluations = 0;
    int processed = 0;
    // The cosine distance bounds no coordinate difference: every inner point is looked at.
    const bool cosine = metric == Metric::Cosine;
    for (int i = 0; i < no; ++i, ++processed) {
      if (evaluations > 2e7) break;  // bounded planning work: extrapolate from `processed`
      const double* a = so->points + static_cast<size_t>(i) * dim;
      const double lo = a[0] - bound, hi = a[0] + bound;
      const int begin =
          cosine ? 0 : static_cast<int>(std::lower_bound(first, first + ni, lo) - first);
      for (int k = begin; k < ni && (cosine || first[k] <= hi); ++k) {
        const uint32 j = order[k];
        if (self && static_cast<int>(j) == i) continue;
        evaluations += dim;
        const double* b = ip + static_cast<size_t>(j) * dim;
        if (cosine ? exact_distance(a, b, dim, metric) <= eps
                   : accumulate_distance(a, b, dim, metric) <= acc_bound)
          count += 1;
      }
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
      const double selectivity = (count + 0.5) / point_pairs;
      estimate += selectivity * fraction_o * fraction_i * n_outer * n_inner;
      if (self) estimate += fraction_o * Min(n_outer, n_inner);  // each row with itself
    }
  }
  *pairs = Min(estimate, n_outer * n_inner);
  return true;
}

}  // namespace simjoin::pg::cs
