// Reading a table's (key, vector) rows through SPI, so that privileges and row-level security
// apply exactly as they would to the user's own SELECT.
#pragma once

extern "C" {
#include "postgres.h"
#include "access/attnum.h"
#include "access/htup.h"
#include "access/tupdesc.h"
#include "executor/tuptable.h"
}

#include "pg/functions/table_keys.h"

namespace simjoin::pg {

// What the value column holds: vectors (real[], float8[]), PostGIS geometries or geographies
// (types named geometry and geography, found by name: simjoin does not depend on PostGIS).
enum class ValueKind { Vector, Geometry, Geography };

// Which columns of which relation hold the keys and the vectors.
struct TableColumns {
  Oid relid;
  char table_name[NAMEDATALEN];     // for messages
  char qualified_name[NAMEDATALEN * 2 + 8];
  AttrNumber vector_attnum;
  char vector_column[NAMEDATALEN];
  AttrNumber key_attnum;
  char key_column[NAMEDATALEN];
  ValueKind kind;  // what the value column holds
  Oid value_type;  // the value column's type
  double expected_rows;  // the table's rows as the planner would estimate them (0: unknown)
  Oid key_type;       // InvalidOid: an integer key, read as int8; else keys by rank (table_keys.h)
  Oid key_collation;  // the key column's, for its order
};

// Resolves the columns: `vector_column` NULL means the table's only column of `kind`,
// `key_column` NULL its single-column integer primary key. ERROR with a hint when ambiguous.
// `key_type` (a polymorphic form's): the key column must be of that type, any with a btree
// ordering (the primary key too), and the keys are read by rank (table_keys.h).
// `arguments` names the function's arguments in hints. ValueKind::Vector also takes a geometry
// column (points, read as (x, y)) or a geography column (points, read as the unit normals of
// pg/functions/postgis_points.h): a named one, or the table's only one where it has no vector
// column. pgvector's vector and halfvec columns are vectors, read as their real[] values.
struct ColumnArguments {
  const char* column;  // e.g. "left_column"
  const char* key;     // e.g. "left_key"
};
// The value column alone, as resolve_table_columns finds it; no key (key_attnum invalid).
void resolve_value_column(Oid relid, const char* vector_column, const ColumnArguments& arguments,
                          TableColumns* out, ValueKind kind = ValueKind::Vector);
void resolve_table_columns(Oid relid, const char* vector_column, const char* key_column,
                           const ColumnArguments& arguments, TableColumns* out,
                           ValueKind kind = ValueKind::Vector, Oid key_type = InvalidOid);

// The rows whose vector is not NULL: keys[i] and coords[i * dim .. i * dim + dim - 1], allocated
// (huge) in CurrentMemoryContext; and, when asked for, the keys of the rows whose vector is NULL.
struct TableVectors {
  int64* keys;
  double* coords;
  size_t n;
  int dim;  // 0 until the first vector is read
  int64* null_keys;  // null_n keys (nullptr unless read_table_vectors was asked to keep them)
  size_t null_n;
  bool geometry = false;  // read from PostGIS points (geometry: dim 2; geography: dim 3)
  int32 srid = 0;         // their SRID, where n > 0
  KeyValues* key_values = nullptr;  // keys of another type: keys[i] is a rank into these
  Datum* values = nullptr;  // geography: each point's value, for PostGIS's decisions
};

// Reads every row through SPI (SELECT privilege and row-level security apply), point geometries
// or geographies where columns.kind says so. `dim` > 0 requires that dimension; otherwise the
// first vector sets it. ERROR naming table, key and problem on bad
// vectors or NULL keys. Rows with a NULL vector are skipped (they match nothing, as in SQL); with
// `keep_null_keys` their keys are kept in null_keys (then a NULL key is an ERROR there too).
// A geography column is an ERROR unless `geography` (the functions that decide its pairs).
void read_table_vectors(const TableColumns& columns, int dim, TableVectors* out,
                        bool keep_null_keys = false, bool geography = false);

// "SELECT key::pg_catalog.int8, value FROM table" (the key uncast where read by rank),
// palloc'd: what the readers read.
char* key_value_query(const TableColumns& columns);
// The value column as the readers select it (pgvector's vector and halfvec cast to real[]),
// palloc'd.
char* value_expression(const TableColumns& columns);

// Runs `query` (no parameters, read-only) through SPI and calls row(slot, arg) for each row as
// the executor produces it (no copy of the rows), between SPI_connect and SPI_finish, in a memory
// context reset after each row (row() keeps what it builds in a context of its own).
void for_each_query_row(const char* query, void (*row)(TupleTableSlot*, void*), void* arg);

// Appends points to a TableVectors whose dim is set (in shared memory when the GPU service may
// run the join, as read_table_vectors does).
class TableVectorsBuilder {
 public:
  // `expected_rows`: room made at the first point (a table's estimate: one allocation, not a
  // doubling series of copies, and in shared memory one segment).
  TableVectorsBuilder(TableVectors* out, double expected_rows);
  // Room for one more point with this key: returns where its dim coordinates go.
  double* append(int64 key);
  void append_null_key(int64 key);

 private:
  TableVectors* out_;
  size_t capacity_ = 0;
  size_t first_capacity_;
  size_t null_capacity_ = 0;
  MemoryContext context_;
  bool shared_;
};

// Puts the points in the order of their keys (equal keys in reading order), in place: then a
// point's index is the position of its key in key order, which the engine's tie rules (smallest
// index) turn into "smallest key". null_keys are sorted too.
void order_by_key(TableVectors* vectors);

// After order_by_key: calls visit(key, index, arg) for every row in key order, the points' (index
// = the point's) and the NULL vectors' (index = kNullVector) merged.
constexpr size_t kNullVector = ~static_cast<size_t>(0);
void for_each_row_in_key_order(const TableVectors& vectors,
                               void (*visit)(int64 key, size_t index, void* arg), void* arg);

}  // namespace simjoin::pg
