// The SimilarityJoin custom scan's key values read into coordinates, whatever their kind: the
// dispatch to the kinds' readers (custom_scan_key_*.cpp) and the per-join reference (KeyRef:
// dimension, SRID) that every non-wild key must share.
#include "custom_scan_keys.h"

namespace simjoin::pg::cs {

// The bytes of a varlena without copying it when it is only short-headered; detoasts otherwise.
const char* varlena_data(Datum value, Size* size) {
  struct varlena* v =
      pg_detoast_datum_packed(reinterpret_cast<struct varlena*>(DatumGetPointer(value)));
  *size = VARSIZE_ANY_EXHDR(v);
  return VARDATA_ANY(v);
}

Datum detoast_key(const FormInfo& form, Datum value) {
  if (form.kind == KEY_POINT) return value;  // fixed length, not a varlena
  return PointerGetDatum(
      pg_detoast_datum_packed(reinterpret_cast<struct varlena*>(DatumGetPointer(value))));
}

namespace {

// Whether a key's SRID is the join's (the first key's fixes it).
bool same_srid(KeyRef* ref, int32 srid) {
  if (!ref->srid_set) {
    ref->srid = srid;
    ref->srid_set = true;
  }
  return srid == ref->srid;
}

}  // namespace

KeyStatus classify_key(const FormInfo& form, Datum value, KeyRef* ref) {
  int dim = -1;
  switch (form.kind) {
    case KEY_FLOAT_ARRAY:
      dim = array_point(value, nullptr, ref->dim);
      break;
    case KEY_CUBE:
      dim = cube_point(value, nullptr, ref->dim);
      break;
    case KEY_POINT:
      dim = builtin_point(value, nullptr);
      break;
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
      if (!same_srid(ref, p.srid)) return KEY_WILD;
      dim = 2;
      break;
    }
    case KEY_GEOGRAPHY: {
      int32 srid = 0;
      dim = geography_point(value, nullptr, &srid);
      if (dim > 0 && !same_srid(ref, srid)) return KEY_WILD;
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
    case KEY_POINT:
      builtin_point(value, out);
      break;
    case KEY_PGVECTOR:
      pgvector_point(value, out, ref.dim, form.cosine, nullptr);
      break;
    case KEY_GEOMETRY: {
      const GeoPoint p = parse_geometry(value);
      out[0] = p.x;
      out[1] = p.y;
      break;
    }
    case KEY_GEOGRAPHY: {
      int32 srid;
      geography_point(value, out, &srid);
      break;
    }
  }
}

}  // namespace simjoin::pg::cs
