#include "pg/functions/postgis_points.h"

extern "C" {
#include "executor/tuptable.h"
#include "fmgr.h"
}

#include <cmath>

#include "pg/scan/keys/keys.h"

namespace simjoin::pg {

namespace {

struct PointRows {
  const TableColumns* columns;
  TableVectors* out;
  TableVectorsBuilder* builder;
  bool geography;
  MemoryContext keep;   // geography: where the points' values are kept
  size_t capacity;      // of out->values
  bool srid_known;
  int32 srid;
  int64 srid_key;  // the first row of that SRID, for the message
};

// Parses a geometry point into (x, y) or a geography point into its unit normal; false (with
// *what set) when the value is not such a point.
bool parse_point(const PointRows& rows, Datum value, double* point, int32* srid,
                 const char** what) {
  if (rows.geography) {
    *what = "not a point";
    return cs::geography_point(value, point, srid) > 0;
  }
  // Any finite coordinates, as simjoin_dbscan takes them from float8[] (and ST_ClusterDBSCAN).
  const cs::GeoShape shape = cs::parse_geometry(value, false, HUGE_VAL);
  *what = shape.kind == cs::GeoShape::Empty ? "empty" : "not a point with finite coordinates";
  point[0] = shape.xmin;
  point[1] = shape.ymin;
  *srid = shape.srid;
  return shape.kind == cs::GeoShape::Point;
}

// A geography point's value, detoasted and copied where the rows are kept.
void keep_value(PointRows* rows, Datum value) {
  TableVectors* out = rows->out;
  const MemoryContext previous = MemoryContextSwitchTo(rows->keep);
  if (out->n > rows->capacity) {
    rows->capacity = rows->capacity ? 2 * rows->capacity : 1024;
    out->values = static_cast<Datum*>(
        out->values ? repalloc_huge(out->values, sizeof(Datum) * rows->capacity)
                    : MemoryContextAllocHuge(rows->keep, sizeof(Datum) * rows->capacity));
  }
  out->values[out->n - 1] = PointerGetDatum(
      pg_detoast_datum_copy(reinterpret_cast<struct varlena*>(DatumGetPointer(value))));
  MemoryContextSwitchTo(previous);
}

void read_point_row(TupleTableSlot* slot, void* arg) {
  PointRows* rows = static_cast<PointRows*>(arg);
  const TableColumns& columns = *rows->columns;
  bool key_null, value_null;
  const Datum key = slot_getattr(slot, 1, &key_null);
  const Datum value = slot_getattr(slot, 2, &value_null);
  const int64 key_value = row_key(key, key_null, columns, rows->out);
  if (value_null) {  // noise, as ST_ClusterDBSCAN makes a NULL geometry; no pair either
    rows->builder->append_null_key(key_value);
    return;
  }
  double point[3];
  int32 srid = 0;
  const char* what = nullptr;
  if (!parse_point(*rows, value, point, &srid, &what))
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                    errmsg("simjoin: the %s of key %s in table \"%s\" is %s",
                           rows->geography ? "geography" : "geometry",
                           key_text(columns, *rows->out, key_value), columns.table_name, what),
                    errhint("Column \"%s\" must hold points only.", columns.vector_column)));
  if (!rows->srid_known) {
    rows->srid_known = true;
    rows->srid = srid;
    rows->srid_key = key_value;
  } else if (srid != rows->srid) {
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                    errmsg("simjoin: the %s of table \"%s\" have different SRIDs: %d (key %s) "
                           "and %d (key %s)",
                           rows->geography ? "geographies" : "geometries", columns.table_name,
                           rows->srid, key_text(columns, *rows->out, rows->srid_key), srid,
                           key_text(columns, *rows->out, key_value))));
  }
  double* coords = rows->builder->append(key_value);
  for (int j = 0; j < rows->out->dim; ++j) coords[j] = point[j];
  if (rows->geography) keep_value(rows, value);
}

void read_points(const TableColumns& columns, TableVectors* out, bool geography) {
  *out = TableVectors{nullptr, nullptr, 0, geography ? 3 : 2, nullptr, 0};
  TableVectorsBuilder builder(out, columns.expected_rows);
  PointRows rows{&columns, out, &builder, geography, CurrentMemoryContext, 0, false, 0, 0};
  begin_keys(columns, out);
  char* query = key_value_query(columns);
  for_each_query_row(query, read_point_row, &rows);
  pfree(query);
  rank_keys(columns, out);
  out->geometry = true;
  out->srid = rows.srid;
}

}  // namespace

void read_point_geometries(const TableColumns& columns, TableVectors* out) {
  read_points(columns, out, false);
}

void read_point_geographies(const TableColumns& columns, TableVectors* out) {
  read_points(columns, out, true);
}

}  // namespace simjoin::pg
