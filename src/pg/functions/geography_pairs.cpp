#include "pg/functions/geography_pairs.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

#include <cmath>

#include "engine/bounds/certain_bound.h"
#include "engine/bounds/geodetic_bound.h"
#include "pg/scan/keys/keys.h"

namespace simjoin::pg {

namespace {

// PostGIS's function `name`(args) in the schema of its type `geography`.
Oid postgis_function(Oid geography, const char* name, int nargs, const Oid* args) {
  HeapTuple type = SearchSysCache1(TYPEOID, ObjectIdGetDatum(geography));
  if (!HeapTupleIsValid(type)) return InvalidOid;
  const Oid nsp = reinterpret_cast<Form_pg_type>(GETSTRUCT(type))->typnamespace;
  ReleaseSysCache(type);
  List* qualified = list_make2(makeString(get_namespace_name(nsp)), makeString(pstrdup(name)));
  return LookupFuncName(qualified, nargs, args, true);
}

}  // namespace

GeographyPairs::GeographyPairs(Oid geography, const TableVectors& left,
                               const TableVectors& right, double eps)
    : left_(left.values), right_(right.values), eps_(eps) {
  const Oid dwithin_args[4] = {geography, geography, FLOAT8OID, BOOLOID};
  const Oid distance_args[3] = {geography, geography, BOOLOID};
  dwithin_ = postgis_function(geography, "st_dwithin", 4, dwithin_args);
  distance_ = postgis_function(geography, "st_distance", 3, distance_args);
  if (!OidIsValid(dwithin_) || !OidIsValid(distance_))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
                    errmsg("simjoin: PostGIS's st_dwithin(geography, geography, float8, boolean) "
                           "and st_distance(geography, geography, boolean) were not found")));
  double min_radius, max_radius;
  cs::geography_radii(geography, distance_, left.srid, &min_radius, &max_radius);
  engine_eps_ = geodetic_candidate_bound(eps, min_radius);
  certain_ = geodetic_certain_bound(eps, max_radius);
}

bool GeographyPairs::decide(size_t i, size_t j, double chord, double* distance) const {
  const Datum a = left_[i], b = right_[j];
  if (!(chord <= certain_) &&
      !DatumGetBool(OidFunctionCall4(dwithin_, a, b, Float8GetDatum(eps_), BoolGetDatum(true))))
    return false;
  *distance = DatumGetFloat8(OidFunctionCall3(distance_, a, b, BoolGetDatum(true)));
  return true;
}

}  // namespace simjoin::pg
