// Keys of PostGIS's distances: 2-D points, the bounding box of other linear geometries (the
// engine joins their centres within the distance plus the largest half diagonals; a box filter
// and PostGIS decide each candidate), EMPTY (never matches); curves and anything unreadable are
// wild.
#include "pg/scan/keys/keys.h"

#include <cmath>
#include <cstring>

namespace simjoin::pg::cs {

// PostGIS GSERIALIZED (v2): srid[3], gflags, [8 bytes extended flags], [float bbox], then the
// geometry: uint32 type, then a point, line: uint32 npoints, double coords[]; a polygon: uint32
// nrings, uint32 npoints[nrings] (padded to 8 bytes), the rings' coords; a multi-geometry or
// collection: uint32 ngeoms, then each member as a geometry. Flags of version 2.
constexpr uint8 kG2Z = 0x01, kG2M = 0x02, kG2BBox = 0x04, kG2Geodetic = 0x08,
                kG2Extended = 0x10, kG2Version = 0x40;
enum : uint32 {
  kPointType = 1, kLineType = 2, kPolygonType = 3, kMultiPointType = 4, kMultiLineType = 5,
  kMultiPolygonType = 6, kCollectionType = 7
};

namespace {

// Reads one serialized geometry at *offset, growing `shape`'s box by its coordinates' x and y.
// False for what the box cannot stand for: curves and surfaces (their extent is not their
// vertices'), an empty member (PostGIS's distances treat a collection holding one apart), a
// coordinate that is not finite or beyond kHuge, or a truncated value.
struct Reader {
  const char* data;
  Size size;
  int ndims;
  GeoShape* shape;

  bool uint32_at(Size* offset, uint32* value) const {
    if (*offset + 4 > size) return false;
    std::memcpy(value, data + *offset, 4);
    *offset += 4;
    return true;
  }

  bool coordinates(Size* offset, uint32 npoints) {
    const Size stride = sizeof(double) * ndims;
    if (npoints == 0 || *offset > size || npoints > (size - *offset) / stride) return false;
    for (uint32 k = 0; k < npoints; ++k, *offset += stride) {
      double x, y;
      std::memcpy(&x, data + *offset, sizeof(double));
      std::memcpy(&y, data + *offset + sizeof(double), sizeof(double));
      if (!coordinate_ok(x) || !coordinate_ok(y)) return false;
      shape->xmin = std::fmin(shape->xmin, x);
      shape->xmax = std::fmax(shape->xmax, x);
      shape->ymin = std::fmin(shape->ymin, y);
      shape->ymax = std::fmax(shape->ymax, y);
    }
    return true;
  }

  bool geometry(Size* offset, int depth) {
    uint32 type, count;
    if (depth > 32 || !uint32_at(offset, &type) || !uint32_at(offset, &count)) return false;
    switch (type) {
      case kPointType:
      case kLineType:
        return coordinates(offset, count);
      case kPolygonType: {
        if (count == 0 || count > (size - *offset) / 4) return false;
        const Size ring_sizes = *offset;
        *offset += 4 * static_cast<Size>(count) + (count % 2 ? 4 : 0);
        for (uint32 r = 0; r < count; ++r) {
          uint32 npoints;
          std::memcpy(&npoints, data + ring_sizes + 4 * static_cast<Size>(r), 4);
          if (!coordinates(offset, npoints)) return false;
        }
        return true;
      }
      case kMultiPointType:
      case kMultiLineType:
      case kMultiPolygonType:
      case kCollectionType:
        if (count == 0) return false;
        for (uint32 g = 0; g < count; ++g)
          if (!geometry(offset, depth + 1)) return false;
        return true;
      default:
        return false;
    }
  }
};

}  // namespace

GeoShape parse_geometry(Datum value, bool geodetic, double point_limit) {
  GeoShape shape{GeoShape::Other, 0, 0, 0, 0, 0};
  Size size;
  const char* data = varlena_data(value, &size);
  if (size < 4) return shape;
  const uint8* bytes = reinterpret_cast<const uint8*>(data);
  const uint8 flags = bytes[3];
  if (!(flags & kG2Version)) return shape;  // not the PostGIS 3 layout: leave it to PostGIS
  if (static_cast<bool>(flags & kG2Geodetic) != geodetic) return shape;
  int32 srid = (int32(bytes[0]) << 16) | (int32(bytes[1]) << 8) | int32(bytes[2]);
  srid = (srid << 11) >> 11;  // sign-extend the 21 stored bits
  Size offset = 4;
  if (flags & kG2Extended) offset += 8;
  const int ndims = 2 + ((flags & kG2Z) ? 1 : 0) + ((flags & kG2M) ? 1 : 0);
  if (flags & kG2BBox) offset += 2 * ndims * sizeof(float);
  uint32 type, count;
  if (offset + 8 > size) return shape;
  std::memcpy(&type, data + offset, 4);
  std::memcpy(&count, data + offset + 4, 4);
  shape.srid = srid;
  if (count == 0 && type >= kPointType && type <= kCollectionType) {
    // EMPTY: ST_DWithin is false, ST_Distance and <-> NULL on every pair.
    shape.kind = GeoShape::Empty;
    return shape;
  }
  if (type == kPointType && count == 1 && offset + 8 + 2 * sizeof(double) <= size) {
    std::memcpy(&shape.xmin, data + offset + 8, sizeof(double));
    std::memcpy(&shape.ymin, data + offset + 8 + sizeof(double), sizeof(double));
    shape.xmax = shape.xmin;
    shape.ymax = shape.ymin;
    const auto within = [point_limit](double x) { return std::isfinite(x) && std::fabs(x) <= point_limit; };
    shape.kind = within(shape.xmin) && within(shape.ymin) ? GeoShape::Point : GeoShape::Other;
    return shape;
  }
  // Any other geometry: the box of its vertices, computed exactly in doubles (the float box
  // PostGIS stores encloses it too, but reading every vertex also finds a non-finite one).
  shape.xmin = shape.ymin = HUGE_VAL;
  shape.xmax = shape.ymax = -HUGE_VAL;
  Reader reader{data, size, ndims, &shape};
  shape.kind = reader.geometry(&offset, 0) ? GeoShape::Box : GeoShape::Other;
  return shape;
}

}  // namespace simjoin::pg::cs
