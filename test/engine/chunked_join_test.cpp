// The chunked join (engine/join/chunked_join.h) with the CPU engine joining the chunk pairs, against the
// oracle: every shape, metric and chunk size, ties at eps across chunk boundaries, non-finite
// points, pruning of distant chunk pairs, stopping, stats.
#include "engine/join/chunked_join.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>

#include "engine/join/chunk_split.h"
#include "join_scenarios.h"
#include "random_join_cases.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr Metric kMetrics[] = {Metric::Euclidean, Metric::Manhattan, Metric::Chebyshev};

// run_chunked_join in chunks of `chunk_points` with run_join as the chunk join; counts the chunk
// joins in *calls when given.
JoinFunction chunked(std::size_t chunk_points, std::size_t* calls = nullptr) {
  return [=](const PointSet& left, const PointSet* right, const JoinSpec& spec, PairSink& sink) {
    const ChunkJoinFn cpu = [=](const PointSet& l, const PointSet* r, const JoinSpec& s,
                                PairSink& out) {
      if (calls) ++*calls;
      return run_join(l, r, s, out);
    };
    return run_chunked_join(left, right, spec, chunk_points, cpu, sink);
  };
}

// The chunk sizes of every comparison: single points, small, large, everything.
std::vector<std::size_t> chunk_sizes(std::size_t n) { return {1, 7, 100, n}; }

// "R of T chunk pairs" from the stats' algorithm.
std::pair<std::size_t, std::size_t> chunk_pairs_of(const JoinStats& stats) {
  const std::size_t at = stats.algorithm.find("chunked: ");
  if (at == std::string::npos) return {0, 0};
  std::size_t ran = 0, total = 0;
  std::sscanf(stats.algorithm.c_str() + at, "chunked: %zu of %zu", &ran, &total);
  return {ran, total};
}

class ChunkedRandomJoin : public ::testing::TestWithParam<RandomJoinParam> {};

TEST_P(ChunkedRandomJoin, MatchesOracle) {
  const RandomJoinInputs in = random_join_inputs(GetParam(), {90, 130}, {70, 140});
  JoinSpec spec = cpu_spec(in.eps, in.metric, in.mode);
  spec.batch_pairs = seed_of(GetParam()) % 3 == 0 ? 7 : 1000;  // 7: doubled pairs are re-split
  for (std::size_t chunk_points : chunk_sizes(in.left.n())) {
    SCOPED_TRACE("chunk_points " + std::to_string(chunk_points));
    std::size_t calls = 0;
    const JoinStats stats =
        expect_matches_oracle(in.left, in.right_input(), spec, chunked(chunk_points, &calls));
    EXPECT_FALSE(stats.stopped);
    const auto [ran, total] = chunk_pairs_of(stats);
    EXPECT_EQ(total > 0 ? ran : 1u, calls);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dims, ChunkedRandomJoin,
    random_join_params(::testing::Values(1, 2, 3, 8, 32)), random_join_name);

// expect_all_shapes_match (self-joins, two inputs both ways) for every metric, eps and chunk size.
void expect_chunked_shapes_match(const Points& points, std::initializer_list<double> eps_values) {
  for (Metric metric : kMetrics) {
    for (double eps : eps_values) {
      for (std::size_t chunk_points : chunk_sizes(points.n())) {
        SCOPED_TRACE("dim " + std::to_string(points.dim) + " eps " + std::to_string(eps) +
                     " chunk_points " + std::to_string(chunk_points));
        expect_all_shapes_match(points, eps, metric, chunked(chunk_points));
      }
    }
  }
}

// Lattices: many pairs exactly at eps, also between neighbouring chunks (a skip rule that is off
// by one rounding drops them).
TEST(ChunkedJoin, LatticePairsAtEps) {
  for (std::size_t dim : {1, 2, 3}) {
    const std::size_t side = dim == 1 ? 60 : dim == 2 ? 8 : 4;
    expect_chunked_shapes_match(lattice_points(side, dim, 0.1, dim == 2 ? -0.4 : 0.3),
                                {0.1, 0.2, std::sqrt(0.02), 0.3});
  }
}

TEST(ChunkedJoin, ExactDuplicates) {
  expect_chunked_shapes_match(exact_duplicates(150), {0.0, 0.3});
}

TEST(ChunkedJoin, NonFiniteCoordinatesNeverMatchFiniteEps) {
  expect_chunked_shapes_match(with_non_finite(120, 1), {1.5});
}

// eps = +inf: points with an infinite coordinate match (except where inf - inf = NaN), and every
// chunk pair runs.
TEST(ChunkedJoin, InfiniteEpsKeepsNonFinitePoints) {
  const Points points = with_non_finite(60, 3);
  expect_chunked_shapes_match(points, {kInf});
  const auto [ran, total] =
      chunk_pairs_of(expect_matches_oracle(points, nullptr, cpu_spec(kInf), chunked(7)));
  EXPECT_EQ(ran, total);
  EXPECT_EQ(total, 9u * 10 / 2);
}

TEST(ChunkedJoin, SkipsChunkPairsFartherThanEps) {
  for (std::size_t dim : {1, 2}) {
    const Points points = uniform_points(2000, dim, 0.0, 1000.0, 40 + dim);
    const Points other = uniform_points(1500, dim, 0.0, 1000.0, 50 + dim);
    for (Metric metric : kMetrics) {
      const JoinSpec spec = cpu_spec(2.0, metric, SelfPairs::Unique);
      std::size_t calls = 0;
      const JoinStats self = expect_matches_oracle(points, nullptr, spec, chunked(50, &calls));
      EXPECT_EQ(chunk_pairs_of(self), std::make_pair(calls, std::size_t{40 * 41 / 2}));
      EXPECT_LT(calls, 40u * 41 / 2 / 4);
      EXPECT_GT(self.pairs, 0u);
      calls = 0;
      const JoinStats two = expect_matches_oracle(points, &other, spec, chunked(50, &calls));
      EXPECT_EQ(chunk_pairs_of(two), std::make_pair(calls, std::size_t{40 * 30}));
      EXPECT_LT(calls, 40u * 30 / 4);
    }
  }
}

// Two chunks whose gap is exactly eps may match; one ulp less eps proves they cannot.
TEST(ChunkedJoin, ChunksMayMatchIsExactAtTheGap) {
  const Points points{2, {0.0, 5.0, 1.0, 5.5, 1.5, 9.0, 2.0, 5.0}};
  const ChunkedInput split = split_sorted(points.set(), 0, 2);
  ASSERT_EQ(split.chunks.size(), 2u);
  const Chunk& a = split.chunks[0];  // x in [0, 1], y in [5, 5.5]
  const Chunk& b = split.chunks[1];  // x in [1.5, 2], y in [5, 9]
  for (Metric metric : kMetrics) {
    EXPECT_TRUE(chunks_may_match(a, b, metric, accumulated_bound(0.5, metric)));
    EXPECT_TRUE(chunks_may_match(b, a, metric, accumulated_bound(0.5, metric)));
    const double below = std::nextafter(0.5, 0.0);
    EXPECT_FALSE(chunks_may_match(a, b, metric, accumulated_bound(below, metric)));
    EXPECT_FALSE(chunks_may_match(b, a, metric, accumulated_bound(below, metric)));
  }
}

TEST(ChunkedJoin, SplitDropsNonFinitePointsAndSortsOnTheSplitDimension) {
  const Points points{2, {3.0, 0.0, kNaN, 1.0, 1.0, 2.0, 2.0, kInf, 0.5, 3.0}};
  const ChunkedInput split = split_sorted(points.set(), 0, 2);
  ASSERT_EQ(split.chunks.size(), 2u);
  std::vector<std::uint32_t> first_ids(split.chunks[0].ids, split.chunks[0].ids + 2);
  std::sort(first_ids.begin(), first_ids.end());  // a chunk's members, in no particular order
  EXPECT_EQ(first_ids, (std::vector<std::uint32_t>{2, 4}));
  EXPECT_EQ(split.chunks[1].points.n, 1u);
  EXPECT_EQ(split.chunks[1].ids[0], 0u);
  EXPECT_EQ(split.chunks[0].lo, (std::vector<double>{0.5, 2.0}));
  EXPECT_EQ(split.chunks[0].hi, (std::vector<double>{1.0, 3.0}));
  Points wide = uniform_points(500, 3, 0.0, 1.0, 9);
  for (std::size_t i = 0; i < wide.n(); ++i) wide.point(i)[1] *= 100.0;
  EXPECT_EQ(split_dimension(wide.set(), nullptr), 1u);
}

// A sink that stops after its first batch: no further chunk pair runs.
TEST(ChunkedJoin, SinkReturningFalseStopsEarly) {
  const Points points = uniform_points(2000, 1, 0.0, 20.0, 60);
  for (bool self : {true, false}) {
    std::size_t calls = 0;
    CollectingSink sink(1);
    const PointSet set = points.set();
    JoinSpec spec = cpu_spec(1.0);
    spec.batch_pairs = 10;
    const JoinStats stats = chunked(50, &calls)(set, self ? nullptr : &set, spec, sink);
    EXPECT_TRUE(stats.stopped);
    EXPECT_EQ(sink.batches, 1u);
    EXPECT_EQ(stats.batches, 1u);
    EXPECT_EQ(stats.pairs, sink.pairs.size());
    EXPECT_EQ(calls, 1u);
    EXPECT_LT(calls, chunk_pairs_of(stats).second);
  }
}

// keep_going() false before the first chunk pair: nothing runs.
TEST(ChunkedJoin, KeepGoingFalseStopsBeforeTheNextChunkPair) {
  const Points points = uniform_points(500, 2, 0.0, 10.0, 61);
  CancelAfter sink(0.0);
  std::size_t calls = 0;
  const PointSet set = points.set();
  const JoinStats stats = chunked(50, &calls)(set, nullptr, cpu_spec(1.0), sink);
  EXPECT_TRUE(stats.stopped);
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(sink.pairs, 0u);
  EXPECT_GT(sink.polls, 0);
}

// Inputs that fit in one chunk (or chunk_points 0) go to the chunk join as they are.
TEST(ChunkedJoin, WholeInputsWhenTheyFit) {
  const Points left = uniform_points(100, 3, 0.0, 1.0, 62);
  const Points right = uniform_points(80, 3, 0.0, 1.0, 63);
  const PointSet left_set = left.set(), right_set = right.set();
  for (std::size_t chunk_points : {std::size_t{0}, std::size_t{100}, std::size_t{1000}}) {
    std::size_t calls = 0;
    const ChunkJoinFn check = [&](const PointSet& l, const PointSet* r, const JoinSpec& s,
                                  PairSink& out) {
      ++calls;
      EXPECT_EQ(l.coords, left_set.coords);
      EXPECT_EQ(r ? r->coords : nullptr, right_set.coords);
      return run_join(l, r, s, out);
    };
    CollectingSink sink;
    const JoinStats stats =
        run_chunked_join(left_set, &right_set, cpu_spec(0.3), chunk_points, check, sink);
    EXPECT_EQ(calls, 1u);
    EXPECT_EQ(stats.algorithm.find("chunked"), std::string::npos);
    EXPECT_EQ(sink.sorted(), oracle_collect(left, &right, cpu_spec(0.3)));
  }
}

TEST(ChunkedJoin, StatsAddUpTheChunkJoins) {
  const Points points = uniform_points(600, 2, 0.0, 30.0, 64);
  std::size_t calls = 0;
  JoinSpec spec = cpu_spec(0.5, Metric::Euclidean, SelfPairs::All);
  spec.batch_pairs = 5;
  const JoinStats stats = expect_matches_oracle(points, nullptr, spec, chunked(40, &calls));
  EXPECT_EQ(stats.device, "cpu");
  EXPECT_EQ(chunk_pairs_of(stats).first, calls);
  EXPECT_EQ(chunk_pairs_of(stats).second, 15u * 16 / 2);
  EXPECT_NE(stats.algorithm.find("brute-force"), std::string::npos);
  EXPECT_GE(stats.candidates, calls);
  ASSERT_FALSE(stats.phase_seconds.empty());
  EXPECT_EQ(stats.phase_seconds[0].first, "chunk");
  for (std::size_t p = 0; p < stats.phase_seconds.size(); ++p) {
    for (std::size_t q = p + 1; q < stats.phase_seconds.size(); ++q) {
      EXPECT_NE(stats.phase_seconds[p].first, stats.phase_seconds[q].first);
    }
  }
}

TEST(ChunkedJoin, EmptyNothingMatchingAndZeroDimensionalInputs) {
  const Points empty{3, {}};
  const Points points = uniform_points(50, 3, 0.0, 1.0, 65);
  for (double eps : {1.0, -1.0, kNaN}) {
    EXPECT_TRUE(join_collect(empty, &points, cpu_spec(eps), chunked(7)).pairs.empty());
    EXPECT_TRUE(join_collect(points, &empty, cpu_spec(eps), chunked(7)).pairs.empty());
  }
  EXPECT_TRUE(join_collect(points, nullptr, cpu_spec(kNaN), chunked(7)).pairs.empty());
  EXPECT_TRUE(join_collect(points, &points, cpu_spec(-1.0), chunked(7)).pairs.empty());
  const double dummy = 0.0;
  const PointSet none{&dummy, 5, 0};
  for (double eps : {0.0, kInf}) {
    CollectingSink sink;
    const JoinSpec unique = cpu_spec(eps, Metric::Euclidean, SelfPairs::Unique);
    EXPECT_EQ(run_chunked_join(none, nullptr, unique, 2, run_join, sink).pairs, 10u);
    EXPECT_EQ(run_chunked_join(none, &none, cpu_spec(eps), 2, run_join, sink).pairs, 25u);
  }
}

TEST(ChunkedJoin, DifferentDimensionsThrow) {
  const Points a = uniform_points(10, 3, 0.0, 1.0, 66);
  const Points b = uniform_points(10, 4, 0.0, 1.0, 67);
  const PointSet a_set = a.set(), b_set = b.set();
  CollectingSink sink;
  EXPECT_THROW(run_chunked_join(a_set, &b_set, cpu_spec(1.0), 3, run_join, sink), Error);
}

}  // namespace
}  // namespace simjoin
