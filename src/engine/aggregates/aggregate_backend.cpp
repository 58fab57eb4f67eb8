// Where the aggregates run (aggregate_backend.h).
#include "engine/aggregates/aggregate_backend.h"

#include "engine/choice/device_choice.h"
#include "engine/join_backend.h"
#include "engine/parallel/batch_pipeline.h"

namespace simjoin {

AggregateBackend* aggregate_backend(const PointSet& left, const PointSet* right,
                                    const JoinSpec& spec) {
  JoinBackend* gpu = installed_gpu_backend();
  AggregateBackend* folds = gpu ? gpu->aggregates() : nullptr;
  if (spec.device == Device::Cpu || !folds || !gpu->usable(nullptr) ||
      !gpu->supports(spec.algorithm))
    return nullptr;
  if (spec.device == Device::Gpu) return folds;
  return auto_prefers_gpu(left, right, spec, resolve_thread_count(spec.threads), nullptr,
                          gpu->supports(Algorithm::Szl))
             ? folds
             : nullptr;
}

}  // namespace simjoin
