// The CPU brute force's FP32 filter (engine/join/float_brute_force.h): the same pairs, distance
// bits included, as the oracle for random sets of 16 to 784 dimensions, pairs at exactly eps,
// adversarial magnitudes (huge, subnormal, a large common offset, coordinates whose mean
// overflows), near-duplicates, non-finite rows and zero vectors under cosine, self-joins in
// both modes and two inputs, 1 and 4 threads; the filter rejects most pairs of ordinary data;
// the portable and the AVX2 tiles agree; and data near eps loses pairs when the rounding terms
// are dropped (so these tests can see a bound that is too small).
#include <gtest/gtest.h>

#include <atomic>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "engine/join/float_brute_force.h"
#include "engine/join/float_tiles.h"
#include "join_scenarios.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

JoinSpec brute_spec(double eps, SelfPairs mode, int threads, Metric metric = Metric::Euclidean) {
  JoinSpec spec = cpu_spec(eps, metric, mode);
  spec.algorithm = Algorithm::BruteForce;
  spec.threads = threads;
  spec.batch_pairs = 777;
  return spec;
}

// The filtered join called directly, with the number of pairs the exact test decided.
struct FilteredRun {
  std::vector<Pair> pairs;
  std::uint64_t candidates = 0, exact_tests = 0;
  bool pass_all = false;
};

FilteredRun filtered_join(const Points& left, const Points* right, double eps, SelfPairs mode,
                          int threads, double margin = 1.0) {
  JoinParams params;
  params.bound = accumulated_bound(eps, Metric::Euclidean);
  params.self_pairs = mode;
  params.threads = threads;
  params.batch_pairs = 1000;
  const PointSet right_set = right ? right->set() : PointSet{};
  const PointSet* other = right ? &right_set : nullptr;
  const FloatFilterInputs inputs =
      make_float_filter_inputs(left.set(), other, params.bound, threads, margin);
  FilteredRun run;
  run.pass_all = inputs.pass_all;
  if (run.pass_all) return run;
  CollectingSink sink;
  std::atomic<std::uint64_t> exact{0};
  run.candidates =
      float_filtered_join(left.set(), other, inputs, params, sink, &exact).candidates;
  run.exact_tests = exact.load();
  run.pairs = sink.sorted();
  return run;
}

// Every shape of join of `points` (and `other`) through run_join's brute force and through the
// filter directly, against the oracle; returns the direct runs' exact tests and pairs tiled.
struct Counts {
  std::uint64_t exact_tests = 0, candidates = 0, pairs = 0;
};
Counts expect_all_shapes_match(const Points& points, const Points& other, double eps) {
  Counts counts;
  for (int threads : {1, 4}) {
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      SCOPED_TRACE(::testing::Message() << "threads " << threads << " unique "
                                        << (mode == SelfPairs::Unique));
      const JoinSpec spec = brute_spec(eps, mode, threads);
      const JoinStats stats = expect_matches_oracle(points, nullptr, spec);
      EXPECT_EQ(stats.algorithm, "brute-force");
      expect_matches_oracle(points, &other, spec);
      expect_matches_oracle(other, &points, spec);
      for (const Points* right : {static_cast<const Points*>(nullptr), &other}) {
        const FilteredRun run = filtered_join(points, right, eps, mode, threads);
        EXPECT_FALSE(run.pass_all);
        EXPECT_EQ(run.pairs, oracle_collect(points, right, spec));
        counts.exact_tests += run.exact_tests;
        counts.candidates += run.candidates;
        counts.pairs += run.pairs.size();
      }
    }
  }
  return counts;
}

TEST(FloatFilter, RandomSetsMatchOracleAndMostPairsAreRejected) {
  for (std::size_t dim : {16, 17, 33, 100, 128, 300, 784}) {
    SCOPED_TRACE(::testing::Message() << "dim " << dim);
    const std::size_t n = dim >= 300 ? 150 : 260;
    const Points sets[][2] = {
        {uniform_points(n, dim, -1.0, 1.0, 3 + dim),
         uniform_points(n / 2 + 3, dim, -1.0, 1.0, 4 + dim)},
        {blob_points(n, dim, 6, 0.4, 5 + dim), blob_points(n / 3 + 1, dim, 6, 0.4, 5 + dim)},
        {exponential_points(n, dim, 40.0, 7 + dim), exponential_points(n - 9, dim, 40.0, 8 + dim)}};
    for (const auto& set : sets) {
      const double eps = eps_from_sample(set[0], Metric::Euclidean);  // 1% of pairs
      const Counts counts = expect_all_shapes_match(set[0], set[1], eps);
      EXPECT_GT(counts.pairs, 0u);
      // The filter decides most pairs: fewer than a quarter go to the exact test.
      EXPECT_LT(counts.exact_tests * 4, counts.candidates);
      EXPECT_GE(counts.exact_tests, counts.pairs / 2);  // every match passed the filter
    }
  }
}

// Integer lattices (squared distances exact in double, many pairs at exactly eps), also shifted
// by 1e6 and on a 0.1 step (not exact in binary).
TEST(FloatFilter, PairsAtExactlyEps) {
  std::mt19937_64 rng(17);
  for (std::size_t dim : {16, 40}) {
    for (double offset : {0.0, 1e6}) {
      for (double step : {1.0, 0.1}) {
        SCOPED_TRACE(::testing::Message() << "dim " << dim << " offset " << offset << " step "
                                          << step);
        std::uniform_int_distribution<int> cell(0, 2);
        Points points{dim, std::vector<double>(300 * dim)};
        Points other{dim, std::vector<double>(90 * dim)};
        for (Points* p : {&points, &other})
          for (double& x : p->coords) x = offset + step * cell(rng);
        for (double eps : {step, 2.0 * step, std::sqrt(5.0) * step})
          expect_all_shapes_match(points, other, eps);
      }
    }
  }
}

TEST(FloatFilter, HugeTinyAndOffsetCoordinates) {
  struct Case {
    double offset, spread, eps;
  };
  for (const Case& c : {Case{0.0, 1e150, 3e149}, Case{-1e150, 1e150, 2e149},
                        Case{0.0, 1e-310, 4e-311}, Case{0.0, 1e-300, 3e-301},
                        Case{1e8, 1e-3, 3e-4}, Case{-3e12, 1.0, 0.25}}) {
    SCOPED_TRACE(::testing::Message() << "offset " << c.offset << " spread " << c.spread);
    const Points points = uniform_points(200, 24, c.offset, c.offset + c.spread, 21);
    const Points other = uniform_points(70, 24, c.offset, c.offset + c.spread, 22);
    for (double eps : {c.eps, c.eps * 2.0}) expect_all_shapes_match(points, other, eps);
  }
  // Subnormal squares: the exact test's sum underflows, and pairs match that are apart.
  Points tiny = uniform_points(120, 20, 0.0, 4e-162, 23);
  const Points tiny_other = uniform_points(50, 20, 0.0, 4e-162, 24);
  expect_all_shapes_match(tiny, tiny_other, 1e-162);
}

// Finite coordinates near +-DBL_MAX: the mean or a shift by it overflows, and every finite pair
// goes to the exact test (equal points out there still match).
TEST(FloatFilter, CoordinatesWhoseMeanOverflows) {
  for (bool both_signs : {false, true}) {
    Points points = uniform_points(150, 20, 0.0, 1.0, 51);
    for (std::size_t i : {3, 4, 100}) std::fill(points.point(i), points.point(i) + 20, 1.5e308);
    for (std::size_t i : {120, 121})
      std::fill(points.point(i), points.point(i) + 20, both_signs ? -1.5e308 : DBL_MAX);
    const Points other = uniform_points(40, 20, 0.0, 1.0, 52);
    EXPECT_TRUE(filtered_join(points, nullptr, 1.0, SelfPairs::All, 1).pass_all);
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique}) {
      const JoinStats stats = expect_matches_oracle(points, nullptr, brute_spec(1.2, mode, 2));
      EXPECT_GE(stats.pairs, 4u);
      expect_matches_oracle(points, &other, brute_spec(1.2, mode, 4));
    }
  }
}

// Copies and copies moved by an ulp, eps 0 and tiny; rows with NaN and infinities.
TEST(FloatFilter, NearDuplicatesAndNonFiniteRows) {
  Points points = blob_points(400, 48, 4, 0.05, 31);
  for (std::size_t i = 0; i + 1 < points.n(); i += 7) {
    std::copy(points.point(i), points.point(i) + 48, points.point(i + 1));
    if (i % 3 == 0) points.point(i + 1)[i % 48] = std::nextafter(points.point(i)[i % 48], 1e9);
  }
  points.point(5)[3] = std::numeric_limits<double>::quiet_NaN();
  points.point(200)[47] = std::numeric_limits<double>::infinity();
  points.point(201)[0] = -std::numeric_limits<double>::infinity();
  const Points other = blob_points(61, 48, 4, 0.05, 32);
  for (double eps : {0.0, 1e-15, 0.3}) expect_all_shapes_match(points, other, eps);
}

TEST(FloatFilter, CosineWithZeroVectors) {
  Points points = blob_points(300, 64, 5, 3.0, 41);
  for (std::size_t i = 0; i < points.n(); i += 37)
    std::fill(points.point(i), points.point(i) + 64, 0.0);
  points.point(7)[2] = std::numeric_limits<double>::quiet_NaN();
  const Points other = blob_points(80, 64, 5, 3.0, 42);
  for (int threads : {1, 4})
    for (SelfPairs mode : {SelfPairs::All, SelfPairs::Unique})
      for (double eps : {0.0, 1e-3, 0.05}) {
        const JoinSpec spec = brute_spec(eps, mode, threads, Metric::Cosine);
        EXPECT_EQ(expect_matches_oracle(points, nullptr, spec).algorithm,
                  "brute-force on unit vectors");
        expect_matches_oracle(points, &other, spec);
      }
}

TEST(FloatFilter, PortableTileGivesTheSameBits) {
  for (std::size_t dim : {16, 31, 100, 257}) {
    const Points points = blob_points(64, dim, 3, 0.5, 61 + dim);
    const PointSet set = points.set();
    const double eps = eps_from_sample(points, Metric::Euclidean) * 3.0;
    const FloatFilterInputs inputs = make_float_filter_inputs(
        set, nullptr, accumulated_bound(eps, Metric::Euclidean), 1);
    std::uint64_t passed = 0;
    for (std::size_t p = 0; p < inputs.left.panels(); ++p)
      for (std::size_t q = 0; q < inputs.left.panels(); ++q) {
        const FloatPanel rows = float_panel(inputs.left, p), cols = float_panel(inputs.left, q);
        const std::uint64_t bits = float_tile()(rows, cols, dim);
        EXPECT_EQ(bits, float_tile_portable(rows, cols, dim));
        passed |= bits;
      }
    EXPECT_NE(passed, 0u);
  }
}

// The partners at eps match with the proven terms and are lost without them.
TEST(FloatFilter, DroppingTheRoundingTermsLosesPairs) {
  std::size_t lost = 0;
  for (std::size_t dim : {64, 128}) {
    const Points points =
        with_partners_at(uniform_points(400, dim, 5.0, 6.0, 41 + dim), 0.01, 42 + dim);
    const std::vector<Pair> expected =
        oracle_collect(points, nullptr, brute_spec(0.01, SelfPairs::Unique, 2));
    EXPECT_EQ(filtered_join(points, nullptr, 0.01, SelfPairs::Unique, 2).pairs, expected);
    const std::size_t without =
        filtered_join(points, nullptr, 0.01, SelfPairs::Unique, 2, 0.0).pairs.size();
    EXPECT_LE(without, expected.size());
    lost += expected.size() - std::min(without, expected.size());
  }
  EXPECT_GT(lost, 0u);
}

// A sink that stops after two batches stops the filtered join.
TEST(FloatFilter, StopsWhenTheSinkSaysSo) {
  const Points points = blob_points(3000, 32, 2, 0.3, 71);
  JoinSpec spec = brute_spec(10.0, SelfPairs::All, 4);
  spec.batch_pairs = 100;
  CollectingSink sink(2);
  const PointSet set = points.set();
  const JoinStats stats = run_join(set, nullptr, spec, sink);
  EXPECT_TRUE(stats.stopped);
  EXPECT_LE(sink.batches, 2u);
}

}  // namespace
}  // namespace simjoin
