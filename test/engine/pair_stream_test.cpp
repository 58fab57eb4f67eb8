// The engine on a producer thread feeding a bounded queue (engine/parallel/pair_stream.h): the same pairs as
// run_join, bounded buffering, early stop, interrupts, errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "join_scenarios.h"
#include "engine/parallel/pair_stream.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;
using std::chrono::milliseconds;

// Drains the stream; returns its pairs sorted. `slow`: the consumer sleeps between batches.
std::vector<Pair> drain(PairStream& stream, bool slow = false, std::size_t* batches = nullptr) {
  std::vector<Pair> pairs;
  StreamBatch batch;
  for (;;) {
    const PairStream::Next next = stream.next(&batch, milliseconds(50));
    if (next == PairStream::Next::End) break;
    if (next == PairStream::Next::Timeout) continue;
    for (std::size_t k = 0; k < batch.size; ++k)
      pairs.push_back({batch.left[k], batch.right[k], batch.distance ? batch.distance[k] : 0.0});
    if (batches) ++*batches;
    if (slow) std::this_thread::sleep_for(milliseconds(1));
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// map_pairs rewrites each batch on the producer thread: here it keeps the pairs whose left index
// is even and swaps the sides, which the consumer then receives (and nothing else).
TEST(PairStream, MapPairsRewritesBatchesOnTheProducer) {
  const Points points = blob_points(3000, 2, 5, 2.0, 9);
  JoinSpec spec = cpu_spec(0.5);
  spec.batch_pairs = 100;
  const PointSet set = points.set();
  CollectingSink direct;
  run_join(set, nullptr, spec, direct);
  std::vector<Pair> expected;
  for (const Pair& p : direct.pairs)
    if (p.l % 2 == 0) expected.push_back({p.r, p.l, p.d});
  std::sort(expected.begin(), expected.end());
  PairStream::Options options;
  options.map_pairs = [](std::uint32_t* l, std::uint32_t* r, double* d, std::size_t size) {
    std::size_t kept = 0;
    for (std::size_t k = 0; k < size; ++k) {
      if (l[k] % 2 != 0) continue;
      const std::uint32_t left = l[k];
      l[kept] = r[k];
      r[kept] = left;
      d[kept] = d[k];
      ++kept;
    }
    return kept;
  };
  PairStream stream(set, nullptr, spec, options);
  EXPECT_EQ(drain(stream), expected);
  EXPECT_FALSE(stream.error());
}

TEST(PairStream, DeliversTheSamePairsAsRunJoin) {
  const Points left = blob_points(3000, 2, 5, 2.0, 7);
  const Points right = blob_points(2000, 2, 5, 2.0, 8);
  for (std::size_t batch_pairs : {1, 100, 65536}) {
    for (bool slow : {false, true}) {
      if (slow && batch_pairs == 1) continue;
      JoinSpec spec = cpu_spec(0.5);
      spec.batch_pairs = batch_pairs;
      CollectingSink direct;
      const PointSet l = left.set(), r = right.set();
      const JoinStats expected = run_join(l, &r, spec, direct);
      PairStream::Options options;
      options.queue_batches = 2;
      PairStream stream(l, &r, spec, options);
      std::size_t batches = 0;
      const std::vector<Pair> pairs = drain(stream, slow, &batches);
      EXPECT_EQ(pairs, direct.sorted());
      EXPECT_FALSE(stream.error());
      EXPECT_FALSE(stream.stats().stopped);
      EXPECT_EQ(stream.stats().pairs, expected.pairs);
      EXPECT_EQ(stream.pairs_pushed(), expected.pairs);
      EXPECT_EQ(batches, stream.stats().batches);
    }
  }
}

// The progress the consumer reads (BatchSource::candidates_done, as PostgreSQL's progress view
// shows it) never decreases while the stream runs and ends at the join's candidates.
TEST(PairStream, CandidatesDoneGrowToTheJoinsCandidates) {
  const Points points = blob_points(20000, 2, 5, 2.0, 9);
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
    JoinSpec spec = cpu_spec(0.3);
    spec.algorithm = algorithm;
    spec.batch_pairs = 1000;
    PairStream::Options options;
    options.queue_batches = 1;
    const PointSet set = points.set();
    PairStream stream(set, nullptr, spec, options);
    std::uint64_t seen = 0;
    bool decreased = false;
    StreamBatch batch;
    for (;;) {
      const std::uint64_t done = stream.candidates_done();
      decreased = decreased || done < seen;
      seen = done;
      if (stream.next(&batch, milliseconds(50)) == PairStream::Next::End) break;
    }
    EXPECT_FALSE(decreased);
    EXPECT_GT(stream.stats().candidates, 0u);
    EXPECT_EQ(stream.candidates_done(), stream.stats().candidates);
  }
}

TEST(PairStream, SelfJoinAndNoDistances) {
  const Points points = uniform_points(2000, 3, 0.0, 10.0, 3);
  JoinSpec spec = cpu_spec(1.0);
  spec.batch_pairs = 500;
  CollectingSink direct;
  const PointSet set = points.set();
  run_join(set, nullptr, spec, direct);
  std::vector<Pair> expected = direct.sorted();
  for (Pair& p : expected) p.d = 0.0;
  std::sort(expected.begin(), expected.end());
  PairStream::Options options;
  options.keep_distance = false;
  PairStream stream(set, nullptr, spec, options);
  EXPECT_EQ(drain(stream), expected);
}

TEST(PairStream, BoundedQueueAndEarlyStop) {
  const Points points = huge_cell();  // 20000 points in one cell: 4e8 pairs
  JoinSpec spec = cpu_spec(0.5);
  spec.batch_pairs = 1000;
  PairStream::Options options;
  options.queue_batches = 3;
  const PointSet set = points.set();
  PairStream stream(set, nullptr, spec, options);
  StreamBatch batch;
  while (stream.next(&batch, milliseconds(50)) != PairStream::Next::Batch) {
  }
  EXPECT_EQ(batch.size, 1000u);
  std::this_thread::sleep_for(milliseconds(200));  // the producer fills the queue and waits
  // queued + the one being copied + the one the consumer holds
  EXPECT_LE(stream.pairs_pushed(), (options.queue_batches + 2) * spec.batch_pairs);
  const auto start = Clock::now();
  stream.stop();
  EXPECT_LT(seconds_since(start), 1.0);
  EXPECT_TRUE(stream.stats().stopped);
  EXPECT_FALSE(stream.error());
  EXPECT_LT(stream.stats().pairs, 100000u);
  EXPECT_EQ(stream.next(&batch, milliseconds(0)), PairStream::Next::End);
}

TEST(PairStream, DestroyedWithoutConsuming) {
  const Points points = huge_cell();
  JoinSpec spec = cpu_spec(0.5);
  const PointSet set = points.set();
  const auto start = Clock::now();
  { PairStream stream(set, nullptr, spec, PairStream::Options{}); }
  EXPECT_LT(seconds_since(start), 2.0);
}

TEST(PairStream, InterruptStopsTheProducer) {
  const Points points = huge_cell();
  JoinSpec spec = cpu_spec(0.5);
  spec.batch_pairs = 1000;
  std::atomic<bool> interrupted{false};
  PairStream::Options options;
  options.interrupted = [&interrupted] { return interrupted.load(); };
  const PointSet set = points.set();
  PairStream stream(set, nullptr, spec, options);
  StreamBatch batch;
  std::size_t batches = 0;
  const auto start = Clock::now();
  for (;;) {
    const PairStream::Next next = stream.next(&batch, milliseconds(50));
    if (next == PairStream::Next::End) break;
    if (next == PairStream::Next::Batch && ++batches == 10) interrupted = true;
    ASSERT_LT(seconds_since(start), 10.0);
  }
  EXPECT_TRUE(stream.stats().stopped);
  EXPECT_FALSE(stream.error());
}

// What a consumer saw, checked batch by batch: each batch in (right, left) order.
struct OrderedDrain {
  std::vector<Pair> pairs;
  std::size_t batches = 0;
  bool unsorted = false;
  void take(const StreamBatch& batch) {
    ++batches;
    for (std::size_t k = 0; k < batch.size; ++k) {
      if (k > 0 && std::make_pair(batch.right[k - 1], batch.left[k - 1]) >
                       std::make_pair(batch.right[k], batch.left[k]))
        unsorted = true;
      pairs.push_back({batch.left[k], batch.right[k], batch.distance ? batch.distance[k] : 0.0});
    }
  }
};

std::vector<Pair> without_distances(std::vector<Pair> pairs) {
  for (Pair& p : pairs) p.d = 0.0;
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// order_by_right through a queue of one batch, from the workers of every CPU algorithm (the
// cosine join refines on the calling thread: its batches are copied in): every pair once, each
// batch sorted, the distances moved along with their pairs.
TEST(PairStream, OrderByRightThroughASmallQueueLosesNothing) {
  const Points left = uniform_points(2500, 2, 0.0, 10.0, 11);
  const Points right = uniform_points(2000, 2, 0.0, 10.0, 12);
  const PointSet l = left.set(), r = right.set();
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce, Algorithm::Szl}) {
    for (Metric metric : {Metric::Euclidean, Metric::Cosine}) {
      for (bool keep_distance : {true, false}) {
        JoinSpec spec = cpu_spec(metric == Metric::Cosine ? 1e-4 : 0.4, metric);
        spec.algorithm = algorithm;
        spec.threads = 4;
        spec.batch_pairs = 97;
        CollectingSink direct;
        run_join(l, &r, spec, direct);
        ASSERT_GT(direct.pairs.size(), 10000u);
        PairStream::Options options;
        options.queue_batches = 1;
        options.order_by_right = true;
        options.keep_distance = keep_distance;
        PairStream stream(l, &r, spec, options);
        OrderedDrain seen;
        StreamBatch batch;
        for (;;) {
          const PairStream::Next next = stream.next(&batch, milliseconds(50));
          if (next == PairStream::Next::End) break;
          if (next == PairStream::Next::Batch) seen.take(batch);
        }
        SCOPED_TRACE(::testing::Message() << "algorithm " << static_cast<int>(algorithm)
                                        << " metric " << static_cast<int>(metric)
                                        << " keep_distance " << keep_distance);
        EXPECT_FALSE(stream.error());
        EXPECT_FALSE(seen.unsorted);
        std::sort(seen.pairs.begin(), seen.pairs.end());
        EXPECT_EQ(seen.pairs, keep_distance ? direct.sorted() : without_distances(direct.pairs));
        EXPECT_EQ(stream.pairs_pushed(), direct.pairs.size());
        EXPECT_EQ(stream.stats().pairs, direct.pairs.size());
        EXPECT_EQ(seen.batches, stream.stats().batches);
        EXPECT_FALSE(stream.stats().stopped);
      }
    }
  }
}

// A consumer that stops after a few sorted batches: what it saw is part of the result, each
// pair once, and the workers stop with the queue's bound of pairs pushed.
TEST(PairStream, OrderByRightEarlyStopSeesEachPairOnce) {
  const Points points = huge_cell(4000);  // 1.6e7 pairs
  const PointSet set = points.set();
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
    JoinSpec spec = cpu_spec(0.5);
    spec.algorithm = algorithm;
    spec.threads = 4;
    spec.batch_pairs = 500;
    PairStream::Options options;
    options.queue_batches = 2;
    options.order_by_right = true;
    PairStream stream(set, nullptr, spec, options);
    OrderedDrain seen;
    StreamBatch batch;
    while (seen.batches < 7) {
      const PairStream::Next next = stream.next(&batch, milliseconds(50));
      ASSERT_NE(next, PairStream::Next::End);
      if (next == PairStream::Next::Batch) seen.take(batch);
    }
    std::this_thread::sleep_for(milliseconds(100));  // the workers fill the queue and wait
    const std::uint64_t pushed = stream.pairs_pushed();
    // seen + queued + the one the consumer holds
    EXPECT_LE(pushed, (7 + options.queue_batches + 1) * spec.batch_pairs);
    stream.stop();
    EXPECT_TRUE(stream.stats().stopped);
    EXPECT_FALSE(stream.error());
    EXPECT_FALSE(seen.unsorted);
    EXPECT_EQ(seen.pairs.size(), 7 * spec.batch_pairs);
    std::sort(seen.pairs.begin(), seen.pairs.end());
    EXPECT_EQ(std::adjacent_find(seen.pairs.begin(), seen.pairs.end()), seen.pairs.end());
    for (const Pair& p : seen.pairs) EXPECT_TRUE(p.l < 4000 && p.r < 4000 && p.d == 0.0);
    EXPECT_EQ(stream.next(&batch, milliseconds(0)), PairStream::Next::End);
  }
}

TEST(PairStream, EngineErrorsReachTheConsumer) {
  const Points left = uniform_points(100, 2, 0.0, 1.0, 1);
  const Points right = uniform_points(100, 3, 0.0, 1.0, 2);
  const PointSet l = left.set(), r = right.set();
  PairStream stream(l, &r, cpu_spec(0.5), PairStream::Options{});
  StreamBatch batch;
  while (stream.next(&batch, milliseconds(50)) != PairStream::Next::End) {
  }
  ASSERT_TRUE(stream.error());
  EXPECT_THROW(std::rethrow_exception(stream.error()), Error);
}

TEST(PairStream, GpuWithoutGpuFailsAndAutoRunsOnTheCpu) {
  if (gpu_available()) GTEST_SKIP() << "a GPU is present";
  const Points points = uniform_points(500, 2, 0.0, 1.0, 4);
  const PointSet set = points.set();
  JoinSpec spec = cpu_spec(0.1);
  spec.device = Device::Gpu;
  PairStream gpu(set, nullptr, spec, PairStream::Options{});
  EXPECT_TRUE(drain(gpu).empty());
  EXPECT_TRUE(gpu.error());
  spec.device = Device::Auto;
  CollectingSink direct;
  run_join(set, nullptr, cpu_spec(0.1), direct);
  PairStream automatic(set, nullptr, spec, PairStream::Options{});
  EXPECT_EQ(drain(automatic), direct.sorted());
  EXPECT_FALSE(automatic.error());
  EXPECT_TRUE(automatic.fallback_note().empty());
}

}  // namespace
}  // namespace simjoin
