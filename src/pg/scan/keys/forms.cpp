// The distance forms the SimilarityJoin custom scan recognizes, found by name and type in the
// catalogs (never by fixed OIDs): the form table and its lookups, and whether cube's and PostGIS's
// functions found with them compute what simjoin computes (the probes' results). The readers of
// their key values are pg/scan/keys/keys.cpp and one file per kind.
#include "pg/scan/keys/keys.h"
#include "pg/scan/keys/operator_probe.h"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace simjoin::pg::cs {

namespace {

struct FormEntry {
  Oid funcid;
  FormInfo form;
};

constexpr int kMaxForms = 64;
FormEntry forms[kMaxForms];
int form_count = 0;
bool forms_valid = false;

// Whether another extension's functions compute what simjoin computes (pg/scan/keys/operator_probe.h),
// asked by engine_is_exact: probed once after each rebuild of the forms (which forgets the
// results), when a plan first asks. Call inside cpp_guard.
class ProbeResult {
 public:
  template <typename Probe>
  bool matches(Probe probe) {  // runs the probe unless its result is known
    if (state_ == State::Unknown) state_ = probe() ? State::Match : State::Differ;
    return state_ == State::Match;
  }
  void forget() { state_ = State::Unknown; }

 private:
  enum class State { Unknown, Match, Differ } state_ = State::Unknown;
};

// contrib cube's functions and PostGIS's, found with the forms, and their probes' results.
CubeFunctions cube_functions;
PostgisFunctions postgis_functions;
ProbeResult cube_probe;
ProbeResult postgis_probe;
ProbeResult postgis_distance_probe;
ProbeResult postgis_knn_distance_probe;
GeographyFunctions geography_functions;

void add_form(Oid funcid, KeyKind kind, Metric metric, bool cosine = false, bool dwithin = false,
              bool float32 = false) {
  if (!OidIsValid(funcid) || form_count >= kMaxForms) return;
  for (int i = 0; i < form_count; ++i)
    if (forms[i].funcid == funcid) return;
  forms[form_count++] = FormEntry{funcid, FormInfo{kind, metric, cosine, dwithin, float32}};
}

// pg_extension.extnamespace of an installed extension (get_extension_schema is static in 15).
Oid extension_schema(const char* name) {
  const Oid ext = get_extension_oid(name, true);
  if (!OidIsValid(ext)) return InvalidOid;
  Oid result = InvalidOid;
  Relation rel = table_open(ExtensionRelationId, AccessShareLock);
  ScanKeyData key;
  ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
              ObjectIdGetDatum(ext));
  SysScanDesc scan = systable_beginscan(rel, ExtensionOidIndexId, true, nullptr, 1, &key);
  HeapTuple tuple = systable_getnext(scan);
  if (HeapTupleIsValid(tuple))
    result = reinterpret_cast<Form_pg_extension>(GETSTRUCT(tuple))->extnamespace;
  systable_endscan(scan);
  table_close(rel, AccessShareLock);
  return result;
}

Oid type_in(Oid nsp, const char* name) {
  return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum(name),
                         ObjectIdGetDatum(nsp));
}

List* qualified(const char* nspname, const char* name) {
  return list_make2(makeString(pstrdup(nspname)), makeString(pstrdup(name)));
}

Oid operator_function(const char* nspname, const char* op, Oid left, Oid right) {
  const Oid opno = OpernameGetOprid(qualified(nspname, op), left, right);
  return OidIsValid(opno) ? get_opcode(opno) : InvalidOid;
}

Oid function_oid(const char* nspname, const char* name, int nargs, const Oid* args) {
  return LookupFuncName(qualified(nspname, name), nargs, args, true);
}

// Adds the operator and the function of one metric for one argument type; returns the
// function's OID (InvalidOid when absent).
Oid add_pair(const char* nspname, Oid type, const char* op, const char* fname, KeyKind kind,
             Metric metric, bool cosine = false, bool float32 = false) {
  const Oid args[2] = {type, type};
  add_form(operator_function(nspname, op, type, type), kind, metric, cosine, false, float32);
  const Oid function = fname ? function_oid(nspname, fname, 2, args) : InvalidOid;
  add_form(function, kind, metric, cosine, false, float32);
  return function;
}

void build_forms() {
  // Valid from the start: a catalog invalidation that arrives while the forms are looked up
  // clears the flag again, so the next use rebuilds; an ERROR halfway leaves it cleared.
  forms_valid = true;
  PG_TRY();
  {
    form_count = 0;
    cube_functions = CubeFunctions{{InvalidOid, InvalidOid, InvalidOid}, InvalidOid, InvalidOid,
                                   InvalidOid};
    cube_probe.forget();
    postgis_functions = PostgisFunctions{InvalidOid, InvalidOid, InvalidOid, InvalidOid};
    postgis_probe.forget();
    postgis_distance_probe.forget();
    postgis_knn_distance_probe.forget();
    set_geography_functions(InvalidOid, InvalidOid);
    geography_functions = GeographyFunctions{};
    // simjoin's own operators and functions on real[] and float8[].
    Oid nsp = extension_schema("simjoin");
    if (OidIsValid(nsp)) {
      const char* nspname = get_namespace_name(nsp);
      // By function: an operator is found through the function it calls, whatever its name
      // (<=> called chebyshev_distance in version 1.0 and cosine_distance from 1.1 on).
      const struct {
        const char* function;
        Metric metric;
      } metrics[] = {{"euclidean_distance", Metric::Euclidean},
                     {"manhattan_distance", Metric::Manhattan},
                     {"chebyshev_distance", Metric::Chebyshev},
                     {"cosine_distance", Metric::Cosine}};
      for (Oid type : {FLOAT8ARRAYOID, FLOAT4ARRAYOID}) {
        const Oid args[2] = {type, type};
        for (const auto& m : metrics)
          add_form(function_oid(nspname, m.function, 2, args), KEY_FLOAT_ARRAY, m.metric);
      }
    }
    // contrib cube.
    nsp = extension_schema("cube");
    if (OidIsValid(nsp)) {
      const Oid cube = type_in(nsp, "cube");
      const char* nspname = get_namespace_name(nsp);
      if (OidIsValid(cube)) {
        const Oid two_cubes[2] = {cube, cube};
        const Oid enlarge_args[3] = {cube, FLOAT8OID, INT4OID};
        const struct {
          const char* op;
          const char* function;
          Metric metric;
        } metrics[] = {{"<->", "cube_distance", Metric::Euclidean},
                       {"<#>", "distance_taxicab", Metric::Manhattan},
                       {"<=>", "distance_chebyshev", Metric::Chebyshev}};
        for (const auto& m : metrics)
          cube_functions.distance[static_cast<int>(m.metric)] =
              add_pair(nspname, cube, m.op, m.function, KEY_CUBE, m.metric);
        cube_functions.enlarge = function_oid(nspname, "cube_enlarge", 3, enlarge_args);
        cube_functions.contains = function_oid(nspname, "cube_contains", 2, two_cubes);
        cube_functions.contained = function_oid(nspname, "cube_contained", 2, two_cubes);
      }
    }
    // built-in point <-> point.
    add_pair("pg_catalog", POINTOID, "<->", "point_distance", KEY_POINT, Metric::Euclidean);
    // pgvector.
    nsp = extension_schema("vector");
    if (OidIsValid(nsp)) {
      const Oid vec = type_in(nsp, "vector");
      const char* nspname = get_namespace_name(nsp);
      if (OidIsValid(vec)) {
        add_pair(nspname, vec, "<->", "l2_distance", KEY_PGVECTOR, Metric::Euclidean, false, true);
        add_pair(nspname, vec, "<+>", "l1_distance", KEY_PGVECTOR, Metric::Manhattan, false, true);
        add_pair(nspname, vec, "<=>", "cosine_distance", KEY_PGVECTOR, Metric::Euclidean, true,
                 true);
      }
    }
    // PostGIS ST_DWithin(geometry, geometry, float8).
    nsp = extension_schema("postgis");
    if (OidIsValid(nsp)) {
      const Oid geom = type_in(nsp, "geometry");
      if (OidIsValid(geom)) {
        const Oid args[3] = {geom, geom, FLOAT8OID};
        const Oid xy[2] = {FLOAT8OID, FLOAT8OID};
        const char* nspname = get_namespace_name(nsp);
        postgis_functions.dwithin = function_oid(nspname, "st_dwithin", 3, args);
        postgis_functions.make_point = function_oid(nspname, "st_makepoint", 2, xy);
        add_form(postgis_functions.dwithin, KEY_GEOMETRY, Metric::Euclidean, false, true, false);
        // ST_Distance(a, b) <= d and a <-> b <= d: the engine finds candidates within a widened
        // bound and PostGIS's own function decides every pair (engine_is_exact).
        const Oid pair_args[2] = {geom, geom};
        postgis_functions.distance = function_oid(nspname, "st_distance", 2, pair_args);
        add_form(postgis_functions.distance, KEY_GEOMETRY, Metric::Euclidean);
        postgis_functions.knn_distance = operator_function(nspname, "<->", geom, geom);
        add_form(postgis_functions.knn_distance, KEY_GEOMETRY, Metric::Euclidean);
      }
      // Geography: ST_DWithin(g, g, d[, use_spheroid]), ST_Distance(g, g[, use_spheroid]) <= d
      // and g <-> g <= d on points; the engine finds candidates (pg/scan/keys/geography.cpp)
      // and PostGIS decides every pair (engine_is_exact is false).
      const Oid geog = type_in(nsp, "geography");
      if (OidIsValid(geog)) {
        const char* nspname = get_namespace_name(nsp);
        const Oid dwithin_args[4] = {geog, geog, FLOAT8OID, BOOLOID};
        const Oid distance_args[3] = {geog, geog, BOOLOID};
        const Oid distance = function_oid(nspname, "st_distance", 3, distance_args);
        set_geography_functions(geog, distance);
        geography_functions = GeographyFunctions{
            geog, function_oid(nspname, "st_dwithin", 4, dwithin_args), distance};
        add_form(function_oid(nspname, "st_dwithin", 3, dwithin_args), KEY_GEOGRAPHY,
                 Metric::Euclidean, false, true);
        add_form(geography_functions.dwithin, KEY_GEOGRAPHY, Metric::Euclidean, false, true);
        add_form(distance, KEY_GEOGRAPHY, Metric::Euclidean);
        add_form(function_oid(nspname, "st_distance", 2, distance_args), KEY_GEOGRAPHY,
                 Metric::Euclidean);
        add_form(operator_function(nspname, "<->", geog, geog), KEY_GEOGRAPHY, Metric::Euclidean);
      }
    }
  }
  PG_CATCH();
  {
    forms_valid = false;
    PG_RE_THROW();
  }
  PG_END_TRY();
}

}  // namespace

void invalidate_forms(Datum, int, uint32) { forms_valid = false; }

bool lookup_distance_function(Oid funcid, FormInfo* form) {
  if (!forms_valid) build_forms();
  for (int i = 0; i < form_count; ++i) {
    if (forms[i].funcid == funcid) {
      *form = forms[i].form;
      return true;
    }
  }
  return false;
}

const char* form_label(const FormInfo& form) {
  switch (form.kind) {
    case KEY_FLOAT_ARRAY:
      return form.metric == Metric::Euclidean   ? "euclidean"
             : form.metric == Metric::Manhattan ? "manhattan"
             : form.metric == Metric::Cosine    ? "cosine"
                                                : "chebyshev";
    case KEY_CUBE:
      return form.metric == Metric::Euclidean   ? "cube euclidean"
             : form.metric == Metric::Manhattan ? "cube taxicab"
                                                : "cube chebyshev";
    case KEY_POINT:
      return "point euclidean";
    case KEY_PGVECTOR:
      return form.cosine                        ? "pgvector cosine"
             : form.metric == Metric::Manhattan ? "pgvector l1"
                                                : "pgvector l2";
    case KEY_GEOMETRY:
      return form.dwithin ? "postgis st_dwithin" : "postgis distance";
    case KEY_GEOGRAPHY:
      return form.dwithin ? "postgis geography st_dwithin" : "postgis geography distance";
  }
  return "?";
}

bool engine_is_exact(const FormInfo& form) {
  if (form.kind == KEY_FLOAT_ARRAY) return true;
  if (form.kind != KEY_CUBE && form.kind != KEY_GEOMETRY) return false;
  if (!forms_valid) build_forms();
  if (form.kind == KEY_CUBE)
    return cube_probe.matches([] { return cube_functions_match(cube_functions); });
  // The probe shows ST_DWithin's arithmetic only: ST_Distance and <-> are rechecked on every pair.
  return form.dwithin &&
         postgis_probe.matches([] { return postgis_dwithin_matches(postgis_functions); });
}

GeographyFunctions postgis_geography_functions() {
  if (!forms_valid) build_forms();
  return geography_functions;
}

Oid exact_postgis_distance() {
  if (!forms_valid) build_forms();
  return postgis_distance_probe.matches([] {
           return postgis_distance_matches(postgis_functions, postgis_functions.distance);
         })
             ? postgis_functions.distance
             : InvalidOid;
}

bool exact_postgis_distance_function(Oid funcid) {
  if (!forms_valid) build_forms();
  if (!OidIsValid(funcid)) return false;
  if (funcid == postgis_functions.distance) return OidIsValid(exact_postgis_distance());
  return funcid == postgis_functions.knn_distance &&
         postgis_knn_distance_probe.matches([] {
           return postgis_distance_matches(postgis_functions, postgis_functions.knn_distance);
         });
}

bool exact_point_distance() {
  static ProbeResult point_probe;  // a built-in operator: never forgotten
  return point_probe.matches([] { return point_distance_matches(); });
}

CubeBoxRole cube_box_role(Oid funcid) {
  if (!forms_valid) build_forms();
  if (!OidIsValid(funcid)) return CUBE_BOX_NONE;
  if (funcid == cube_functions.enlarge) return CUBE_BOX_ENLARGE;
  if (funcid == cube_functions.contains) return CUBE_BOX_CONTAINS;
  if (funcid == cube_functions.contained) return CUBE_BOX_CONTAINED;
  return CUBE_BOX_NONE;
}

double engine_bound(const FormInfo& form, double eps, const KeyRef& ref) {
  if (form.kind == KEY_GEOGRAPHY) return geography_bound(eps, ref);
  return widened_bound(eps, ref.dim, form.float32, form.cosine);
}

}  // namespace simjoin::pg::cs
