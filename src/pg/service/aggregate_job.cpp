// The aggregate job's layout and its run on the service (pg/service/aggregate_job.h).
extern "C" {
#include "postgres.h"
}

#include "pg/service/aggregate_job.h"

#include <cstring>

namespace simjoin::pg {

namespace {

template <typename T>
T* array_at(JobHeader* job, std::uint64_t offset) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(job) + offset);
}

// Reserves `bytes` (MAXALIGNed) at *offset; returns where they start.
std::uint64_t take(std::size_t* offset, std::size_t bytes) {
  const std::uint64_t at = *offset;
  *offset += MAXALIGN(bytes);
  return at;
}

void recorded_device(JoinStats* stats, const char* device_name) {
  if (device_name && !stats->algorithm.empty()) stats->device = device_name;
}

}  // namespace

std::size_t aggregate_points_offset() {
  return MAXALIGN(sizeof(JobHeader)) + MAXALIGN(sizeof(AggregateJob));
}

std::size_t layout_aggregate_arrays(AggregateJob* aggregate, JobKind kind, std::uint64_t ranks,
                                    std::size_t offset) {
  const std::uint64_t n = aggregate->points;
  aggregate->ranks_offset = ranks > 0 ? take(&offset, ranks * sizeof(std::uint64_t)) : 0;
  if (kind == JobKind::NeighbourStats) {
    const StatsFields fields = aggregate->fields;
    aggregate->count_offset =
        fields != StatsFields::PairsOnly ? take(&offset, n * sizeof(std::uint64_t)) : 0;
    if (fields == StatsFields::All) {
      aggregate->min_offset = take(&offset, n * sizeof(double));
      aggregate->max_offset = take(&offset, n * sizeof(double));
      aggregate->nearest_offset = take(&offset, n * sizeof(std::uint32_t));
    }
  } else {
    aggregate->cluster_offset = take(&offset, n * sizeof(std::int64_t));
    aggregate->kind_offset = take(&offset, n * sizeof(PointKind));
  }
  return offset;
}

std::uint64_t aggregate_device_bytes(JobKind kind, StatsFields fields, std::uint64_t points,
                                     std::uint64_t ranks) {
  // Neighbour statistics fold into 32 bytes a point (8 for the counts only, none for the pair
  // count); DBSCAN keeps counts, sets, kinds, clusters.
  std::uint64_t per_point = 40;
  if (kind == JobKind::NeighbourStats)
    per_point = fields == StatsFields::All ? 32 : fields == StatsFields::CountsOnly ? 8 : 0;
  return points * per_point + ranks * sizeof(std::uint64_t);
}

AggregateOutcome run_aggregate_job(JobHeader* job, const PointSet& left, const PointSet* right,
                                   const JoinSpec& spec, const KeepGoing& keep_going,
                                   const char* device_name) {
  AggregateJob* aggregate = aggregate_job(job);
  const std::uint64_t n = aggregate->points;
  AggregateOutcome outcome;
  if (job->kind == JobKind::NeighbourStats) {
    const std::uint64_t* ranks =
        aggregate->ranks_offset ? array_at<std::uint64_t>(job, aggregate->ranks_offset) : nullptr;
    const StatsFields fields = aggregate->fields;
    NeighbourStats stats = run_neighbour_stats(left, right, spec, aggregate->side, ranks,
                                               keep_going, {}, fields);
    if (!stats.join.stopped && fields != StatsFields::PairsOnly)
      std::memcpy(array_at<std::uint64_t>(job, aggregate->count_offset), stats.count.data(), n * 8);
    if (!stats.join.stopped && fields == StatsFields::All) {
      std::memcpy(array_at<double>(job, aggregate->min_offset), stats.min_distance.data(), n * 8);
      std::memcpy(array_at<double>(job, aggregate->max_offset), stats.max_distance.data(), n * 8);
      std::memcpy(array_at<std::uint32_t>(job, aggregate->nearest_offset), stats.nearest.data(),
                  n * sizeof(std::uint32_t));
    }
    recorded_device(&stats.join, device_name);
    record_join_stats(&job->stats, stats.join);
    aggregate->pairs = stats.pairs;
    outcome = {stats.join.candidates, stats.pairs};
  } else {
    DbscanResult result = run_dbscan(left, spec, aggregate->min_points, keep_going);
    const bool stopped = result.counting.stopped || result.linking.stopped;
    if (!stopped) {
      std::memcpy(array_at<std::int64_t>(job, aggregate->cluster_offset), result.cluster.data(),
                  n * sizeof(std::int64_t));
      std::memcpy(array_at<PointKind>(job, aggregate->kind_offset), result.kind.data(),
                  n * sizeof(PointKind));
    }
    aggregate->counted = !result.counting.algorithm.empty();
    recorded_device(&result.counting, device_name);
    recorded_device(&result.linking, device_name);
    if (stopped) result.linking.stopped = true;
    record_join_stats(&job->stats, result.counting);
    record_join_stats(&aggregate->linking, result.linking);
    aggregate->clusters = result.clusters;
    outcome = {result.counting.candidates + result.linking.candidates, result.linking.pairs};
  }
  return outcome;
}

}  // namespace simjoin::pg
