// Reading a table's (key, vector) rows through SPI with a cursor, in chunks.
#include "table_vectors.h"

extern "C" {
#include "access/relation.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

#include "shared_points.h"
#include "vector_input.h"

namespace simjoin::pg {

namespace {

constexpr long kFetchRows = 10000;

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

AttrNumber only_vector_column(Relation rel, const char* argument_prefix) {
  TupleDesc desc = RelationGetDescr(rel);
  AttrNumber found = InvalidAttrNumber;
  for (int i = 0; i < desc->natts; ++i) {
    Form_pg_attribute att = TupleDescAttr(desc, i);
    if (att->attisdropped || !is_vector_type(att->atttypid)) continue;
    if (found != InvalidAttrNumber)
      ereport(ERROR, (errcode(ERRCODE_AMBIGUOUS_COLUMN),
                      errmsg("simjoin: table \"%s\" has more than one real[] or float8[] column",
                             RelationGetRelationName(rel)),
                      errhint("Name the vector column with %s_column.", argument_prefix)));
    found = att->attnum;
  }
  if (found == InvalidAttrNumber)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("simjoin: table \"%s\" has no real[] or float8[] column",
                           RelationGetRelationName(rel))));
  return found;
}

AttrNumber primary_key_column(Relation rel, const char* argument_prefix) {
  const Oid index_oid = RelationGetPrimaryKeyIndex(rel);
  AttrNumber found = InvalidAttrNumber;
  if (OidIsValid(index_oid)) {
    Relation index = relation_open(index_oid, AccessShareLock);
    if (index->rd_index->indnkeyatts == 1) found = index->rd_index->indkey.values[0];
    relation_close(index, AccessShareLock);
  }
  if (found == InvalidAttrNumber || !is_integer_type(TupleDescAttr(RelationGetDescr(rel), found - 1)->atttypid))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("simjoin: table \"%s\" has no single-column integer primary key",
                           RelationGetRelationName(rel)),
                    errhint("Name an integer key column with %s_key.", argument_prefix)));
  return found;
}

// ERROR unless attnum is a column of rel (not dropped) of one of the accepted kinds.
void check_column_type(Relation rel, AttrNumber attnum, bool vector) {
  if (attnum <= 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("simjoin: system columns of relation \"%s\" cannot be used",
                           RelationGetRelationName(rel))));
  Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attnum - 1);
  if (vector ? !is_vector_type(att->atttypid) : !is_integer_type(att->atttypid))
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("simjoin: column \"%s\" of table \"%s\" is %s, expected %s",
                           NameStr(att->attname), RelationGetRelationName(rel),
                           format_type_be(att->atttypid),
                           vector ? "real[] or float8[]" : "smallint, integer or bigint")));
}

// The points go to shared memory when the GPU service may run the join (shared_points.h).
void grow(TableVectors* out, size_t* capacity, MemoryContext context, bool shared) {
  const size_t new_capacity = *capacity ? *capacity * 2 : 1024;
  const size_t dim = static_cast<size_t>(out->dim);
  out->keys = static_cast<int64*>(
      out->keys ? repalloc_huge(out->keys, sizeof(int64) * new_capacity)
                : MemoryContextAllocHuge(context, sizeof(int64) * new_capacity));
  out->coords = grow_join_points(context, out->coords, sizeof(double) * out->n * dim,
                                 sizeof(double) * new_capacity * dim, shared);
  *capacity = new_capacity;
}

}  // namespace

void resolve_table_columns(Oid relid, const char* vector_column, const char* key_column,
                           const char* argument_prefix, TableColumns* out) {
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
      vector_column ? named_column(rel, vector_column) : only_vector_column(rel, argument_prefix);
  check_column_type(rel, out->vector_attnum, true);
  out->key_attnum =
      key_column ? named_column(rel, key_column) : primary_key_column(rel, argument_prefix);
  check_column_type(rel, out->key_attnum, false);
  TupleDesc desc = RelationGetDescr(rel);
  strlcpy(out->vector_column, NameStr(TupleDescAttr(desc, out->vector_attnum - 1)->attname),
          NAMEDATALEN);
  strlcpy(out->key_column, NameStr(TupleDescAttr(desc, out->key_attnum - 1)->attname),
          NAMEDATALEN);
  relation_close(rel, AccessShareLock);
}

void read_table_vectors(const TableColumns& columns, int dim, TableVectors* out) {
  MemoryContext caller_context = CurrentMemoryContext;
  out->keys = nullptr;
  out->coords = nullptr;
  out->n = 0;
  out->dim = dim > 0 ? dim : 0;
  size_t capacity = 0;
  const bool shared = join_points_shared();

  StringInfoData query;
  initStringInfo(&query);
  appendStringInfo(&query, "SELECT %s::pg_catalog.int8, %s FROM %s",
                   quote_identifier(columns.key_column), quote_identifier(columns.vector_column),
                   columns.qualified_name);

  if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "simjoin: SPI_connect failed");
  SPIPlanPtr plan = SPI_prepare(query.data, 0, nullptr);
  if (!plan) elog(ERROR, "simjoin: could not prepare \"%s\": %s", query.data, SPI_result_code_string(SPI_result));
  Portal portal = SPI_cursor_open(nullptr, plan, nullptr, nullptr, true);
  char key_text[32];
  for (;;) {
    SPI_cursor_fetch(portal, true, kFetchRows);
    if (SPI_processed == 0) break;
    SPITupleTable* table = SPI_tuptable;
    for (uint64 row = 0; row < SPI_processed; ++row) {
      bool key_null, vector_null;
      const Datum key = SPI_getbinval(table->vals[row], table->tupdesc, 1, &key_null);
      const Datum vector = SPI_getbinval(table->vals[row], table->tupdesc, 2, &vector_null);
      if (vector_null) continue;  // a NULL vector matches nothing, as in SQL
      if (key_null)
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                        errmsg("simjoin: table \"%s\" has a row with a NULL key in column \"%s\"",
                               columns.table_name, columns.key_column)));
      const int64 key_value = DatumGetInt64(key);
      snprintf(key_text, sizeof key_text, INT64_FORMAT, key_value);
      if (out->dim == 0) out->dim = vector_length(vector, columns.table_name, key_text);
      if (out->n == capacity) grow(out, &capacity, caller_context, shared);
      out->keys[out->n] = key_value;
      read_vector(vector, out->dim, out->coords + out->n * out->dim, columns.table_name,
                  key_text);
      ++out->n;
    }
    SPI_freetuptable(SPI_tuptable);
    CHECK_FOR_INTERRUPTS();
  }
  SPI_cursor_close(portal);
  SPI_finish();
  pfree(query.data);
}

}  // namespace simjoin::pg
