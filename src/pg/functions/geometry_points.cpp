#include "pg/functions/geometry_points.h"

extern "C" {
#include "executor/tuptable.h"
}

#include <cmath>

#include "pg/scan/keys/keys.h"

namespace simjoin::pg {

namespace {

struct GeometryRows {
  const TableColumns* columns;
  TableVectors* out;
  TableVectorsBuilder* builder;
  bool srid_known;
  int32 srid;
  int64 srid_key;  // the first row of that SRID, for the message
};

void read_geometry_row(TupleTableSlot* slot, void* arg) {
  GeometryRows* rows = static_cast<GeometryRows*>(arg);
  const TableColumns& columns = *rows->columns;
  bool key_null, geometry_null;
  const Datum key = slot_getattr(slot, 1, &key_null);
  const Datum geometry = slot_getattr(slot, 2, &geometry_null);
  const int64 key_value = row_key(key, key_null, columns, rows->out);
  if (geometry_null) {  // noise, as ST_ClusterDBSCAN makes a NULL geometry
    rows->builder->append_null_key(key_value);
    return;
  }
  // Any finite coordinates, as simjoin_dbscan takes them from float8[] (and ST_ClusterDBSCAN).
  const cs::GeoShape shape = cs::parse_geometry(geometry, false, HUGE_VAL);
  if (shape.kind != cs::GeoShape::Point)
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                    errmsg("simjoin: the geometry of key %s in table \"%s\" is %s",
                           key_text(columns, *rows->out, key_value), columns.table_name,
                           shape.kind == cs::GeoShape::Empty
                               ? "empty"
                               : "not a point with finite coordinates"),
                    errhint("Column \"%s\" must hold points only.", columns.vector_column)));
  if (!rows->srid_known) {
    rows->srid_known = true;
    rows->srid = shape.srid;
    rows->srid_key = key_value;
  } else if (shape.srid != rows->srid) {
    ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
                    errmsg("simjoin: the geometries of table \"%s\" have different SRIDs: %d (key "
                           "%s) and %d (key %s)",
                           columns.table_name, rows->srid,
                           key_text(columns, *rows->out, rows->srid_key), shape.srid,
                           key_text(columns, *rows->out, key_value))));
  }
  double* point = rows->builder->append(key_value);
  point[0] = shape.xmin;
  point[1] = shape.ymin;
}

}  // namespace

void read_point_geometries(const TableColumns& columns, TableVectors* out) {
  *out = TableVectors{nullptr, nullptr, 0, 2, nullptr, 0};
  TableVectorsBuilder builder(out, columns.expected_rows);
  GeometryRows rows{&columns, out, &builder, false, 0, 0};
  begin_keys(columns, out);
  char* query = key_value_query(columns);
  for_each_query_row(query, read_geometry_row, &rows);
  pfree(query);
  rank_keys(columns, out);
  out->geometry = true;
  out->srid = rows.srid;
}

}  // namespace simjoin::pg
