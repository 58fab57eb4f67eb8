// Deciding the engine's candidates of a join of PostGIS geography points as PostGIS does: the
// points read as the unit vectors of their normals (pg/functions/postgis_points.h), the engine
// joins those within the chord that every pair within eps metres on the spheroid keeps
// (engine/bounds/geodetic_bound.h), and each candidate is decided by PostGIS's own
// ST_DWithin(a, b, eps) (those within the certain chord of engine/bounds/certain_bound.h without
// asking), its distance by ST_Distance(a, b): the rows of PostGIS's own join.
#pragma once

#include "pg/functions/table_vectors.h"

namespace simjoin::pg {

// Decides the candidates of a join of two geography sides within eps metres (use_spheroid true).
class GeographyPairs {
 public:
  // `geography`: the columns' type, which must be PostGIS's (its functions are found with the
  // custom scan's forms).
  GeographyPairs(Oid geography, const TableVectors& left, const TableVectors& right, double eps);
  // The engine's Euclidean eps on the unit normals (NaN: no pair can be within eps).
  double engine_eps() const { return engine_eps_; }
  // Whether left point i and right point j (engine distance `chord`) are within eps, and then
  // their distance. Calls PostGIS: in the backend, through pg_call.
  bool decide(size_t i, size_t j, double chord, double* distance) const;

 private:
  const Datum* left_;
  const Datum* right_;
  double eps_, engine_eps_ = 0.0, certain_ = -1.0;
  Oid dwithin_ = InvalidOid, distance_ = InvalidOid;
};

}  // namespace simjoin::pg
