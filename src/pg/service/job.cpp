// The job record's conversions (pg/service/job.h): the service writes a finished join's JoinStats
// into the job's segment, the backend reads them back.
#include "pg/service/job.h"

#include <cstdio>

namespace simjoin::pg {

namespace {

void copy_text(char* to, std::size_t size, const std::string& from) {
  std::snprintf(to, size, "%s", from.c_str());
}

}  // namespace

const char* job_kind_name(JobKind kind) {
  switch (kind) {
    case JobKind::Join: return "join";
    case JobKind::NeighbourStats: return "neighbour stats";
    case JobKind::Dbscan: return "dbscan";
    case JobKind::Knn: return "knn join";
  }
  return "unknown";
}

void record_join_stats(JobStatsRecord* record, const JoinStats& stats) {
  copy_text(record->device, sizeof record->device, stats.device);
  copy_text(record->algorithm, sizeof record->algorithm, stats.algorithm);
  record->indexed_dims = stats.indexed_dims;
  record->batches = stats.batches;
  record->candidates = stats.candidates;
  record->pairs = stats.pairs;
  record->stopped = stats.stopped;
  record->phase_count = 0;
  for (const auto& [name, seconds] : stats.phase_seconds) {
    if (record->phase_count == 8) break;
    copy_text(record->phase_name[record->phase_count], sizeof record->phase_name[0], name);
    record->phase_seconds[record->phase_count++] = seconds;
  }
  record_estimates(stats.estimates, &record->estimates);
}

JoinStats recorded_join_stats(const JobStatsRecord& record) {
  JoinStats stats;
  stats.device = record.device;
  stats.algorithm = record.algorithm;
  stats.indexed_dims = record.indexed_dims;
  stats.batches = record.batches;
  stats.candidates = record.candidates;
  stats.pairs = record.pairs;
  stats.stopped = record.stopped;
  for (int k = 0; k < record.phase_count && k < 8; ++k)
    stats.phase_seconds.emplace_back(record.phase_name[k], record.phase_seconds[k]);
  stats.estimates = recorded_estimates(record.estimates);
  return stats;
}

}  // namespace simjoin::pg
