// A backend's side of the GPU service: whether it is ready, the BatchSource that submits a join
// job and reads its result ring, and how a job's failure is told. Where a join runs, and what
// happens after a failure, the dispatch layer decides (pg/dispatch/dispatch.h).
#pragma once

extern "C" {
#include "postgres.h"
}

#include <chrono>
#include <memory>
#include <string>

#include "engine/knn/knn_join.h"
#include "engine/parallel/pair_stream.h"

namespace simjoin::pg {

// Adds phase "service" to a finished job's stats: the time since `submitted` (before its points
// were copied into the job) outside the engine's phases (and those of `earlier`, the job's other
// join, if any): the copy, the wait for a device, the handover. The phases then add up to the
// job's time as this backend saw it (none is added where they overlap it, as a consumer's do).
void add_service_phase(JoinStats* stats, std::chrono::steady_clock::time_point submitted,
                       const JoinStats* earlier = nullptr);

// Whether the service runs and has a usable device; `why` gets the reason when not.
bool service_ready(std::string* why);

// A job of the service failed: what() is its ERROR message; before_pairs() whether no pair had
// reached the consumer (always so for an aggregate job); fallback_note() the NOTICE of a rerun on
// this backend's CPU engine.
class ServiceJobFailure : public Error {
 public:
  ServiceJobFailure(const std::string& failure, bool before_pairs);
  bool before_pairs() const { return before_pairs_; }
  const std::string& fallback_note() const { return fallback_note_; }

 private:
  bool before_pairs_;
  std::string fallback_note_;
};

// Submits the join to the service and returns the stream of its result; a failure of the job
// ends it with a ServiceJobFailure as error(). `options` as for a PairStream (`interrupted` stops
// it). Points the backend built in shared memory (pg/service/shared_points.h) are read there and
// must outlive the stream; others are copied into the job's segment. The progress report's
// denominator is the work the route sampled (JoinSpec::sampled; estimated here when absent). Inside
// cpp_guard, on the backend's thread. With `knn`, the job is that kNN join (run_knn_join's
// contract: each left point's neighbours nearest first); `spec` then carries the settings.
std::unique_ptr<BatchSource> submit_to_service(const PointSet& left, const PointSet* right,
                                               const JoinSpec& spec, PairStream::Options options,
                                               const KnnSpec* knn = nullptr);

}  // namespace simjoin::pg
