// Reading a table's PostGIS point geometries as 2-D points (x, y) without depending on PostGIS:
// the serialized geometry is parsed here (pg/scan/keys/postgis.cpp's parse_geometry).
#pragma once

#include "pg/functions/table_vectors.h"

namespace simjoin::pg {

// Reads (key, x, y) of every row through SPI (SELECT privilege and row-level security apply);
// NULL geometries go to null_keys. ERROR naming table and key on a geometry that is not a 2-D
// point with finite coordinates (EMPTY included), and on SRIDs that differ between rows.
void read_point_geometries(const TableColumns& columns, TableVectors* out);

}  // namespace simjoin::pg
