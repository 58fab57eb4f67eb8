// The keys of a table's rows in the functions over tables (similarity_join and its family). An
// integer key (smallint, integer, bigint) is read as int8 and is its own value. A key of any
// other type with a btree ordering (uuid, text, numeric, ...; the polymorphic forms' key_type)
// is kept as a Datum, and the rows carry its rank in the type's order instead (equal keys one
// rank), so that everything that orders or compares keys (ties to the smaller key, unique pairs
// as l.key < r.key, rows in key order) works on int64 alike; key_datum turns a rank back into
// the key.
#pragma once

extern "C" {
#include "postgres.h"
}

#include <cstddef>

namespace simjoin::pg {

struct TableColumns;
struct TableVectors;

// A table's keys of another type than an integer, by reading order, then (rank_keys) by rank.
struct KeyValues {
  Datum* values;
  size_t n;
  size_t capacity;
  int16 typlen;
  bool typbyval;
  MemoryContext context;  // where the keys are copied (the rows' own context is reset each row)
};

// Whether the columns' keys are read as Datums (a key_type was asked for).
bool keys_by_rank(const TableColumns& columns);

// Before the first row: room for keys of another type, in CurrentMemoryContext.
void begin_keys(const TableColumns& columns, TableVectors* out);

// The key of a row just read; ERROR naming table and key column when NULL. Integer keys: the
// value; others: the row's position in out->key_values (made a rank by rank_keys).
int64 row_key(Datum key, bool key_null, const TableColumns& columns, TableVectors* out);

// After the last row: every key (points' and NULL vectors') becomes its rank in the key type's
// btree order (equal keys one rank, one of their values kept); key_values then by rank.
void rank_keys(const TableColumns& columns, TableVectors* out);

// The key as the function returns it: int8 of an integer key, else the key's own Datum.
Datum key_datum(const TableVectors& vectors, int64 key);

// The key as messages show it (its type's output), palloc'd.
char* key_text(const TableColumns& columns, const TableVectors& vectors, int64 key);

// An error context line naming a row's key of another type (its text made only on an error):
// pushed onto error_context_stack by push_row_key_context, popped by the caller
// (error_context_stack = context.callback.previous).
struct RowKeyContext {
  const TableColumns* columns;
  const TableVectors* vectors;
  int64 key;
  ErrorContextCallback callback;
};
void push_row_key_context(RowKeyContext* context);

}  // namespace simjoin::pg
