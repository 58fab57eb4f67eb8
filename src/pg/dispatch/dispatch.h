// Where a job of a backend runs, decided once: the GPU service, or this backend's CPU engine on
// threads leased from the cluster-wide cap; and the one GPU fallback policy (simjoin.gpu_error).
// Joins (pg/dispatch/engine_runner.h) and aggregates (pg/dispatch/aggregate_runner.h) go through
// dispatch(); the service client (pg/service/) only submits jobs and reads them.
#pragma once

extern "C" {
#include "postgres.h"
}

#include <optional>
#include <string>
#include <utility>

#include "engine/choice/work_estimate.h"
#include "engine/types.h"
#include "pg/dispatch/cpu_thread_cap.h"
#include "pg/service/client.h"

namespace simjoin::pg {

// The device a join runs on, from simjoin.device: Device::Gpu means the GPU service, Device::Cpu
// this backend's CPU engine. simjoin.device = gpu without a ready service raises an ERROR, or
// (simjoin.gpu_error = fallback) sets *note to the reason and picks the CPU. auto picks the
// service when it is ready and auto_prefers_gpu (engine/choice/device_choice.h) says so; *work
// then holds the sampled work it weighed, if it estimated one. Inside cpp_guard.
Device route_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                  std::string* note, std::optional<JoinWork>* work);

// The GPU fallback policy: a failed service job reruns on this backend's CPU engine (with its
// fallback_note() as a NOTICE) when simjoin.gpu_error = fallback and no pair had reached the
// consumer; otherwise its error is raised.
bool falls_back(const ServiceJobFailure& failure);

// A NOTICE "simjoin: <note>", unless the note is empty. Inside cpp_guard.
void report_note(const std::string& note);

// Routes the job once and runs on_service(work) (work: the route's sampled work, if any) or
// on_cpu(note). A ServiceJobFailure thrown by on_service reruns on_cpu with the failure's note
// when falls_back(); other failures propagate. `note`: why a job meant for the GPU runs on the CPU
// (empty when the CPU was chosen). Both must return the same type. Inside cpp_guard.
template <typename OnService, typename OnCpu>
auto dispatch(const PointSet& left, const PointSet* right, const JoinSpec& spec,
              OnService&& on_service, OnCpu&& on_cpu) -> decltype(on_cpu(std::string())) {
  std::string note;
  std::optional<JoinWork> work;
  if (route_join(left, right, spec, &note, &work) == Device::Gpu) {
    try {
      return on_service(std::move(work));
    } catch (const ServiceJobFailure& failure) {
      if (!falls_back(failure)) throw;
      note = failure.fallback_note();
    }
  }
  return on_cpu(std::move(note));
}

// dispatch() for a job that runs to its end on the backend's thread: on the CPU, the note's
// NOTICE comes first, then run_on_cpu(cpu_spec) with threads leased for the call.
template <typename OnService, typename OnCpu>
auto dispatch_and_wait(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                       OnService&& on_service, OnCpu&& run_on_cpu) {
  return dispatch(left, right, spec, std::forward<OnService>(on_service),
                  [&spec, &run_on_cpu](const std::string& note) {
                    report_note(note);
                    const CpuThreadLease threads(spec.threads);
                    return run_on_cpu(on_leased_cpu(spec, threads));
                  });
}

}  // namespace simjoin::pg
