// The distance forms the SimilarityJoin custom scan recognizes, found by name and type in the
// catalogs (never by fixed OIDs), and the readers of their key values.
#include "custom_scan_internal.h"

#include "operator_probe.h"

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
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/geo_decls.h"
}

#include <cmath>
#include <cstring>

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

// contrib cube's functions, and whether they compute what simjoin computes (probed once after
// each rebuild of the forms, when a plan first asks).
CubeFunctions cube_functions;
enum class Probe { Unknown, Match, Differ } cube_probe = Probe::Unknown;
// PostGIS's likewise.
PostgisFunctions postgis_functions;
Probe postgis_probe = Probe::Unknown;

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
    cube_probe = Probe::Unknown;
    postgis_functions = PostgisFunctions{InvalidOid, InvalidOid};
    postgis_probe = Probe::Unknown;
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

void invalidate_forms(Datum, int, uint32) { forms_valid = false; }

// ---- key readers ----------------------------------------------------------------------------

// Coordinates beyond this magnitude could overflow the engine's sums of squares: wild.
constexpr double kHuge = 1e150;

inline bool coordinate_ok(double x) { return std::isfinite(x) && std::fabs(x) <= kHuge; }

// The bytes of a varlena without copying it when it is only short-headered; detoasts otherwise.
const char* varlena_data(Datum value, Size* size) {
  struct varlena* v =
      pg_detoast_datum_packed(reinterpret_cast<struct varlena*>(DatumGetPointer(value)));
  *size = VARSIZE_ANY_EXHDR(v);
  return VARDATA_ANY(v);
}

// contrib cube: int32 vl_len_; uint32 header (bit 31: point, low 31 bits: dim); double x[].
constexpr uint32 kCubePointBit = 0x80000000u;
constexpr uint32 kCubeDimMask = 0x7fffffffu;

// PostGIS GSERIALIZED (v2): srid[3], gflags, [8 bytes extended flags], [float bbox], then the
// geometry: uint32 type, uint32 npoints, double coords[]. Flags of version 2.
constexpr uint8 kG2Z = 0x01, kG2M = 0x02, kG2BBox = 0x04, kG2Geodetic = 0x08,
                kG2Extended = 0x10, kG2Version = 0x40;
constexpr uint32 kPointType = 1;

struct GeoPoint {
  bool ok;
  int32 srid;
  double x, y;
};

GeoPoint parse_geometry(Datum value) {
  GeoPoint p{false, 0, 0, 0};
  Size size;
  const char* data = varlena_data(value, &size);
  if (size < 4) return p;
  const uint8* bytes = reinterpret_cast<const uint8*>(data);
  const uint8 flags = bytes[3];
  if (!(flags & kG2Version)) return p;  // not the PostGIS 3 layout: leave it to PostGIS
  if (flags & kG2Geodetic) return p;
  int32 srid = (int32(bytes[0]) << 16) | (int32(bytes[1]) << 8) | int32(bytes[2]);
  srid = (srid << 11) >> 11;  // sign-extend the 21 stored bits
  Size offset = 4;
  if (flags & kG2Extended) offset += 8;
  const int ndims = 2 + ((flags & kG2Z) ? 1 : 0) + ((flags & kG2M) ? 1 : 0);
  if (flags & kG2BBox) offset += 2 * ndims * sizeof(float);
  if (offset + 8 + 2 * sizeof(double) > size) return p;
  uint32 type, npoints;
  std::memcpy(&type, data + offset, 4);
  std::memcpy(&npoints, data + offset + 4, 4);
  if (type != kPointType || npoints != 1) return p;
  std::memcpy(&p.x, data + offset + 8, sizeof(double));
  std::memcpy(&p.y, data + offset + 8 + sizeof(double), sizeof(double));
  p.srid = srid;
  p.ok = true;
  return p;
}

// Reads a cube's coordinates if it is a point (or a degenerate box); returns its dim or -1.
int cube_point(Datum value, double* out, int want_dim) {
  Size size;
  const char* data = varlena_data(value, &size);
  if (size < 4) return -1;
  uint32 header;
  std::memcpy(&header, data, 4);
  const int dim = static_cast<int>(header & kCubeDimMask);
  const bool point = (header & kCubePointBit) != 0;
  const Size need = 4 + sizeof(double) * dim * (point ? 1 : 2);
  if (size < need || dim == 0) return -1;
  if (want_dim >= 0 && dim != want_dim) return -1;
  const char* coords = data + 4;
  for (int i = 0; i < dim; ++i) {
    double ll;
    std::memcpy(&ll, coords + sizeof(double) * i, sizeof(double));
    if (!point) {
      double ur;
      std::memcpy(&ur, coords + sizeof(double) * (dim + i), sizeof(double));
      if (!(ll == ur)) return -1;  // a box (or NaN): cube's box distance, leave it to cube
    }
    if (!coordinate_ok(ll)) return -1;
    if (out) out[i] = ll;
  }
  return dim;
}

// pgvector: int32 vl_len_; int16 dim; int16 unused; float4 x[dim].
int pgvector_point(Datum value, double* out, int want_dim, bool cosine, bool* zero) {
  Size size;
  const char* data = varlena_data(value, &size);
  if (size < 4) return -1;
  int16 dim;
  std::memcpy(&dim, data, 2);
  if (dim <= 0 || size < 4 + sizeof(float) * Size(dim)) return -1;
  if (want_dim >= 0 && dim != want_dim) return -1;
  const char* coords = data + 4;
  double norm2 = 0;
  for (int i = 0; i < dim; ++i) {
    float f;
    std::memcpy(&f, coords + sizeof(float) * i, sizeof(float));
    const double x = f;
    if (!std::isfinite(x)) return -1;
    norm2 += x * x;
    if (out) out[i] = x;
  }
  // pgvector's cosine sums a.b, |a|^2 and |b|^2 in single precision. Where |a|^2 passes
  // FLT_MAX the sums overflow (its distance is then 1 or NaN), and where it is tiny the products
  // fall into float's subnormals and lose their digits ([3e-23,0] and [3e-23,1e-23] are at its
  // cosine distance 0): outside [1e-30, 1e38] its result is not the cosine within the engine
  // bound's margin, so such vectors are wild (its own operator decides them).
  if (cosine && norm2 != 0 && !(norm2 >= 1e-30 && norm2 <= 1e38)) return -1;
  if (zero) *zero = norm2 == 0;
  if (cosine && out && norm2 > 0) {
    const double norm = std::sqrt(norm2);
    for (int i = 0; i < dim; ++i) out[i] /= norm;
  }
  return dim;
}

// real[] / float8[]: one dimension, no NULL elements, float4 or float8 elements. Read in place,
// also from a value with a short header (arrays of small vectors are stored so): its fields
// after the header are those of ArrayType after vl_len_, unaligned, so they are copied out.
int array_point(Datum value, double* out, int want_dim) {
  Size size;
  const char* data = varlena_data(value, &size);
  struct Head {  // ArrayType after vl_len_, then dims[1] (lbound[1] follows)
    int32 ndim;
    int32 dataoffset;  // non-zero: a NULL bitmap follows (NULL elements)
    Oid elemtype;
    int32 dim;
  } head;
  if (size < sizeof head) return -1;
  std::memcpy(&head, data, sizeof head);
  if (head.ndim != 1 || head.dataoffset != 0) return -1;
  const Size element = head.elemtype == FLOAT8OID ? sizeof(double)
                       : head.elemtype == FLOAT4OID ? sizeof(float)
                                                     : 0;
  const int dim = head.dim;
  if (element == 0 || dim <= 0 || (want_dim >= 0 && dim != want_dim)) return -1;
  const Size offset = ARR_OVERHEAD_NONULLS(1) - VARHDRSZ;  // the elements, after the header
  if (size < offset + element * static_cast<Size>(dim)) return -1;
  const char* x = data + offset;
  for (int i = 0; i < dim; ++i) {
    double coordinate;
    if (element == sizeof(double)) {
      std::memcpy(&coordinate, x + sizeof(double) * i, sizeof(double));
    } else {
      float f;
      std::memcpy(&f, x + sizeof(float) * i, sizeof(float));
      coordinate = f;
    }
    if (!coordinate_ok(coordinate)) return -1;
    if (out) out[i] = coordinate;
  }
  return dim;
}

}  // namespace

Datum detoast_key(const FormInfo& form, Datum value) {
  if (form.kind == KEY_POINT) return value;  // fixed length, not a varlena
  return PointerGetDatum(
      pg_detoast_datum_packed(reinterpret_cast<struct varlena*>(DatumGetPointer(value))));
}

void register_form_invalidation() {
  CacheRegisterSyscacheCallback(PROCOID, invalidate_forms, 0);
  CacheRegisterSyscacheCallback(OPEROID, invalidate_forms, 0);
  CacheRegisterSyscacheCallback(TYPEOID, invalidate_forms, 0);
}

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
      return "postgis st_dwithin";
  }
  return "?";
}

KeyStatus classify_key(const FormInfo& form, Datum value, KeyRef* ref) {
  int dim = -1;
  switch (form.kind) {
    case KEY_FLOAT_ARRAY:
      dim = array_point(value, nullptr, ref->dim);
      break;
    case KEY_CUBE:
      dim = cube_point(value, nullptr, ref->dim);
      break;
    case KEY_POINT: {
      const Point* p = DatumGetPointP(value);
      dim = coordinate_ok(p->x) && coordinate_ok(p->y) ? 2 : -1;
      break;
    }
    case KEY_PGVECTOR: {
      bool zero = false;
      dim = pgvector_point(value, nullptr, ref->dim, form.cosine, &zero);
      // pgvector's cosine distance with a zero vector is NaN: it never satisfies <= eps.
      if (dim > 0 && form.cosine && zero) return KEY_SKIP;
      break;
    }
    case KEY_GEOMETRY: {
      const GeoPoint p = parse_geometry(value);
      if (!p.ok || !coordinate_ok(p.x) || !coordinate_ok(p.y)) return KEY_WILD;
      if (ref->srid_set && p.srid != ref->srid) return KEY_WILD;
      if (!ref->srid_set) {
        ref->srid = p.srid;
        ref->srid_set = true;
      }
      dim = 2;
      break;
    }
  }
  if (dim <= 0) return KEY_WILD;
  if (ref->dim < 0) ref->dim = dim;
  return dim == ref->dim ? KEY_OK : KEY_WILD;
}

void read_key(const FormInfo& form, Datum value, const KeyRef& ref, double* out) {
  switch (form.kind) {
    case KEY_FLOAT_ARRAY:
      array_point(value, out, ref.dim);
      break;
    case KEY_CUBE:
      cube_point(value, out, ref.dim);
      break;
    case KEY_POINT: {
      const Point* p = DatumGetPointP(value);
      out[0] = p->x;
      out[1] = p->y;
      break;
    }
    case KEY_PGVECTOR:
      pgvector_point(value, out, ref.dim, form.cosine, nullptr);
      break;
    case KEY_GEOMETRY: {
      const GeoPoint p = parse_geometry(value);
      out[0] = p.x;
      out[1] = p.y;
      break;
    }
  }
}

bool engine_is_exact(const FormInfo& form) {
  if (form.kind == KEY_FLOAT_ARRAY) return true;
  if (form.kind != KEY_CUBE && form.kind != KEY_GEOMETRY) return false;
  if (!forms_valid) build_forms();
  if (form.kind == KEY_CUBE) {
    if (cube_probe == Probe::Unknown)
      cube_probe = cube_functions_match(cube_functions) ? Probe::Match : Probe::Differ;
    return cube_probe == Probe::Match;
  }
  if (postgis_probe == Probe::Unknown)
    postgis_probe = postgis_dwithin_matches(postgis_functions) ? Probe::Match : Probe::Differ;
  return postgis_probe == Probe::Match;
}

CubeBoxRole cube_box_role(Oid funcid) {
  if (!forms_valid) build_forms();
  if (!OidIsValid(funcid)) return CUBE_BOX_NONE;
  if (funcid == cube_functions.enlarge) return CUBE_BOX_ENLARGE;
  if (funcid == cube_functions.contains) return CUBE_BOX_CONTAINS;
  if (funcid == cube_functions.contained) return CUBE_BOX_CONTAINED;
  return CUBE_BOX_NONE;
}

double engine_bound(const FormInfo& form, double eps, int dim) {
  return widened_bound(eps, dim, form.float32, form.cosine);
}

}  // namespace simjoin::pg::cs
