// The test of one candidate pair shared by every join kernel: the float32 prefilter
// (float_filter.cuh) rejects what it can prove to be too far, the exact double computation
// (device_distance.cuh) decides the rest.
#pragma once

#include "device_distance.cuh"
#include "engine/types.h"
#include "float_filter.cuh"

namespace simjoin::gpu {

// One side of a candidate pair: its float copy and magnitude bound, and its exact coordinates.
struct CandidatePoint {
  const float* floats;  // DIM values (registers, shared or global memory)
  float mag;
  const double* exact;  // global memory
};

// The pair's exact accumulated distance where the prefilter keeps it, NaN where it proves the
// distance too far: either way, the pair matches iff the result is <= bound.
template <Metric M, int DIM>
__device__ __forceinline__ double candidate_distance(const FloatFilter& filter,
                                                     const CandidatePoint& query,
                                                     const CandidatePoint& candidate, int dim,
                                                     double bound) {
  const float limit = float_limit<M>(filter, query.mag, candidate.mag);
  if (float_bounded<M, DIM>(query.floats, candidate.floats, dim, limit) > limit)
    return __longlong_as_double(0x7ff8000000000000LL);  // NaN: never <= bound
  return accumulate_bounded<M, DIM>(query.exact, candidate.exact, dim, bound);
}

}  // namespace simjoin::gpu
