// Keys of PostgreSQL's point <-> point.
#include "pg/scan/keys/keys.h"

extern "C" {
#include "utils/geo_decls.h"
}

namespace simjoin::pg::cs {

int builtin_point(Datum value, double* out) {
  const Point* p = DatumGetPointP(value);
  if (out) {
    out[0] = p->x;
    out[1] = p->y;
  }
  return coordinate_ok(p->x) && coordinate_ok(p->y) ? 2 : -1;
}

}  // namespace simjoin::pg::cs
