// The checks every join entry applies to its inputs (run_join, the GPU backend, the chunked join).
#pragma once

#include "engine/types.h"

namespace simjoin {

// Throws Error for more than 2^32-1 points in one input (indexes are 32-bit), a non-empty set
// without coordinates, or two non-empty inputs of different dimensions.
void check_inputs(const PointSet& left, const PointSet* right);

}  // namespace simjoin
