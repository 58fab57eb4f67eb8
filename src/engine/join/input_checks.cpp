#include "engine/join/input_checks.h"

#include <string>

namespace simjoin {

void check_inputs(const PointSet& left, const PointSet* right) {
  constexpr std::size_t kMaxPoints = 0xFFFFFFFFu;
  for (const PointSet* set : {&left, right}) {
    if (!set) continue;
    if (set->n > kMaxPoints) throw Error("simjoin: more than 2^32-1 points in one input");
    if (set->n > 0 && set->dim > 0 && set->coords == nullptr) {
      throw Error("simjoin: point set without coordinates");
    }
  }
  if (right && left.n > 0 && right->n > 0 && left.dim != right->dim) {
    throw Error("simjoin: the two inputs have different dimensions (" + std::to_string(left.dim) +
                " and " + std::to_string(right->dim) + ")");
  }
}

}  // namespace simjoin
