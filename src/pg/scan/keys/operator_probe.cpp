#include "pg/scan/keys/operator_probe.h"

#include "engine/bounds/arithmetic_probe.h"
#include "engine/bounds/planar_hypot.h"
#include "pg/pg_guard.h"

extern "C" {
#include "fmgr.h"
#include "utils/fmgrprotos.h"
#include "utils/geo_decls.h"
#include "utils/memutils.h"
}

#include <cstring>

namespace simjoin::pg::cs {

namespace {

// contrib cube's NDBOX: int32 vl_len_; uint32 header (bit 31: point, low bits: dim); double x[].
constexpr uint32 kPointBit = 0x80000000u;

struct ProbeCalls {
  FmgrInfo distance;
  FmgrInfo enlarge;
  FmgrInfo contains;
  bool contained;  // contains is cube_contained: arguments swapped
  char* cube_a;
  char* cube_b;
  MemoryContext scratch;
};

Datum point_cube(char* buffer, const double* x, std::size_t dim) {
  const Size size = 2 * sizeof(int32) + sizeof(double) * dim;
  SET_VARSIZE(buffer, size);
  const uint32 header = static_cast<uint32>(dim) | kPointBit;
  std::memcpy(buffer + sizeof(int32), &header, sizeof header);
  std::memcpy(buffer + 2 * sizeof(int32), x, sizeof(double) * dim);
  return PointerGetDatum(buffer);
}

double cube_distance_call(const double* a, const double* b, std::size_t dim, void* context) {
  ProbeCalls* calls = static_cast<ProbeCalls*>(context);
  return pg_call([&] {
    return DatumGetFloat8(FunctionCall2Coll(&calls->distance, InvalidOid,
                                            point_cube(calls->cube_a, a, dim),
                                            point_cube(calls->cube_b, b, dim)));
  });
}

bool cube_box_call(const double* a, const double* b, std::size_t dim, double r, void* context) {
  ProbeCalls* calls = static_cast<ProbeCalls*>(context);
  return pg_call([&] {
    MemoryContext old = MemoryContextSwitchTo(calls->scratch);
    const Datum box = FunctionCall3Coll(&calls->enlarge, InvalidOid, point_cube(calls->cube_a, a, dim),
                                        Float8GetDatum(r), Int32GetDatum(static_cast<int32>(dim)));
    const Datum point = point_cube(calls->cube_b, b, dim);
    const bool inside = DatumGetBool(calls->contained
                                         ? FunctionCall2Coll(&calls->contains, InvalidOid, point, box)
                                         : FunctionCall2Coll(&calls->contains, InvalidOid, box, point));
    MemoryContextSwitchTo(old);
    MemoryContextReset(calls->scratch);
    return inside;
  });
}

struct DwithinCalls {
  FmgrInfo make_point;
  FmgrInfo dwithin;  // (or st_distance: distance_call)
  MemoryContext scratch;
};

// Two PostGIS points made from a and b, given to `use`, in the scratch context (reset after).
template <typename Use>
auto with_points(DwithinCalls* calls, const double* a, const double* b, Use use) {
  return pg_call([&] {
    MemoryContext old = MemoryContextSwitchTo(calls->scratch);
    const Datum p = FunctionCall2Coll(&calls->make_point, InvalidOid, Float8GetDatum(a[0]),
                                      Float8GetDatum(a[1]));
    const Datum q = FunctionCall2Coll(&calls->make_point, InvalidOid, Float8GetDatum(b[0]),
                                      Float8GetDatum(b[1]));
    const auto result = use(p, q);
    MemoryContextSwitchTo(old);
    MemoryContextReset(calls->scratch);
    return result;
  });
}

bool dwithin_call(const double* a, const double* b, std::size_t, double eps, void* context) {
  DwithinCalls* calls = static_cast<DwithinCalls*>(context);
  return with_points(calls, a, b, [&](Datum p, Datum q) {
    return DatumGetBool(FunctionCall3Coll(&calls->dwithin, InvalidOid, p, q, Float8GetDatum(eps)));
  });
}

double distance_call(const double* a, const double* b, std::size_t, void* context) {
  DwithinCalls* calls = static_cast<DwithinCalls*>(context);
  return with_points(calls, a, b, [&](Datum p, Datum q) {
    return DatumGetFloat8(FunctionCall2Coll(&calls->dwithin, InvalidOid, p, q));
  });
}

// Runs `probe` on PostGIS's st_makepoint and `function`, in a scratch context of its own.
template <typename Probe>
bool postgis_probe(Oid make_point, Oid function, Probe probe) {
  if (!OidIsValid(make_point) || !OidIsValid(function)) return false;
  DwithinCalls calls;
  pg_call([&] {
    calls.scratch = AllocSetContextCreate(CurrentMemoryContext, "simjoin postgis probe",
                                          ALLOCSET_SMALL_SIZES);
    fmgr_info(make_point, &calls.make_point);
    fmgr_info(function, &calls.dwithin);
  });
  const bool match = probe(&calls);
  pg_call([&] { MemoryContextDelete(calls.scratch); });
  return match;
}

}  // namespace

bool postgis_dwithin_matches(const PostgisFunctions& functions) {
  return postgis_probe(functions.make_point, functions.dwithin, [](DwithinCalls* calls) {
    return within_agrees(Metric::Euclidean, 2, dwithin_call, calls);
  });
}

bool postgis_distance_matches(const PostgisFunctions& functions, Oid distance) {
  return postgis_probe(functions.make_point, distance, [](DwithinCalls* calls) {
    return distance_agrees_at(Metric::Euclidean, 2, distance_call, calls);
  });
}

bool point_distance_matches() {
  const ForeignDistance planar = [](const double* a, const double* b, std::size_t, void*) {
    return planar_point_distance(a, b);
  };
  const ForeignDistance server = [](const double* a, const double* b, std::size_t, void*) {
    return pg_call([&] {
      Point p{a[0], a[1]};
      Point q{b[0], b[1]};
      return DatumGetFloat8(
          DirectFunctionCall2(point_distance, PointPGetDatum(&p), PointPGetDatum(&q)));
    });
  };
  return distance_agrees_with(2, planar, nullptr, server, nullptr, 0x9017u);
}

bool cube_functions_match(const CubeFunctions& functions) {
  for (Oid f : functions.distance)
    if (!OidIsValid(f)) return false;
  if (!OidIsValid(functions.enlarge) ||
      !(OidIsValid(functions.contains) || OidIsValid(functions.contained)))
    return false;
  ProbeCalls calls;
  pg_call([&] {
    calls.scratch = AllocSetContextCreate(CurrentMemoryContext, "simjoin cube probe",
                                          ALLOCSET_SMALL_SIZES);
    const Size size = 2 * sizeof(int32) + sizeof(double) * kProbeMaxDim;
    calls.cube_a = static_cast<char*>(MemoryContextAllocZero(calls.scratch->parent, size));
    calls.cube_b = static_cast<char*>(MemoryContextAllocZero(calls.scratch->parent, size));
    fmgr_info(functions.enlarge, &calls.enlarge);
    calls.contained = !OidIsValid(functions.contains);
    fmgr_info(calls.contained ? functions.contained : functions.contains, &calls.contains);
  });
  bool match = box_test_agrees(cube_box_call, &calls);
  for (Metric metric : {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev}) {
    if (!match) break;
    pg_call([&] { fmgr_info(functions.distance[static_cast<int>(metric)], &calls.distance); });
    match = distance_agrees(metric, cube_distance_call, &calls);
  }
  pg_call([&] {
    pfree(calls.cube_a);
    pfree(calls.cube_b);
    MemoryContextDelete(calls.scratch);
  });
  return match;
}

}  // namespace simjoin::pg::cs
