#include "pg/functions/geography_pairs.h"

extern "C" {
#include "fmgr.h"
}

#include "engine/bounds/certain_bound.h"
#include "engine/bounds/geodetic_bound.h"
#include "pg/dispatch/dispatch.h"
#include "pg/pg_guard.h"
#include "pg/scan/keys/keys.h"

namespace simjoin::pg {

GeographyPairs::GeographyPairs(Oid geography, const TableVectors& left,
                               const TableVectors& right, double eps)
    : left_(left.values), right_(right.values), eps_(eps) {
  const cs::GeographyFunctions postgis = cs::postgis_geography_functions();
  if (postgis.type != geography || !OidIsValid(postgis.dwithin) || !OidIsValid(postgis.distance))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
                    errmsg("simjoin: PostGIS's st_dwithin(geography, geography, float8, boolean) "
                           "and st_distance(geography, geography, boolean) were not found")));
  dwithin_ = postgis.dwithin;
  distance_ = postgis.distance;
  double max_radius;
  cs::geography_radii(left.srid, &min_radius_, &max_radius);
  engine_eps_ = geodetic_candidate_bound(eps, min_radius_);
  certain_ = geodetic_certain_bound(eps, max_radius);
}

bool GeographyPairs::decide(size_t i, size_t j, double chord, double* distance) const {
  const Datum a = left_[i], b = right_[j];
  if (!(chord <= certain_) &&
      !DatumGetBool(OidFunctionCall4(dwithin_, a, b, Float8GetDatum(eps_), BoolGetDatum(true))))
    return false;
  *distance = this->distance(i, j);
  return true;
}

double GeographyPairs::distance(size_t i, size_t j) const {
  return DatumGetFloat8(OidFunctionCall3(distance_, left_[i], right_[j], BoolGetDatum(true)));
}

double GeographyPairs::reach(double d) const { return geodetic_candidate_bound(d, min_radius_); }

bool GeographyFilterSink::consume(const PairBatch& batch) {
  decided_.clear();
  pg_call([&] {
    for (size_t k = 0; k < batch.size; ++k) {
      double metres;
      if (!pairs_.decide(batch.left[k], batch.right[k], batch.distance[k], &metres)) continue;
      decided_.left.push_back(batch.left[k]);
      decided_.right.push_back(batch.right[k]);
      decided_.distance.push_back(metres);
    }
  });
  if (decided_.size() == 0) return inner_.keep_going();
  return inner_.consume(decided_.view());
}

JoinRunner geography_runner(const GeographyPairs& pairs) {
  return [&pairs](const PointSet& left, const PointSet* right, const JoinSpec& spec,
                  PairSink& sink) {
    GeographyFilterSink decided(pairs, sink);
    return run_engine(left, right, spec, decided);
  };
}

}  // namespace simjoin::pg
