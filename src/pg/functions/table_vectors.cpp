// Reading a table's (key, vector) rows through SPI, each row handed over as the executor makes it.
#include "pg/functions/table_vectors.h"

#include <algorithm>

extern "C" {
#include "access/relation.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "tcop/dest.h"
#include "utils/memutils.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
}

#include "pg/functions/postgis_points.h"
#include "pg/functions/vector_input.h"
#include "pg/progress/join_progress.h"
#include "pg/service/shared_points.h"

namespace simjoin::pg {

namespace {

bool is_integer_type(Oid type) {
  const Oid base = getBaseType(type);
  return base == INT2OID || base == INT4OID || base == INT8OID;
}

AttrNumber named_column(Relation rel, const char* name) {
  const AttrNumber attnum = get_attnum(RelationGetRelid(rel), name);
  if (attnum == InvalidAttrNumber)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("column \"%s\" of relation \"%s\" does not exist", name,
                           RelationGetRelationName(rel))));
  return attnum;
}

// A column of the values the function reads: vectors (real[], float8[]) or PostGIS geometries
// or geographies (a type of that name).
bool is_type_named(Oid type, const char* name) {
  HeapTuple tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(getBaseType(type)));
  if (!HeapTupleIsValid(tuple)) return false;
  const bool named = strcmp(NameStr(((Form_pg_type) GETSTRUCT(tuple))->typname), name) == 0;
  ReleaseSysCache(tuple);
  return named;
}
bool is_geometry_type(Oid type) { return is_type_named(type, "geometry"); }
// pgvector's vector and halfvec: read as their real[] values (pgvector's casts).
bool is_pgvector_type(Oid type) {
  return is_type_named(type, "vector") || is_type_named(type, "halfvec");
}
bool is_geography_type(Oid type) { return is_type_named(type, "geography"); }

bool is_value_type(Oid type, ValueKind kind) {
  switch (kind) {
    case ValueKind::Vector: return is_vector_type(type) || is_pgvector_type(type);
    case ValueKind::Geometry: return is_geometry_type(type);
    case ValueKind::Geography: return is_geography_type(type);
  }
  return false;
}

const char* value_types(ValueKind kind) {
  return kind == ValueKind::Vector ? "real[], float8[], vector, halfvec, geometry or geography"
                                   : "geometry";
}

// The table's only column of `kind`, or InvalidAttrNumber when it has none (ERROR when several).
AttrNumber only_column_of(Relation rel, const ColumnArguments& arguments, ValueKind kind) {
  TupleDesc desc = RelationGetDescr(rel);
  AttrNumber found = InvalidAttrNumber;
  for (int i = 0; i < desc->natts; ++i) {
    Form_pg_attribute att = TupleDescAttr(desc, i);
    if (att->attisdropped || !is_value_type(att->atttypid, kind)) continue;
    if (found != InvalidAttrNumber)
      ereport(ERROR, (errcode(ERRCODE_AMBIGUOUS_COLUMN),
                      errmsg("simjoin: table \"%s\" has more than one %s column",
                             RelationGetRelationName(rel),
                             kind == ValueKind::Vector     ? "real[], float8[], vector or halfvec"
                             : kind == ValueKind::Geometry ? "geometry"
                                                           : "geography"),
                      errhint("Name the %s column with %s.",
                              kind == ValueKind::Vector     ? "vector"
                              : kind == ValueKind::Geometry ? "geometry"
                                                            : "geography",
                              arguments.column)));
    found = att->attnum;
  }
  return found;
}

// The value column when none is named: the only column of `kind`; for vectors, else the only
// geometry column (*kind becomes Geometry).
AttrNumber only_value_column(Relation rel, const ColumnArguments& arguments, ValueKind* kind) {
  AttrNumber found = only_column_of(rel, arguments, *kind);
  for (ValueKind other : {ValueKind::Geometry, ValueKind::Geography}) {
    if (found != InvalidAttrNumber || *kind != ValueKind::Vector) break;
    found = only_column_of(rel, arguments, other);
    if (found != InvalidAttrNumber) *kind = other;
  }
  if (found == InvalidAttrNumber)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("simjoin: table \"%s\" has no %s column",
                           RelationGetRelationName(rel), value_types(*kind))));
  return found;
}

AttrNumber primary_key_column(Relation rel, const ColumnArguments& arguments, Oid key_type) {
  const Oid index_oid = RelationGetPrimaryKeyIndex(rel);
  AttrNumber found = InvalidAttrNumber;
  if (OidIsValid(index_oid)) {
    Relation index = relation_open(index_oid, AccessShareLock);
    if (index->rd_index->indnkeyatts == 1) found = index->rd_index->indkey.values[0];
    relation_close(index, AccessShareLock);
  }
  if (OidIsValid(key_type) && found != InvalidAttrNumber) return found;  // its type checked next
  if (found != InvalidAttrNumber) {
    const Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), found - 1);
    if (!is_integer_type(att->atttypid))
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("simjoin: the primary key \"%s\" of table \"%s\" is %s, not an "
                             "integer", NameStr(att->attname), RelationGetRelationName(rel),
                             format_type_be(att->atttypid)),
                      errhint("Pass key_type => NULL::%s for keys of that type.",
                              format_type_be(att->atttypid))));
  }
  if (found == InvalidAttrNumber)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("simjoin: table \"%s\" has no single-column %sprimary key",
                           RelationGetRelationName(rel), OidIsValid(key_type) ? "" : "integer "),
                    OidIsValid(key_type)
                        ? errhint("Name a key column with %s.", arguments.key)
                        : errhint("Name an integer key column with %s, or a key of another type "
                                  "with %s and key_type => NULL::its_type.", arguments.key,
                                  arguments.key)));
  return found;
}

// ERROR unless the key column is of key_type and that type has a btree ordering (the order of
// ties and of rows, table_keys.h).
void check_key_type(Relation rel, AttrNumber attnum, Oid key_type) {
  if (attnum <= 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("simjoin: system columns of relation \"%s\" cannot be used",
                           RelationGetRelationName(rel))));
  Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attnum - 1);
  if (att->atttypid != key_type)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("simjoin: key column \"%s\" of table \"%s\" is %s, but key_type is %s",
                           NameStr(att->attname), RelationGetRelationName(rel),
                           format_type_be(att->atttypid), format_type_be(key_type)),
                    errhint("Pass key_type => NULL::%s.", format_type_be(att->atttypid))));
  if (!OidIsValid(lookup_type_cache(key_type, TYPECACHE_LT_OPR)->lt_opr))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
                    errmsg("simjoin: key column \"%s\" of table \"%s\" is %s, which has no "
                           "btree ordering", NameStr(att->attname), RelationGetRelationName(rel),
                           format_type_be(key_type)),
                    errhint("Use a key of a type with a btree operator class (uuid, text, "
                            "numeric, ...).")));
}

// ERROR unless attnum is a column of rel (not dropped) of one of the accepted kinds.
void check_column_type(Relation rel, AttrNumber attnum, bool value, ValueKind kind) {
  if (attnum <= 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("simjoin: system columns of relation \"%s\" cannot be used",
                           RelationGetRelationName(rel))));
  Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attnum - 1);
  const bool accepted = value ? is_value_type(att->atttypid, kind) ||
                                    (kind == ValueKind::Vector &&
                                     (is_geometry_type(att->atttypid) ||
                                      is_geography_type(att->atttypid)))
                              : is_integer_type(att->atttypid);
  if (!accepted)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("simjoin: column \"%s\" of table \"%s\" is %s, expected %s",
                           NameStr(att->attname), RelationGetRelationName(rel),
                           format_type_be(att->atttypid),
                           value ? value_types(kind) : "smallint, integer or bigint"),
                    value ? 0
                          : errhint("For a key of another type, pass key_type => NULL::%s.",
                                    format_type_be(att->atttypid))));
}

// The rows of a table with storage as the planner estimates them: its rows a page at the last
// ANALYZE or VACUUM times its pages now (0 when never counted, or without storage).
double expected_row_count(Relation rel) {
  const char kind = rel->rd_rel->relkind;
  if ((kind != RELKIND_RELATION && kind != RELKIND_MATVIEW) || rel->rd_rel->relpages <= 0 ||
      rel->rd_rel->reltuples <= 0)
    return 0.0;
  return rel->rd_rel->reltuples / rel->rd_rel->relpages * RelationGetNumberOfBlocks(rel);
}

}  // namespace

void resolve_value_column(Oid relid, const char* vector_column, const ColumnArguments& arguments,
                          TableColumns* out, ValueKind kind) {
  // Refuse before describing the table's columns: the same error a SELECT would give. Column
  // privileges suffice here; the query itself checks the exact columns.
  if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
      pg_attribute_aclcheck_all(relid, GetUserId(), ACL_SELECT, ACLMASK_ANY) != ACLCHECK_OK)
    aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(get_rel_relkind(relid)),
                   get_rel_name(relid));
  Relation rel = relation_open(relid, AccessShareLock);
  out->relid = relid;
  strlcpy(out->table_name, RelationGetRelationName(rel), sizeof out->table_name);
  strlcpy(out->qualified_name,
          quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
                                     RelationGetRelationName(rel)),
          sizeof out->qualified_name);
  out->vector_attnum =
      vector_column ? named_column(rel, vector_column) : only_value_column(rel, arguments, &kind);
  check_column_type(rel, out->vector_attnum, true, kind);
  out->value_type = TupleDescAttr(RelationGetDescr(rel), out->vector_attnum - 1)->atttypid;
  out->kind = is_geometry_type(out->value_type)    ? ValueKind::Geometry
              : is_geography_type(out->value_type) ? ValueKind::Geography
                                                   : ValueKind::Vector;
  strlcpy(out->vector_column,
          NameStr(TupleDescAttr(RelationGetDescr(rel), out->vector_attnum - 1)->attname),
          NAMEDATALEN);
  out->key_attnum = InvalidAttrNumber;
  out->key_column[0] = '\0';
  out->key_type = InvalidOid;
  out->key_collation = InvalidOid;
  out->expected_rows = expected_row_count(rel);
  relation_close(rel, AccessShareLock);
}

void resolve_table_columns(Oid relid, const char* vector_column, const char* key_column,
                           const ColumnArguments& arguments, TableColumns* out, ValueKind kind,
                           Oid key_type) {
  resolve_value_column(relid, vector_column, arguments, out, kind);
  Relation rel = relation_open(relid, AccessShareLock);
  out->key_attnum =
      key_column ? named_column(rel, key_column) : primary_key_column(rel, arguments, key_type);
  if (OidIsValid(key_type))
    check_key_type(rel, out->key_attnum, key_type);
  else
    check_column_type(rel, out->key_attnum, false, kind);
  out->key_type = key_type;
  const Form_pg_attribute key = TupleDescAttr(RelationGetDescr(rel), out->key_attnum - 1);
  out->key_collation = key->attcollation;
  strlcpy(out->key_column, NameStr(key->attname), NAMEDATALEN);
  relation_close(rel, AccessShareLock);
}

TableVectorsBuilder::TableVectorsBuilder(TableVectors* out, double expected_rows)
    : out_(out),
      // A few percent over the estimate for rows added since; at most 2^31 points at once.
      first_capacity_(
          static_cast<size_t>(std::clamp(expected_rows * 1.05 + 1024, 1024.0, 2147483648.0))),
      context_(CurrentMemoryContext),
      shared_(join_points_shared()) {}

// The points go to shared memory when the GPU service may run the join (pg/service/shared_points.h).
double* TableVectorsBuilder::append(int64 key) {
  const size_t dim = static_cast<size_t>(out_->dim);
  if (out_->n == capacity_) {
    const size_t new_capacity = capacity_ ? capacity_ * 2 : first_capacity_;
    out_->keys = static_cast<int64*>(
        out_->keys ? repalloc_huge(out_->keys, sizeof(int64) * new_capacity)
                   : MemoryContextAllocHuge(context_, sizeof(int64) * new_capacity));
    out_->coords = grow_join_points(context_, out_->coords, sizeof(double) * out_->n * dim,
                                    sizeof(double) * new_capacity * dim, shared_);
    capacity_ = new_capacity;
  }
  out_->keys[out_->n] = key;
  progress_add_rows(1);
  return out_->coords + out_->n++ * dim;
}

void TableVectorsBuilder::append_null_key(int64 key) {
  if (out_->null_n == null_capacity_) {
    null_capacity_ = null_capacity_ ? null_capacity_ * 2 : 64;
    out_->null_keys = static_cast<int64*>(
        out_->null_keys ? repalloc_huge(out_->null_keys, sizeof(int64) * null_capacity_)
                        : MemoryContextAllocHuge(context_, sizeof(int64) * null_capacity_));
  }
  out_->null_keys[out_->null_n++] = key;
}

namespace {

// A DestReceiver that hands each row's slot to the reader's callback.
struct RowReceiver {
  DestReceiver receiver;  // first: the executor sees a DestReceiver
  void (*row)(TupleTableSlot*, void*);
  void* arg;
  MemoryContext row_context;
  ErrorContextCallback* caller_context;  // the function's: a reader's ERROR is not the query's
  uint64 rows;
};

bool receive_row(TupleTableSlot* slot, DestReceiver* self) {
  RowReceiver* r = reinterpret_cast<RowReceiver*>(self);
  const MemoryContext caller = MemoryContextSwitchTo(r->row_context);
  // Without SPI's context line (the internal SELECT) on the reader's errors about a row.
  ErrorContextCallback* query_context = error_context_stack;
  error_context_stack = r->caller_context;
  r->row(slot, r->arg);
  error_context_stack = query_context;
  MemoryContextSwitchTo(caller);
  MemoryContextReset(r->row_context);  // detoasted values and the like
  if ((++r->rows & 0x3FFF) == 0) CHECK_FOR_INTERRUPTS();
  return true;
}

void receiver_startup(DestReceiver*, int, TupleDesc) {}
void receiver_shutdown(DestReceiver*) {}
void receiver_destroy(DestReceiver*) {}

}  // namespace

void for_each_query_row(const char* query, void (*row)(TupleTableSlot*, void*), void* arg) {
  if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "simjoin: SPI_connect failed");
  RowReceiver receiver;
  receiver.receiver.receiveSlot = receive_row;
  receiver.receiver.rStartup = receiver_startup;
  receiver.receiver.rShutdown = receiver_shutdown;
  receiver.receiver.rDestroy = receiver_destroy;
  receiver.receiver.mydest = DestNone;  // no SPI tuple table
  receiver.row = row;
  receiver.arg = arg;
  receiver.row_context = AllocSetContextCreate(CurrentMemoryContext, "simjoin row",
                                               ALLOCSET_SMALL_SIZES);
  receiver.caller_context = error_context_stack;
  receiver.rows = 0;
  // No parallel plan (cursor options 0): a Gather would only queue every row to this process.
  SPIPlanPtr plan = SPI_prepare_cursor(query, 0, nullptr, 0);
  if (!plan)
    elog(ERROR, "simjoin: could not prepare \"%s\": %s", query, SPI_result_code_string(SPI_result));
  SPIExecuteOptions options;
  memset(&options, 0, sizeof options);
  options.read_only = true;
  options.dest = &receiver.receiver;
  const int result = SPI_execute_plan_extended(plan, &options);
  if (result < 0)
    elog(ERROR, "simjoin: could not run \"%s\": %s", query, SPI_result_code_string(result));
  SPI_finish();
}

namespace {

struct VectorRows {
  const TableColumns* columns;
  TableVectors* out;
  TableVectorsBuilder* builder;
  bool keep_null_keys;
};

void read_vector_row(TupleTableSlot* slot, void* arg) {
  VectorRows* rows = static_cast<VectorRows*>(arg);
  const TableColumns& columns = *rows->columns;
  bool key_null, vector_null;
  const Datum key = slot_getattr(slot, 1, &key_null);
  const Datum vector = slot_getattr(slot, 2, &vector_null);
  if (vector_null && !rows->keep_null_keys) return;  // a NULL vector matches nothing, as in SQL
  const int64 key_value = row_key(key, key_null, columns, rows->out);
  if (vector_null) {
    rows->builder->append_null_key(key_value);
    return;
  }
  // An integer key is named in the message; another key's text (its output function) only on an
  // error, in the context line.
  char shown_key[32];
  snprintf(shown_key, sizeof shown_key, INT64_FORMAT, key_value);
  const bool by_rank = keys_by_rank(columns);
  RowKeyContext key_context{&columns, rows->out, key_value, {}};
  if (by_rank) push_row_key_context(&key_context);
  if (rows->out->dim == 0)
    rows->out->dim = vector_length(vector, columns.table_name, by_rank ? nullptr : shown_key);
  read_vector(vector, rows->out->dim, rows->builder->append(key_value), columns.table_name,
              by_rank ? nullptr : shown_key);
  if (by_rank) error_context_stack = key_context.callback.previous;
}

}  // namespace

void read_table_vectors(const TableColumns& columns, int dim, TableVectors* out,
                        bool keep_null_keys, bool geography) {
  if (columns.kind == ValueKind::Geography && !geography)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("simjoin: column \"%s\" of table \"%s\" is a geography, which this "
                           "function does not take", columns.vector_column, columns.table_name),
                    errhint("similarity_join(), similarity_knn_join(), similarity_join_stats() "
                            "and simjoin_dbscan() take geography columns.")));
  if (columns.kind != ValueKind::Vector) {
    if (columns.kind == ValueKind::Geometry)
      read_point_geometries(columns, out);
    else
      read_point_geographies(columns, out);
    if (!keep_null_keys) {
      out->null_keys = nullptr;
      out->null_n = 0;
    }
    return;
  }
  *out = TableVectors{nullptr, nullptr, 0, dim > 0 ? dim : 0, nullptr, 0};
  TableVectorsBuilder builder(out, columns.expected_rows);
  VectorRows rows{&columns, out, &builder, keep_null_keys};
  begin_keys(columns, out);
  char* query = key_value_query(columns);
  for_each_query_row(query, read_vector_row, &rows);
  pfree(query);
  rank_keys(columns, out);
}

char* key_value_query(const TableColumns& columns) {
  return psprintf("SELECT %s%s, %s FROM %s", quote_identifier(columns.key_column),
                  keys_by_rank(columns) ? "" : "::pg_catalog.int8", value_expression(columns),
                  columns.qualified_name);
}

char* value_expression(const TableColumns& columns) {
  return psprintf("%s%s", quote_identifier(columns.vector_column),
                  is_pgvector_type(columns.value_type) ? "::pg_catalog.float4[]" : "");
}

namespace {

struct KeyOrder {
  const int64* keys;
};

int compare_indexes_by_key(const void* a, const void* b, void* arg) {
  const int64* keys = static_cast<const KeyOrder*>(arg)->keys;
  const uint32 i = *static_cast<const uint32*>(a), j = *static_cast<const uint32*>(b);
  if (keys[i] != keys[j]) return keys[i] < keys[j] ? -1 : 1;
  return i < j ? -1 : (i > j ? 1 : 0);
}

int compare_keys(const void* a, const void* b) {
  const int64 x = *static_cast<const int64*>(a), y = *static_cast<const int64*>(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace

void order_by_key(TableVectors* vectors) {
  if (vectors->null_n > 1)
    qsort(vectors->null_keys, vectors->null_n, sizeof(int64), compare_keys);
  const size_t n = vectors->n, dim = static_cast<size_t>(vectors->dim);
  size_t sorted = 1;  // a table read in key order (often: a serial key) needs no copy
  while (sorted < n && vectors->keys[sorted - 1] <= vectors->keys[sorted]) ++sorted;
  if (sorted >= n) return;
  if (n > PG_UINT32_MAX)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("simjoin: more than %u points", PG_UINT32_MAX)));
  uint32* order = static_cast<uint32*>(palloc_extended(sizeof(uint32) * n, MCXT_ALLOC_HUGE));
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32>(i);
  KeyOrder key_order{vectors->keys};
  qsort_arg(order, n, sizeof(uint32), compare_indexes_by_key, &key_order);
  // Position i takes the row at order[i]: moved in place along each cycle of the permutation
  // (one row held aside), not through a copy of the points. A moved position gets its own index
  // in `order`, which marks it done.
  int64* keys = vectors->keys;
  double* coords = vectors->coords;
  Datum* values = vectors->values;  // geography: each point's value moves with it
  double* held = static_cast<double*>(palloc(sizeof(double) * Max(dim, 1)));
  for (size_t start = 0; start < n; ++start) {
    if (order[start] == start) continue;
    const int64 held_key = keys[start];
    const Datum held_value = values ? values[start] : 0;
    memcpy(held, coords + start * dim, sizeof(double) * dim);
    size_t i = start;
    for (;;) {
      const size_t from = order[i];
      order[i] = static_cast<uint32>(i);
      if (from == start) {
        keys[i] = held_key;
        if (values) values[i] = held_value;
        memcpy(coords + i * dim, held, sizeof(double) * dim);
        break;
      }
      keys[i] = keys[from];
      if (values) values[i] = values[from];
      memcpy(coords + i * dim, coords + from * dim, sizeof(double) * dim);
      i = from;
    }
  }
  pfree(held);
  pfree(order);
}

void for_each_row_in_key_order(const TableVectors& vectors,
                               void (*visit)(int64 key, size_t index, void* arg), void* arg) {
  size_t i = 0, j = 0;
  while (i < vectors.n || j < vectors.null_n) {
    if (j == vectors.null_n || (i < vectors.n && vectors.keys[i] <= vectors.null_keys[j])) {
      visit(vectors.keys[i], i, arg);
      ++i;
    } else {
      visit(vectors.null_keys[j++], kNullVector, arg);
    }
  }
}

}  // namespace simjoin::pg
