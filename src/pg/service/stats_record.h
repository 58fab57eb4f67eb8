// A join's JoinStats as plain data (no heap members): the GPU service's job record in shared
// memory (written by the service, read back by the backend) and the custom scans' engine
// statistics summed over their runs for EXPLAIN.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/types.h"

namespace simjoin::pg {

struct EstimatesRecord {
  static constexpr int kMax = 3;  // grid, szl, brute force
  int count;
  char name[kMax][16];
  double candidates[kMax];
  double seconds[kMax];
};

inline void record_estimates(const std::vector<AlgorithmEstimate>& from, EstimatesRecord* to) {
  to->count = 0;
  for (const AlgorithmEstimate& e : from) {
    if (to->count == EstimatesRecord::kMax) break;
    std::snprintf(to->name[to->count], sizeof to->name[0], "%s", e.algorithm.c_str());
    to->candidates[to->count] = e.candidates;
    to->seconds[to->count++] = e.seconds;
  }
}

inline std::vector<AlgorithmEstimate> recorded_estimates(const EstimatesRecord& from) {
  std::vector<AlgorithmEstimate> estimates;
  for (int k = 0; k < from.count && k < EstimatesRecord::kMax; ++k)
    estimates.push_back({from.name[k], from.candidates[k], from.seconds[k]});
  return estimates;
}

// One join's statistics, or several joins' summed (add_join_stats).
struct JoinStatsRecord {
  static constexpr int kMaxPhases = 8;
  char device[96];
  char algorithm[32];
  std::int32_t indexed_dims;
  std::uint64_t batches, candidates, pairs;
  bool stopped;
  std::int32_t phase_count;
  char phase_name[kMaxPhases][24];
  double phase_seconds[kMaxPhases];
  EstimatesRecord estimates;  // the last join's (Algorithm::Auto)
};

// Adds a join's statistics to a record (zeroed for the first): counts and each phase's seconds
// summed, the rest the last join's.
inline void add_join_stats(JoinStatsRecord* record, const JoinStats& stats) {
  std::snprintf(record->device, sizeof record->device, "%s", stats.device.c_str());
  std::snprintf(record->algorithm, sizeof record->algorithm, "%s", stats.algorithm.c_str());
  record->indexed_dims = stats.indexed_dims;
  record->batches += stats.batches;
  record->candidates += stats.candidates;
  record->pairs += stats.pairs;
  record->stopped = record->stopped || stats.stopped;
  for (const auto& [name, seconds] : stats.phase_seconds) {
    int k = 0;
    while (k < record->phase_count && name != record->phase_name[k]) ++k;
    if (k == record->phase_count) {
      if (k == JoinStatsRecord::kMaxPhases) continue;
      std::snprintf(record->phase_name[k], sizeof record->phase_name[k], "%s", name.c_str());
      record->phase_seconds[k] = 0;
      record->phase_count++;
    }
    record->phase_seconds[k] += seconds;
  }
  record_estimates(stats.estimates, &record->estimates);
}

// One join's statistics as a record.
inline void record_join_stats(JoinStatsRecord* record, const JoinStats& stats) {
  std::memset(record, 0, sizeof *record);
  add_join_stats(record, stats);
}

// The record as JoinStats (for describe_join, report_join).
inline JoinStats recorded_join_stats(const JoinStatsRecord& record) {
  JoinStats stats;
  stats.device = record.device;
  stats.algorithm = record.algorithm;
  stats.indexed_dims = record.indexed_dims;
  stats.batches = record.batches;
  stats.candidates = record.candidates;
  stats.pairs = record.pairs;
  stats.stopped = record.stopped;
  for (int k = 0; k < record.phase_count && k < JoinStatsRecord::kMaxPhases; ++k)
    stats.phase_seconds.emplace_back(record.phase_name[k], record.phase_seconds[k]);
  stats.estimates = recorded_estimates(record.estimates);
  return stats;
}

}  // namespace simjoin::pg
