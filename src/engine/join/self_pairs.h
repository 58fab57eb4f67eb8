// How a self-join reports a match {a, b}, a != b, per SelfPairs: All = (a, b) and (b, a);
// Unique = (min, max) once. The identity pairs (i, i) of All are emitted by the join itself.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/parallel/batch_pipeline.h"
#include "engine/types.h"

namespace simjoin {

inline bool emit_self_match(BatchWriter& out, std::uint32_t a, std::uint32_t b, double distance,
                            SelfPairs mode) {
  if (mode == SelfPairs::Unique) return out.add(std::min(a, b), std::max(a, b), distance);
  return out.add(a, b, distance) && out.add(b, a, distance);
}

}  // namespace simjoin
