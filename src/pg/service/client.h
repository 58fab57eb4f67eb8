// A backend's side of the GPU service: where a join runs (this backend's CPU engine or the
// service), and the BatchSource that submits a job and reads its result ring.
#pragma once

extern "C" {
#include "postgres.h"
}

#include <memory>
#include <optional>
#include <string>

#include "engine/choice/work_estimate.h"
#include "engine/parallel/pair_stream.h"

namespace simjoin::pg {

// Whether the service runs and has a usable device; `why` gets the reason when not.
bool service_ready(std::string* why);

// The device a join runs on, from simjoin.device: Device::Gpu means the GPU service, Device::Cpu
// this backend's CPU engine. simjoin.device = gpu without a ready service raises an ERROR, or
// (simjoin.gpu_error = fallback) sets *note to the reason and picks the CPU. auto picks the
// service when it is ready and auto_prefers_gpu (engine/choice/device_choice.h) says so; *work then holds the
// sampled work it weighed, if it estimated one. Inside cpp_guard.
Device route_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                  std::string* note, std::optional<JoinWork>* work);

// Submits the join to the service and returns the stream of its result. `options` as for a
// PairStream: on a service failure before the first batch, cpu_fallback reruns the join on this
// backend's CPU engine (with a fallback note); `interrupted` stops it. Points the backend built in
// shared memory (pg/service/shared_points.h) are read there and must outlive the stream; others are copied
// into the job's segment. `work`: the sampled work route_join weighed (estimated here when
// absent), the progress report's denominator. Inside cpp_guard, on the backend's thread.
std::unique_ptr<BatchSource> submit_to_service(const PointSet& left, const PointSet* right,
                                               const JoinSpec& spec, PairStream::Options options,
                                               std::optional<JoinWork> work);

// The join's result, wherever it runs: a job of the service (route Device::Gpu) or a PairStream
// on this backend's CPU engine. `note` (the route's fallback reason) is reported with the stats.
std::unique_ptr<BatchSource> start_join(const PointSet& left, const PointSet* right,
                                        const JoinSpec& spec, PairStream::Options options);

}  // namespace simjoin::pg
