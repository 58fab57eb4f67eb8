// Keys of PostGIS's ST_DWithin: 2-D point geometries (anything else is wild), and the probe of
// PostGIS's arithmetic (operator_probe.h) that makes ST_DWithin exact in the engine.
#include "custom_scan_keys.h"

#include <cstring>

namespace simjoin::pg::cs {

// PostGIS GSERIALIZED (v2): srid[3], gflags, [8 bytes extended flags], [float bbox], then the
// geometry: uint32 type, uint32 npoints, double coords[]. Flags of version 2.
constexpr uint8 kG2Z = 0x01, kG2M = 0x02, kG2BBox = 0x04, kG2Geodetic = 0x08,
                kG2Extended = 0x10, kG2Version = 0x40;
constexpr uint32 kPointType = 1;

GeoPoint parse_geometry(Datum value, bool geodetic) {
  GeoPoint p{false, 0, 0, 0};
  Size size;
  const char* data = varlena_data(value, &size);
  if (size < 4) return p;
  const uint8* bytes = reinterpret_cast<const uint8*>(data);
  const uint8 flags = bytes[3];
  if (!(flags & kG2Version)) return p;  // not the PostGIS 3 layout: leave it to PostGIS
  if (static_cast<bool>(flags & kG2Geodetic) != geodetic) return p;
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

namespace {

ProbeResult postgis_probe;

}  // namespace

void forget_postgis_probe() { postgis_probe.forget(); }

bool postgis_probe_matches(const PostgisFunctions& functions) {
  return postgis_probe.matches([&] { return postgis_dwithin_matches(functions); });
}

}  // namespace simjoin::pg::cs
