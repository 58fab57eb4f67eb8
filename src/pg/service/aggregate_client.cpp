// Aggregate jobs from a backend (pg/service/aggregate_client.h): the job's segment laid out by
// pg/service/aggregate_job.h, then a wait on this backend's latch until the service finishes it.
#include "pg/service/aggregate_client.h"

#include <cstring>
#include <string>

#include "engine/choice/work_estimate.h"
#include "pg/pg_guard.h"
#include "pg/service/aggregate_job.h"
#include "pg/service/client.h"
#include "pg/service/job_handle.h"

namespace simjoin::pg {

namespace {

enum class Outcome { Done, Stopped, Failed };

// One aggregate job: submitted on construction, waited for by wait(); left when destroyed.
class AggregateJobRun {
 public:
  AggregateJobRun(JobKind kind, const PointSet& left, const PointSet* right, const JoinSpec& spec,
                  std::uint64_t points, const std::uint64_t* ranks, std::uint64_t rank_count,
                  std::uint64_t min_points, StatsSide side, StatsFields fields) {
    pg_call([&] {
      const JobPointsPlan plan = plan_job_points(left, right);
      AggregateJob layout{};
      layout.side = side;
      layout.fields = fields;
      layout.min_points = min_points;
      layout.points = points;
      const Size points_end = aggregate_points_offset() + plan.left_bytes + plan.right_bytes;
      const Size bytes = layout_aggregate_arrays(&layout, kind, ranks ? rank_count : 0, points_end);
      job_ = handle_.create(bytes);
      job_->kind = kind;
      job_->spec = spec;
      handle_.place_points(plan, left, right, aggregate_points_offset());
      *aggregate_job(job_) = layout;
      if (ranks)
        std::memcpy(reinterpret_cast<char*>(job_) + layout.ranks_offset, ranks,
                    rank_count * sizeof(std::uint64_t));
      const double candidates = sampled_or_estimated_work(left, right, spec).candidates;
      handle_.submit(aggregate_job_wanted_bytes(left.n + (right ? right->n : 0), job_->dim,
                                                aggregate_device_bytes(kind, fields, points,
                                                                       ranks ? rank_count : 0)),
                     static_cast<std::uint64_t>(candidates));
    });
  }

  // Waits until the job ends, the service is lost, or an interrupt is pending (the job is then
  // withdrawn). `*message`: the failure's.
  Outcome wait(std::string* message) {
    for (;;) {
      const std::uint32_t finished = job_->finished.load(std::memory_order_acquire);
      if (finished == 1 && !stopped()) return Outcome::Done;
      if (finished != 0 || handle_.service_lost()) {
        // A job only this backend may stop never counts as done when it says stopped.
        *message = handle_.failure();
        return Outcome::Failed;
      }
      if (interrupt_pending()) {
        handle_.leave();
        return Outcome::Stopped;
      }
      pg_call([] { ServiceJobHandle::wait_for_service(100); });
    }
  }

  JobHeader* job() const { return job_; }
  std::chrono::steady_clock::time_point submitted() const { return submitted_; }
  const AggregateJob& aggregate() const { return *aggregate_job(job_); }
  template <typename T, typename Array = std::vector<T>>
  Array array(std::uint64_t offset) const {
    const T* at = reinterpret_cast<const T*>(reinterpret_cast<const char*>(job_) + offset);
    return Array(at, at + aggregate().points);
  }

 private:
  bool stopped() const {
    return job_->kind == JobKind::Dbscan ? aggregate().linking.stopped : job_->stats.stopped;
  }

  const std::chrono::steady_clock::time_point submitted_ = std::chrono::steady_clock::now();
  ServiceJobHandle handle_;
  JobHeader* job_ = nullptr;
};

// Waits for the run: `read(aggregate)` once done, `stopped` (a result marked stopped) after an
// interrupt; a failure throws ServiceJobFailure (no pair reached a consumer: the job is whole).
template <typename Result, typename Read>
Result await_result(AggregateJobRun& run, Result stopped, Read read) {
  std::string message;
  switch (run.wait(&message)) {
    case Outcome::Stopped:
      return stopped;
    case Outcome::Failed:
      throw ServiceJobFailure(message, true);
    case Outcome::Done:
      break;
  }
  return read(run.aggregate());
}

}  // namespace

NeighbourStats neighbour_stats_on_service(const PointSet& left, const PointSet* right,
                                          const JoinSpec& spec, StatsSide side,
                                          const std::uint64_t* partner_ranks, StatsFields fields) {
  if (fields != StatsFields::All) partner_ranks = nullptr;  // only the nearest partner reads them
  const bool left_side = right == nullptr || side == StatsSide::Left;
  const std::uint64_t points = left_side ? left.n : right->n;
  const std::uint64_t partners = right == nullptr ? left.n : left_side ? right->n : left.n;
  AggregateJobRun run(JobKind::NeighbourStats, left, right, spec, points, partner_ranks, partners,
                      0, side, fields);
  NeighbourStats stopped;
  stopped.join.stopped = true;
  return await_result(run, std::move(stopped), [&run](const AggregateJob& aggregate) {
    NeighbourStats result;
    if (aggregate.fields != StatsFields::PairsOnly)
      result.count = run.array<std::uint64_t, FilledVector<std::uint64_t>>(aggregate.count_offset);
    if (aggregate.fields == StatsFields::All) {
      result.min_distance = run.array<double>(aggregate.min_offset);
      result.max_distance = run.array<double>(aggregate.max_offset);
      result.nearest = run.array<std::uint32_t>(aggregate.nearest_offset);
    }
    result.pairs = aggregate.pairs;
    result.join = recorded_join_stats(run.job()->stats);
    add_service_phase(&result.join, run.submitted());
    return result;
  });
}

DbscanResult dbscan_on_service(const PointSet& points, const JoinSpec& spec,
                               std::uint64_t min_points) {
  AggregateJobRun run(JobKind::Dbscan, points, nullptr, spec, points.n, nullptr, 0, min_points,
                      StatsSide::Left, StatsFields::All);
  DbscanResult stopped;
  stopped.linking.stopped = true;
  return await_result(run, std::move(stopped), [&run](const AggregateJob& aggregate) {
    DbscanResult result;
    result.cluster = run.array<std::int64_t>(aggregate.cluster_offset);
    result.kind = run.array<PointKind>(aggregate.kind_offset);
    result.clusters = aggregate.clusters;
    if (aggregate.counted) result.counting = recorded_join_stats(run.job()->stats);
    result.linking = recorded_join_stats(aggregate.linking);
    add_service_phase(&result.linking, run.submitted(), &result.counting);
    return result;
  });
}

}  // namespace simjoin::pg
