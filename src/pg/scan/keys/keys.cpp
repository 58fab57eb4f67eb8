// The SimilarityJoin custom scan's key values read into coordinates, whatever their kind: the
// dispatch to the kinds' readers (custom_scan_key_*.cpp) and the per-join reference (KeyRef:
// dimension, SRID) that every non-wild key must share.
#include "pg/scan/keys/keys.h"

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

double box_centre(double lo, double hi) { return 0.5 * lo + 0.5 * hi; }

// A point's or box's extent: the box, and its radius around its centre (box_centre; false: too
// large for the engine's sums).
bool geometry_extent(const GeoShape& g, KeyExtent* extent) {
  extent->is_box = g.kind == GeoShape::Box;
  extent->xmin = g.xmin;
  extent->ymin = g.ymin;
  extent->xmax = g.xmax;
  extent->ymax = g.ymax;
  extent->radius = 0;
  if (!extent->is_box) return true;
  const double box[4] = {g.xmin, g.ymin, g.xmax, g.ymax};
  const double centre[2] = {box_centre(g.xmin, g.xmax), box_centre(g.ymin, g.ymax)};
  extent->radius = box_radius(box, centre);
  return coordinate_ok(extent->radius);
}

// Whether a key's SRID is the join's (the first key's fixes it).
bool same_srid(KeyRef* ref, int32 srid) {
  if (!ref->srid_set) {
    ref->srid = srid;
    ref->srid_set = true;
  }
  return srid == ref->srid;
}

}  // namespace

double box_radius(const double* box, const double* centre) {
  const double hx = std::fmax(centre[0] - box[0], box[2] - centre[0]);
  const double hy = std::fmax(centre[1] - box[1], box[3] - centre[1]);
  return std::nextafter(std::sqrt(hx * hx + hy * hy) * (1 + 1e-12), HUGE_VAL);
}

KeyStatus classify_key(const FormInfo& form, Datum value, KeyRef* ref, KeyExtent* extent) {
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
      const GeoShape g = parse_geometry(value);
      if (g.kind == GeoShape::Other) return KEY_WILD;
      // PostGIS raises its mixed-SRID error before it looks at the values (EMPTY included).
      if (!same_srid(ref, g.srid)) return KEY_WILD;
      if (g.kind == GeoShape::Empty) return KEY_SKIP;
      if (g.kind == GeoShape::Box && (!extent || !geometry_extent(g, extent))) return KEY_WILD;
      if (extent && g.kind == GeoShape::Point) geometry_extent(g, extent);
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

bool key_is_point(const FormInfo& form, Datum key, KeyRef* ref) {
  KeyExtent extent;
  extent.is_box = false;
  return classify_key(form, key, ref, &extent) == KEY_OK && !extent.is_box;
}

bool read_point_key(const FormInfo& form, Datum value, KeyRef* ref, double* out) {
  if (form.kind != KEY_GEOMETRY) {
    if (!key_is_point(form, value, ref)) return false;
    read_key(form, value, *ref, out);
    return true;
  }
  // classify_key's geometry case for a point, the geometry parsed once.
  const GeoShape g = parse_geometry(value);
  if (g.kind == GeoShape::Other || !same_srid(ref, g.srid) || g.kind != GeoShape::Point)
    return false;
  if (ref->dim < 0) ref->dim = 2;
  if (ref->dim != 2) return false;
  out[0] = g.xmin;
  out[1] = g.ymin;
  return true;
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
      const GeoShape g = parse_geometry(value);
      out[0] = g.kind == GeoShape::Point ? g.xmin : box_centre(g.xmin, g.xmax);
      out[1] = g.kind == GeoShape::Point ? g.ymin : box_centre(g.ymin, g.ymax);
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
