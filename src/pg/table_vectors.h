// Reading a table's (key, vector) rows through SPI, so that privileges and row-level security
// apply exactly as they would to the user's own SELECT.
#pragma once

extern "C" {
#include "postgres.h"
#include "access/attnum.h"
}

namespace simjoin::pg {

// Which columns of which relation hold the keys and the vectors.
struct TableColumns {
  Oid relid;
  char table_name[NAMEDATALEN];     // for messages
  char qualified_name[NAMEDATALEN * 2 + 8];
  AttrNumber vector_attnum;
  char vector_column[NAMEDATALEN];
  AttrNumber key_attnum;
  char key_column[NAMEDATALEN];
};

// Resolves the columns: `vector_column` NULL means the table's only real[]/float8[] column,
// `key_column` NULL its single-column integer primary key. ERROR with a hint when ambiguous.
// `argument_prefix` ("left" or "right") names the function's arguments in hints.
void resolve_table_columns(Oid relid, const char* vector_column, const char* key_column,
                           const char* argument_prefix, TableColumns* out);

// The rows whose vector is not NULL: keys[i] and coords[i * dim .. i * dim + dim - 1], allocated
// (huge) in CurrentMemoryContext.
struct TableVectors {
  int64* keys;
  double* coords;
  size_t n;
  int dim;  // 0 until the first vector is read
};

// Reads every row through SPI (SELECT privilege and row-level security apply). `dim` > 0 requires
// that dimension; otherwise the first vector sets it. ERROR naming table, key and problem on bad
// vectors or NULL keys.
void read_table_vectors(const TableColumns& columns, int dim, TableVectors* out);

}  // namespace simjoin::pg
