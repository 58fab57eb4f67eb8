// run_measured_knn against its definition: per left point, every right point by the measure,
// sorted by (measure, index), those within eps, the first k. The measure here is a stretched
// Euclidean distance (x scaled by `stretch` >= 1), so that the engine's own order differs from
// it and the search needs several rounds; its reach is the identity (the engine's distance is
// never larger). Lattices for ties at the k-th measure, duplicates, k above the other side, an
// eps limit, self-joins with and without the point itself, NaN measures, a stop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/knn/measured_knn.h"
#include "knn_oracle.h"

namespace simjoin::testing {
namespace {

double stretched(const double* a, const double* b, std::size_t dim, double stretch) {
  double sum = 0;
  for (std::size_t c = 0; c < dim; ++c) {
    const double d = (a[c] - b[c]) * (c == 0 ? stretch : 1.0);
    sum += d * d;
  }
  return std::sqrt(sum);
}

// The measure, NaN for the pairs whose index sum is a multiple of `nan_every` (0: none).
KnnMeasure stretched_measure(const Points& left, const Points& right, double stretch,
                             std::size_t nan_every = 0) {
  KnnMeasure m;
  m.measure = [&left, &right, stretch, nan_every](std::size_t i, const std::uint32_t* js,
                                                  std::size_t n, double* out) {
    for (std::size_t c = 0; c < n; ++c)
      out[c] = nan_every != 0 && (i + js[c]) % nan_every == 0
                   ? std::nan("")
                   : stretched(left.set().point(i), right.set().point(js[c]), left.dim, stretch);
  };
  m.reach = [](double d) { return d; };
  return m;
}

Neighbours oracle(const Points& left, const Points* right, const KnnSpec& spec,
                  const KnnMeasure& measure) {
  return oracle_knn_by(left.n(), (right ? *right : left).n(), right == nullptr, spec,
                       [&](std::uint32_t i, std::uint32_t j) {
                         double d;
                         measure.measure(i, &j, 1, &d);
                         return d;
                       });
}

// Runs the search on run_knn_join; returns the rounds' engine calls.
std::size_t expect_measured(const Points& left, const Points* right, KnnSpec spec,
                            const KnnMeasure& measure, const char* what) {
  std::size_t calls = 0;
  const KnnRunner runner = [&calls](const PointSet& l, const PointSet* r, const KnnSpec& s,
                                    PairSink& sink) {
    ++calls;
    return run_knn_join(l, r, s, sink);
  };
  spec.batch_pairs = 7;
  CollectingSink sink;
  const PointSet right_set = right ? right->set() : PointSet{};
  const JoinStats stats =
      run_measured_knn(left.set(), right ? &right_set : nullptr, spec, measure, runner, sink);
  SCOPED_TRACE(::testing::Message() << what << " k " << spec.k << " eps " << spec.eps);
  expect_neighbours(sink, stats, oracle(left, right, spec, measure));
  return calls;
}

TEST(MeasuredKnn, StretchedMeasureTwoTablesAndSelf) {
  const Points left = uniform_points(80, 2, -1.0, 1.0, 5);
  const Points right = uniform_points(400, 2, -1.0, 1.0, 6);
  for (double stretch : {1.0, 1.01, 3.0}) {
    const KnnMeasure two = stretched_measure(left, right, stretch);
    const KnnMeasure self = stretched_measure(left, left, stretch);
    for (std::size_t k : {1, 4, 16, 500}) {
      expect_measured(left, &right, knn_spec(k), two, "two tables");
      expect_measured(left, &right, knn_spec(k, 0.2), two, "two tables, eps");
      KnnSpec spec = knn_spec(k);
      expect_measured(left, nullptr, spec, self, "self");
      spec.include_self = false;
      expect_measured(left, nullptr, spec, self, "self without itself");
      spec.eps = 0.25;
      expect_measured(left, nullptr, spec, self, "self without itself, eps");
    }
  }
}

TEST(MeasuredKnn, AMeasureFarFromTheEngineOrderTakesMoreRounds) {
  const Points left = uniform_points(50, 3, 0.0, 1.0, 7);
  const Points right = uniform_points(2000, 3, 0.0, 1.0, 8);
  EXPECT_GT(expect_measured(left, &right, knn_spec(8), stretched_measure(left, right, 8.0),
                            "stretch 8"),
            1u);
}

TEST(MeasuredKnn, LatticeTiesAndDuplicatesGoToTheSmallerIndex) {
  Points lattice = lattice_points(9, 2, 1.0, 0.0);  // stretch 2: m^2 = 4 dx^2 + dy^2, exact
  const Points copy = lattice;
  lattice.coords.insert(lattice.coords.end(), copy.coords.begin(), copy.coords.end());
  const KnnMeasure m = stretched_measure(lattice, lattice, 2.0);
  for (std::size_t k : {1, 3, 5, 9, 13}) {
    KnnSpec spec = knn_spec(k);
    expect_measured(lattice, nullptr, spec, m, "lattice self");
    spec.eps = 2.0;  // exactly at eps: (1, 0) and (0, 2) steps
    expect_measured(lattice, nullptr, spec, m, "lattice self at eps");
    spec.include_self = false;
    expect_measured(lattice, nullptr, spec, m, "lattice without itself at eps");
    expect_measured(lattice, &lattice, spec, m, "lattice two tables at eps");
  }
}

TEST(MeasuredKnn, NanMeasuresAreNeverNeighbours) {
  const Points left = uniform_points(40, 2, 0.0, 1.0, 9);
  const Points right = uniform_points(300, 2, 0.0, 1.0, 10);
  const KnnMeasure m = stretched_measure(left, right, 1.5, 3);
  for (std::size_t k : {1, 6}) {
    expect_measured(left, &right, knn_spec(k), m, "nan");
    expect_measured(left, &right, knn_spec(k, 0.1), m, "nan eps");
  }
}

TEST(MeasuredKnn, NothingForKZeroNegativeEpsOrEmptySides) {
  const Points left = uniform_points(10, 2, 0.0, 1.0, 11);
  const Points empty{2, {}};
  const KnnMeasure m = stretched_measure(left, left, 1.0);
  const KnnRunner runner = [](const PointSet& l, const PointSet* r, const KnnSpec& s,
                              PairSink& sink) { return run_knn_join(l, r, s, sink); };
  const PointSet set = left.set(), none = empty.set();
  for (const KnnSpec& spec : {knn_spec(0), knn_spec(3, -1.0)}) {
    CollectingSink sink;
    EXPECT_EQ(run_measured_knn(set, &set, spec, m, runner, sink).pairs, 0u);
    EXPECT_TRUE(sink.pairs.empty());
  }
  CollectingSink sink;
  run_measured_knn(set, &none, knn_spec(3), m, runner, sink);
  run_measured_knn(none, &set, knn_spec(3), m, runner, sink);
  EXPECT_TRUE(sink.pairs.empty());
}

TEST(MeasuredKnn, StopsWhenTheSinkAsks) {
  const Points left = uniform_points(200, 2, 0.0, 1.0, 12);
  const KnnMeasure m = stretched_measure(left, left, 1.2);
  const KnnRunner runner = [](const PointSet& l, const PointSet* r, const KnnSpec& s,
                              PairSink& sink) { return run_knn_join(l, r, s, sink); };
  KnnSpec spec = knn_spec(5);
  spec.batch_pairs = 10;
  CollectingSink sink(1);
  const PointSet set = left.set();
  const JoinStats stats = run_measured_knn(set, nullptr, spec, m, runner, sink);
  EXPECT_TRUE(stats.stopped);
  EXPECT_EQ(sink.batches, 1u);
  EXPECT_EQ(sink.pairs.size(), 10u);
}

// A cancel (keep_going false) is seen between the queries' measures, not only by the engine:
// here it comes once 500 candidates were measured, after the engine's round ended.
TEST(MeasuredKnn, StopsOnACancelWhileMeasuring) {
  class CancelAfterMeasures : public CollectingSink {
   public:
    explicit CancelAfterMeasures(const std::size_t& measured) : measured_(measured) {}
    bool keep_going() override { return measured_ < 500; }

   private:
    const std::size_t& measured_;
  };
  const Points left = uniform_points(3000, 2, 0.0, 1.0, 13);
  std::size_t measured = 0;
  KnnMeasure m = stretched_measure(left, left, 1.0);
  const auto measure = m.measure;
  m.measure = [&](std::size_t i, const std::uint32_t* js, std::size_t n, double* out) {
    measured += n;
    measure(i, js, n, out);
  };
  CancelAfterMeasures sink(measured);
  const PointSet set = left.set();
  const JoinStats stats = run_measured_knn(
      set, nullptr, knn_spec(4), m,
      [](const PointSet& l, const PointSet* r, const KnnSpec& s, PairSink& candidates) {
        return run_knn_join(l, r, s, candidates);
      },
      sink);
  EXPECT_TRUE(stats.stopped);
  EXPECT_GE(measured, 500u);
  EXPECT_LT(measured, 500u + 256u * 8u);  // within the next 256 queries' measures
}

}  // namespace
}  // namespace simjoin::testing
