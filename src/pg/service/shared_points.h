// A join's coordinates in dynamic shared memory. When the GPU service may run the join, the
// custom scan and similarity_join() build their points in a segment of their own (growing it as
// they would grow a palloc'd array), and a service job reads them there: the backend never copies
// its input into the job's segment. Otherwise, and for small inputs, plain palloc'd memory.
#pragma once

extern "C" {
#include "postgres.h"

#include "storage/dsm.h"
}

namespace simjoin::pg {

// Whether a join that starts now should build its points in shared memory: the GPU service is
// ready and simjoin.device is not 'cpu'.
bool join_points_shared();

// Points of new_bytes holding the first used_bytes of `old` (nullptr: none), which is freed: in a
// new segment when `shared` and new_bytes is large enough to be worth one, else palloc'd (huge)
// in `context`. A segment lives until free_join_points or the reset or deletion of `context`.
double* grow_join_points(MemoryContext context, double* old, Size used_bytes, Size new_bytes,
                         bool shared);

// Frees points from grow_join_points (either kind).
void free_join_points(double* points);

// The segment whose start `points` are (from grow_join_points); false for palloc'd points.
bool shared_points_segment(const double* points, dsm_handle* handle);

}  // namespace simjoin::pg
