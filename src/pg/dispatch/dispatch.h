// The dispatch layer: where a backend's job runs, decided once (the GPU service, or this
// backend's CPU engine on threads leased from the cluster-wide cap: cpu_threads.h), the one GPU
// fallback policy (simjoin.gpu_error) and the simjoin.explain NOTICE, for joins into a sink
// (similarity_join()), joins as a stream of batches (the custom scan), neighbour statistics and
// DBSCAN alike. The service client (pg/service/) only submits jobs and reads them.
#pragma once

extern "C" {
#include "postgres.h"
}

#include <cstdint>
#include <memory>
#include <string>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/neighbour_stats.h"
#include "engine/engine.h"
#include "engine/knn/knn_join.h"
#include "engine/parallel/pair_stream.h"
#include "pg/progress/join_progress.h"

namespace simjoin::pg {

// A sink whose keep_going() stops the join when a query cancel, statement_timeout or backend
// termination is pending (interrupt_pending, pg_guard.h; it never longjmps). Subclasses
// implement consume(); PostgreSQL calls made there must go through pg_call (pg_guard.h).
class InterruptibleSink : public PairSink {
 public:
  // `reports_progress`: the caller owns the backend's progress report (progress_begin).
  explicit InterruptibleSink(bool reports_progress = false)
      : reports_progress_(reports_progress) {}
  bool keep_going() override;
  // Into the backend's progress report (pg/progress/join_progress.h) where the caller owns it.
  void progress(std::uint64_t candidates_done) override;

 protected:
  // A batch the sink took: its pairs into the progress report.
  void report_pairs(std::uint64_t pairs) { progress_add_pairs(reports_progress_, pairs); }

 private:
  bool reports_progress_;
};

// Runs the join where simjoin.device routes it (the GPU service or this backend's CPU engine),
// into the sink on this thread; on a GPU failure reruns on the CPU with a NOTICE or raises, as
// simjoin.gpu_error says (a GPU failure after the sink took pairs always raises). Emits the
// simjoin.explain NOTICE. Must be called inside cpp_guard. After a stop caused by an interrupt,
// the caller must leave C++ and call CHECK_FOR_INTERRUPTS() (see raise_if_interrupted).
JoinStats run_engine(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     PairSink& sink);

// Options for a stream from a backend (start_join): stopping when interrupt_pending(). The
// producer never calls PostgreSQL; report_join() emits the NOTICEs on the backend's thread
// afterwards.
PairStream::Options stream_options();

// The join's result as a stream, routed as run_engine routes it: a job of the service (falling
// back as run_engine does, before its first batch) or a PairStream on this backend's CPU engine.
// Its fallback_note() (the route's or the failure's) is reported with the stats (report_join).
// The point sets' coordinates must outlive the stream. Inside cpp_guard.
std::unique_ptr<BatchSource> start_join(const PointSet& left, const PointSet* right,
                                        const JoinSpec& spec, PairStream::Options options);

// run_knn_join where simjoin.device routes it (`settings`: the backend's JoinSpec): the GPU
// service's tensor-core kNN join where the GPU takes it (gpu_takes_knn; with auto where
// knn_prefers_gpu), else this backend's CPU engine on threads leased from the cluster-wide cap;
// a failed job falls back as run_engine's does. Into the sink on this thread, each left point's
// neighbours nearest first; emits the simjoin.explain NOTICE. Inside cpp_guard; after a stop, as
// run_engine.
JoinStats run_knn(const PointSet& left, const PointSet* right, KnnSpec spec,
                  const JoinSpec& settings, PairSink& sink);

// run_neighbour_stats, routed as run_engine routes a join: the service computes the whole
// aggregate as one job (pg/service/aggregate_client.h); the CPU engine folds it without pairs.
// Inside cpp_guard. A pending interrupt stops it (result.join.stopped): the caller then discards
// the result, leaves C++ and calls raise_if_interrupted. `reports_progress`: the caller owns the
// backend's progress report, into which the CPU engine's fold writes its candidates done.
NeighbourStats compute_neighbour_stats(const PointSet& left, const PointSet* right,
                                       const JoinSpec& spec, StatsSide side,
                                       const std::uint64_t* partner_ranks,
                                       StatsFields fields = StatsFields::All,
                                       bool reports_progress = false);

// The candidates done into the backend's progress report, where the caller owns it.
inline Progress progress_into(bool reports_progress) {
  return [reports_progress](std::uint64_t done) { progress_candidates(reports_progress, done); };
}

// run_dbscan, routed the same way (on the CPU, run_dbscan's own route: the grid DBSCAN in 1-3
// dimensions); stopped as above (counting.stopped or linking.stopped).
DbscanResult compute_dbscan(const PointSet& points, const JoinSpec& spec,
                            std::uint64_t min_points, bool reports_progress = false);

// The NOTICEs of a finished join: the GPU fallback message (if any) and the simjoin.explain line.
// Inside cpp_guard (it uses pg_call).
void report_join(const JoinStats& stats, const std::string& fallback_note);

// One line describing a finished join for NOTICE / EXPLAIN ANALYZE ("device=cpu algorithm=grid
// k=2 batches=3 candidates=... pairs=... time: plan 0.001 s, ..."); machine details only when
// simjoin.explain_machine_details is on.
void describe_join(const JoinStats& stats, char* buffer, size_t size);

}  // namespace simjoin::pg
