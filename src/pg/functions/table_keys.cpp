// Keys of any type with a btree ordering, as ranks (table_keys.h).
#include "pg/functions/table_keys.h"

extern "C" {
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"
}

#include "pg/functions/table_vectors.h"

namespace simjoin::pg {

namespace {

struct KeySort {
  const Datum* values;
  SortSupportData* support;
};

int compare_positions(const void* a, const void* b, void* arg) {
  const KeySort* sort = static_cast<const KeySort*>(arg);
  const uint32 i = *static_cast<const uint32*>(a), j = *static_cast<const uint32*>(b);
  const int order = ApplySortComparator(sort->values[i], false, sort->values[j], false,
                                        sort->support);
  return order != 0 ? order : (i < j ? -1 : (i > j ? 1 : 0));
}

}  // namespace

bool keys_by_rank(const TableColumns& columns) { return OidIsValid(columns.key_type); }

void begin_keys(const TableColumns& columns, TableVectors* out) {
  out->key_values = nullptr;
  if (!keys_by_rank(columns)) return;
  KeyValues* keys = static_cast<KeyValues*>(palloc0(sizeof(KeyValues)));
  get_typlenbyval(columns.key_type, &keys->typlen, &keys->typbyval);
  keys->context = CurrentMemoryContext;
  out->key_values = keys;
}

int64 row_key(Datum key, bool key_null, const TableColumns& columns, TableVectors* out) {
  if (key_null)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("simjoin: table \"%s\" has a row with a NULL key in column \"%s\"",
                           columns.table_name, columns.key_column)));
  if (!keys_by_rank(columns)) return DatumGetInt64(key);
  KeyValues* keys = out->key_values;
  const MemoryContext row_context = MemoryContextSwitchTo(keys->context);
  if (keys->n == keys->capacity) {
    keys->capacity = keys->capacity ? keys->capacity * 2 : 1024;
    keys->values = static_cast<Datum*>(
        keys->values ? repalloc_huge(keys->values, sizeof(Datum) * keys->capacity)
                     : palloc_extended(sizeof(Datum) * keys->capacity, MCXT_ALLOC_HUGE));
  }
  keys->values[keys->n] = datumCopy(key, keys->typbyval, keys->typlen);
  MemoryContextSwitchTo(row_context);
  return static_cast<int64>(keys->n++);
}

void rank_keys(const TableColumns& columns, TableVectors* out) {
  KeyValues* keys = out->key_values;  // set by begin_keys exactly where keys go by rank
  if (keys == nullptr || keys->n == 0) return;
  const size_t n = keys->n;
  if (n > PG_UINT32_MAX)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("simjoin: table \"%s\" has more than 2^32 rows", columns.table_name)));
  TypeCacheEntry* type = lookup_type_cache(columns.key_type, TYPECACHE_LT_OPR);
  SortSupportData support{};
  support.ssup_cxt = CurrentMemoryContext;
  support.ssup_collation = columns.key_collation;
  PrepareSortSupportFromOrderingOp(type->lt_opr, &support);
  uint32* order = static_cast<uint32*>(palloc_extended(sizeof(uint32) * n, MCXT_ALLOC_HUGE));
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32>(i);
  KeySort sort{keys->values, &support};
  qsort_arg(order, n, sizeof(uint32), compare_positions, &sort);
  // rank[position]; the values by rank, the first of equal keys kept
  int64* rank = static_cast<int64*>(palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE));
  Datum* by_rank = static_cast<Datum*>(palloc_extended(sizeof(Datum) * n, MCXT_ALLOC_HUGE));
  int64 ranks = 0;
  for (size_t k = 0; k < n; ++k) {
    const uint32 position = order[k];
    if (k == 0 || ApplySortComparator(by_rank[ranks - 1], false, keys->values[position], false,
                                      &support) != 0)
      by_rank[ranks++] = keys->values[position];
    rank[position] = ranks - 1;
  }
  for (size_t i = 0; i < out->n; ++i) out->keys[i] = rank[out->keys[i]];
  for (size_t i = 0; i < out->null_n; ++i) out->null_keys[i] = rank[out->null_keys[i]];
  pfree(keys->values);
  pfree(order);
  pfree(rank);
  keys->values = by_rank;
  keys->n = keys->capacity = static_cast<size_t>(ranks);
}

Datum key_datum(const TableVectors& vectors, int64 key) {
  if (vectors.key_values == nullptr) return Int64GetDatum(key);
  return vectors.key_values->values[key];
}

char* key_text(const TableColumns& columns, const TableVectors& vectors, int64 key) {
  if (vectors.key_values == nullptr) return psprintf(INT64_FORMAT, key);
  Oid output;
  bool varlena;
  getTypeOutputInfo(columns.key_type, &output, &varlena);
  return OidOutputFunctionCall(output, vectors.key_values->values[key]);
}

namespace {

void row_key_context_line(void* arg) {
  const RowKeyContext* context = static_cast<const RowKeyContext*>(arg);
  errcontext("the row with key %s of table \"%s\"",
             key_text(*context->columns, *context->vectors, context->key),
             context->columns->table_name);
}

}  // namespace

void push_row_key_context(RowKeyContext* context) {
  context->callback.callback = row_key_context_line;
  context->callback.arg = context;
  context->callback.previous = error_context_stack;
  error_context_stack = &context->callback;
}

}  // namespace simjoin::pg
