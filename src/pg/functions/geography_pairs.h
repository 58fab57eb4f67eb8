// Deciding the engine's candidates of a join of PostGIS geography points as PostGIS does: the
// points read as the unit vectors of their normals (pg/functions/postgis_points.h), the engine
// joins those within the chord that every pair within eps metres on the spheroid keeps
// (engine/bounds/geodetic_bound.h), and each candidate is decided by PostGIS's own
// ST_DWithin(a, b, eps) (those within the certain chord of engine/bounds/certain_bound.h without
// asking), its distance by ST_Distance(a, b): the rows of PostGIS's own join.
#pragma once

#include "engine/aggregates/neighbour_stats.h"
#include "engine/pair_sink.h"
#include "engine/parallel/batch_pipeline.h"
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
  // ST_Distance(a, b, true) of left point i and right point j, in metres. Calls PostGIS.
  double distance(size_t i, size_t j) const;
  // The engine distance on the unit normals within which every pair at most d metres apart lies
  // (geodetic_candidate_bound): the kNN search's reach (engine/knn/measured_knn.h).
  double reach(double d) const;

 private:
  const Datum* left_;
  const Datum* right_;
  double eps_, engine_eps_ = 0.0, certain_ = -1.0, min_radius_ = 0.0;
  Oid dwithin_ = InvalidOid, distance_ = InvalidOid;
};

// The engine's candidates as PostGIS decides them (GeographyPairs::decide), passed on to `inner`
// with their distances in metres. On the backend's thread, as every sink is called.
class GeographyFilterSink : public PairSink {
 public:
  GeographyFilterSink(const GeographyPairs& pairs, PairSink& inner)
      : pairs_(pairs), inner_(inner) {}
  bool consume(const PairBatch& batch) override;
  bool keep_going() override { return inner_.keep_going(); }
  void progress(std::uint64_t candidates_done) override { inner_.progress(candidates_done); }

 private:
  const GeographyPairs& pairs_;
  PairSink& inner_;
  OwnedPairBatch decided_;  // the pairs of the batch that PostGIS keeps, in metres
};

// The aggregates' JoinRunner (neighbour statistics, DBSCAN) on geography: the join where
// simjoin.device routes it (run_engine), each candidate decided by `pairs`. Inside cpp_guard.
JoinRunner geography_runner(const GeographyPairs& pairs);

}  // namespace simjoin::pg
