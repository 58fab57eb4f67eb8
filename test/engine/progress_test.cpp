// PairSink::progress: the engine reports the candidates it has finished, never decreasing, ending
// at the join's own count (what the GPU service shows in simjoin_jobs()).
#include <gtest/gtest.h>

#include <vector>

#include "engine/join/chunked_join.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

class ProgressSink : public PairSink {
 public:
  bool consume(const PairBatch&) override { return true; }
  void progress(std::uint64_t candidates_done) override { reports.push_back(candidates_done); }
  std::vector<std::uint64_t> reports;
};

void expect_progress_ends_at_candidates(const JoinStats& stats, const ProgressSink& sink) {
  ASSERT_FALSE(sink.reports.empty());
  for (std::size_t k = 1; k < sink.reports.size(); ++k)
    EXPECT_LE(sink.reports[k - 1], sink.reports[k]) << "report " << k;
  EXPECT_EQ(sink.reports.back(), stats.candidates);
  EXPECT_GT(stats.candidates, 0u);
}

TEST(Progress, TheCpuGridReportsItsCandidates) {
  const Points points = uniform_points(30000, 3, 0.0, 10.0, 3);
  ProgressSink sink;
  JoinSpec spec = cpu_spec(0.3);
  spec.batch_pairs = 1024;  // many batches: many reports
  const JoinStats stats = run_join(points.set(), nullptr, spec, sink);
  expect_progress_ends_at_candidates(stats, sink);
  EXPECT_GT(sink.reports.size(), 2u);
}

TEST(Progress, TheChunkedJoinAddsUpItsChunks) {
  const Points left = uniform_points(6000, 2, 0.0, 10.0, 4);
  const Points right = uniform_points(5000, 2, 0.0, 10.0, 5);
  const PointSet right_set = right.set();
  ProgressSink sink;
  const JoinStats stats = run_chunked_join(left.set(), &right_set, cpu_spec(0.2), 1000, run_join, sink);
  expect_progress_ends_at_candidates(stats, sink);
}

}  // namespace
}  // namespace simjoin
