// Reading a table's PostGIS points without depending on PostGIS: the serialized values are
// parsed here (pg/scan/keys/postgis.cpp's parse_geometry). Geometries as 2-D points (x, y);
// geographies as the unit vectors of their normals (engine/bounds/geodetic_bound.h), each
// point's value kept for PostGIS's decisions (pg/functions/geography_pairs.h).
#pragma once

#include "pg/functions/table_vectors.h"

namespace simjoin::pg {

// Reads (key, point) of every row through SPI (SELECT privilege and row-level security apply);
// NULL values go to null_keys. ERROR naming table and key on a value that is not a point (a
// geometry: with finite coordinates, EMPTY included), and on SRIDs that differ between rows.
void read_point_geometries(const TableColumns& columns, TableVectors* out);
void read_point_geographies(const TableColumns& columns, TableVectors* out);

}  // namespace simjoin::pg
