// Where the aggregates run (aggregate_backend.h).
#include "engine/aggregates/aggregate_backend.h"

#include "engine/choice/device_choice.h"
#include "engine/parallel/batch_pipeline.h"

namespace simjoin {

JoinBackend* aggregate_backend(const PointSet& left, const PointSet* right, const JoinSpec& spec) {
  JoinBackend* gpu = installed_gpu_backend();
  if (spec.device == Device::Cpu || !gpu || !gpu->runs_aggregates() || !gpu->usable(nullptr) ||
      !gpu->supports(spec.algorithm))
    return nullptr;
  if (spec.device == Device::Gpu) return gpu;
  return auto_prefers_gpu(left, right, spec, resolve_thread_count(spec.threads), nullptr,
                          gpu->supports(Algorithm::Szl))
             ? gpu
             : nullptr;
}

}  // namespace simjoin
