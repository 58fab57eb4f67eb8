// Algorithm::Auto's choice (engine/choice/algorithm_choice.h): the algorithm it picks on typical joins, the
// choice function on synthetic estimates, and the SZL's sampled work against the join's count.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/choice/algorithm_choice.h"
#include "engine/choice/work_estimate.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

JoinStats auto_join(const Points& left, const Points* right, double eps) {
  JoinSpec spec = cpu_spec(eps);
  spec.algorithm = Algorithm::Auto;
  return join_collect(left, right, spec).stats;
}

TEST(AlgorithmChoice, LowDimensionalUniformPicksTheGrid) {
  const Points points = uniform_points(40000, 2, 0.0, 100.0, 1);
  const JoinStats stats = auto_join(points, nullptr, 0.5);
  EXPECT_EQ(stats.algorithm, "grid");
  // The grid and brute force priced, the chosen first; the SZL's index and searches alone cost
  // more than the grid here, so its walk was not sampled.
  ASSERT_EQ(stats.estimates.size(), 2u);
  EXPECT_EQ(stats.estimates[0].algorithm, "grid");
  EXPECT_EQ(stats.estimates[1].algorithm, "brute-force");
  for (const AlgorithmEstimate& e : stats.estimates) EXPECT_GT(e.seconds, 0.0) << e.algorithm;
}

TEST(AlgorithmChoice, SzlSampledWhereItsIndexCostsLessThanTheGrid) {
  // 16-D uniform: the grid's candidates are most pairs, the SZL's index is cheap next to them
  // (and next to brute force's 5e9 pairs).
  const Points points = uniform_points(100000, 16, 0.0, 1.0, 9);
  const AlgorithmChoice choice = choose_algorithm(points.set(), nullptr, cpu_spec(0.3), 2, true,
                                                  cpu_algorithm_speeds());
  ASSERT_EQ(choice.estimates.size(), 3u);
  bool szl_priced = false;
  for (const AlgorithmEstimate& e : choice.estimates) szl_priced |= e.algorithm == "szl";
  EXPECT_TRUE(szl_priced);
}

TEST(AlgorithmChoice, TinyAndInfiniteEpsJoinsPickBruteForce) {
  const Points tiny = uniform_points(100, 3, 0.0, 1.0, 2);
  const JoinStats small = auto_join(tiny, nullptr, 0.1);
  EXPECT_EQ(small.algorithm, "brute-force");
  EXPECT_TRUE(small.estimates.empty());  // decided by size, nothing sampled
  const Points points = uniform_points(1500, 3, 0.0, 1.0, 3);
  EXPECT_EQ(auto_join(points, nullptr, INFINITY).algorithm, "brute-force");
  // eps beyond the diameter: every pair is a candidate anyway, brute force has no setup.
  EXPECT_EQ(auto_join(points, nullptr, 10.0).algorithm, "brute-force");
}

JoinWork grid_work_of(double n, std::size_t dim, double candidates) {
  JoinWork w;
  w.left_points = w.right_points = n;
  w.dim = dim;
  w.candidates = candidates;
  w.indexed_dims = 3;
  w.terms_per_candidate = 2.0;
  return w;
}

SzlWork szl_work_of(double n, std::size_t dim, double walked) {
  SzlWork w;
  w.build_points = w.probe_points = n;
  w.dim = dim;
  w.curves = 9.0;
  w.walked = walked;
  return w;
}

TEST(AlgorithmChoice, SzlWhereItsSampledWorkIsClearlySmaller) {
  // 16-D, 1e6 points: the grid's candidates 100x the SZL's walk.
  const JoinWork grid = grid_work_of(1e6, 16, 1e10);
  const SzlWork szl = szl_work_of(1e6, 16, 1e8);
  const AlgorithmChoice choice =
      cheapest_algorithm(&grid, &szl, BruteWork{1e12}, 16, Metric::Manhattan, 2,
                         cpu_algorithm_speeds());
  EXPECT_EQ(choice.algorithm, Algorithm::Szl);
  ASSERT_EQ(choice.estimates.size(), 3u);
  EXPECT_EQ(choice.estimates[0].algorithm, "szl");
  EXPECT_EQ(choice.estimates[1].algorithm, "grid");
  EXPECT_EQ(choice.estimates[2].algorithm, "brute-force");
  // The other way round: the grid.
  const JoinWork small_grid = grid_work_of(1e6, 16, 1e7);
  EXPECT_EQ(cheapest_algorithm(&small_grid, &szl, BruteWork{1e12}, 16, Metric::Manhattan, 2,
                               cpu_algorithm_speeds())
                .algorithm,
            Algorithm::Grid);
  // A device without the SZL (nullptr) never picks it; without a grid either, brute force.
  EXPECT_EQ(
      cheapest_algorithm(&grid, nullptr, BruteWork{1e12}, 16, Metric::Manhattan, 2,
                         cpu_algorithm_speeds())
          .algorithm,
      Algorithm::Grid);
  EXPECT_EQ(
      cheapest_algorithm(nullptr, nullptr, BruteWork{1e12}, 16, Metric::Manhattan, 2,
                         cpu_algorithm_speeds())
          .algorithm,
      Algorithm::BruteForce);
}

TEST(AlgorithmChoice, SzlPricedOnlyWhereTheDeviceRunsIt) {
  const Points points = uniform_points(8192, 16, 0.0, 1.0, 4);
  const PointSet set = points.set();
  const AlgorithmChoice without =
      choose_algorithm(set, nullptr, cpu_spec(0.3), 2, false, cpu_algorithm_speeds());
  for (const AlgorithmEstimate& e : without.estimates) EXPECT_NE(e.algorithm, "szl");
  EXPECT_EQ(without.estimates.size(), 2u);
}

// The SZL's sampled walk is within `factor` of the candidates its join counts.
void expect_szl_estimate_near(const Points& left, const Points* right, double eps,
                              double factor) {
  const PointSet right_set = right ? right->set() : PointSet{};
  const SzlWork work = estimate_szl_work(left.set(), right ? &right_set : nullptr, eps);
  JoinSpec spec = cpu_spec(eps);
  spec.algorithm = Algorithm::Szl;
  const double candidates = static_cast<double>(join_collect(left, right, spec).stats.candidates);
  EXPECT_GT(work.walked, candidates / factor) << "candidates " << candidates;
  EXPECT_LT(work.walked, candidates * factor) << "candidates " << candidates;
}

// Stated factor: 4. The estimate counts every position walked; a self-join's count leaves out
// the positions its ordering skips (each pair is tested by one of its points), about half.
TEST(AlgorithmChoice, SzlEstimateNearTheJoinsCandidates) {
  const Points uniform2 = uniform_points(50000, 2, 0.0, 100.0, 5);
  expect_szl_estimate_near(uniform2, nullptr, 0.5, 4.0);
  const Points uniform16 = uniform_points(8192, 16, 0.0, 1.0, 6);
  expect_szl_estimate_near(uniform16, nullptr, 0.3, 4.0);
  const Points all = blob_points(50000, 3, 40, 1.0, 7);  // one set of blobs, split in two
  const Points left{3, std::vector<double>(all.coords.begin(), all.coords.begin() + 3 * 30000)};
  const Points right{3, std::vector<double>(all.coords.begin() + 3 * 30000, all.coords.end())};
  expect_szl_estimate_near(left, &right, 0.3, 4.0);
  expect_szl_estimate_near(right, &left, 0.3, 4.0);
}

TEST(AlgorithmChoice, CarriedSamplesAreUsedNotTakenAgain) {
  const Points points = uniform_points(20000, 2, 0.0, 100.0, 5);
  const JoinSpec spec = cpu_spec(0.5);
  const auto grid_candidates = [](const AlgorithmChoice& choice) {
    for (const AlgorithmEstimate& e : choice.estimates)
      if (e.algorithm == "grid") return e.candidates;
    return -1.0;
  };
  // A carried sample with a thousand times the candidates: the grid is priced from it.
  JoinSpec carried = spec;
  carried.sampled.has_grid = true;
  carried.sampled.grid = estimate_join_work(points.set(), nullptr, spec);
  const double sampled_candidates = carried.sampled.grid.candidates;
  ASSERT_GT(sampled_candidates, 0.0);
  carried.sampled.grid.candidates = 1e3 * sampled_candidates;
  EXPECT_DOUBLE_EQ(grid_candidates(choose_algorithm(points.set(), nullptr, carried, 2, true,
                                                    cpu_algorithm_speeds())),
                   1e3 * sampled_candidates);
  // A sample of other inputs (another size) is not this join's: sampled again.
  const Points fewer = uniform_points(19000, 2, 0.0, 100.0, 5);
  const double fewer_candidates =
      grid_candidates(choose_algorithm(fewer.set(), nullptr, carried, 2, true,
                                       cpu_algorithm_speeds()));
  EXPECT_GT(fewer_candidates, 0.0);
  EXPECT_LT(fewer_candidates, 10.0 * sampled_candidates);
}

TEST(AlgorithmChoice, SzlNotPricedAboveItsDimensionLimit) {
  const Points wide = uniform_points(4000, kSzlMaxPricedDim + 1, 0.0, 1.0, 6);
  const JoinWork grid = estimate_join_work(wide.set(), nullptr, cpu_spec(0.5));
  EXPECT_FALSE(szl_may_be_cheapest(wide.set(), nullptr, grid, Metric::Euclidean, 16,
                                   cpu_algorithm_speeds()));
  for (const AlgorithmEstimate& e :
       choose_algorithm(wide.set(), nullptr, cpu_spec(0.5), 16, true, cpu_algorithm_speeds())
           .estimates)
    EXPECT_NE(e.algorithm, "szl");
}

TEST(AlgorithmChoice, SzlIndexSharedByAtMostOneThreadACurve) {
  // Where the index is most of the SZL's work, 64 threads cannot make it 64 times faster: it is
  // built a curve a thread.
  const JoinWork grid = grid_work_of(1e6, 16, 1e10);
  const SzlWork szl = szl_work_of(1e6, 16, 1e3);
  const auto szl_seconds = [&](int threads) {
    for (const AlgorithmEstimate& e :
         cheapest_algorithm(&grid, &szl, BruteWork{1e12}, 16, Metric::Euclidean, threads,
                            cpu_algorithm_speeds())
             .estimates)
      if (e.algorithm == "szl") return e.seconds;
    return 0.0;
  };
  EXPECT_GT(szl_seconds(64), 0.5 * szl_seconds(9));  // shared alike: 9 / 64 of it
  EXPECT_LT(szl_seconds(9), 0.2 * szl_seconds(1));
}

}  // namespace
}  // namespace simjoin
