// Batching, stopping and error propagation of the join's streaming (engine/parallel/batch_pipeline.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "engine/parallel/batch_pipeline.h"
#include "join_scenarios.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

TEST(Streaming, TinyBatchesDeliverTheSamePairs) {
  const Points points = blob_points(500, 3, 3, 2.0, 1);
  for (std::size_t batch_pairs : {1, 7, 1000}) {
    for (int threads : {1, 4}) {
      for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
        JoinSpec spec = cpu_spec(1.0);
        spec.batch_pairs = batch_pairs;
        spec.threads = threads;
        spec.algorithm = algorithm;
        const JoinStats stats = expect_matches_oracle(points, nullptr, spec);
        EXPECT_GE(stats.batches, (stats.pairs + batch_pairs - 1) / batch_pairs);
      }
    }
  }
}

TEST(Streaming, SinkStoppingAfterFirstBatchStopsTheJoin) {
  const Points points = huge_cell();
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
    JoinSpec spec = cpu_spec(0.5);
    spec.algorithm = algorithm;
    spec.batch_pairs = 1000;
    CollectingSink sink(1);
    const auto start = Clock::now();
    const PointSet set = points.set();
    const JoinStats stats = run_join(set, nullptr, spec, sink);
    EXPECT_LT(seconds_since(start), 2.0);
    EXPECT_TRUE(stats.stopped);
    EXPECT_EQ(sink.batches, 1u);
    EXPECT_EQ(stats.pairs, 1000u);
  }
}

// keep_going is polled at least every 100 ms, also while no batch arrives (huge batches here).
TEST(Streaming, KeepGoingFalseStopsTheJoinPromptly) {
  const Points points = huge_cell();
  for (Algorithm algorithm : {Algorithm::Grid, Algorithm::BruteForce}) {
    JoinSpec spec = cpu_spec(0.5);
    spec.algorithm = algorithm;
    spec.batch_pairs = std::size_t{1} << 40;  // never full: only keep_going can stop it
    CancelAfter sink(0.3);
    const auto start = Clock::now();
    const PointSet set = points.set();
    const JoinStats stats = run_join(set, nullptr, spec, sink);
    const double elapsed = seconds_since(start);
    EXPECT_TRUE(stats.stopped);
    EXPECT_GE(elapsed, 0.3);
    EXPECT_LT(elapsed, 1.3);
    EXPECT_GE(sink.polls, 3);
    EXPECT_EQ(stats.batches, 0u);
  }
}

TEST(Streaming, WorkerExceptionIsRethrownOnTheCallingThread) {
  CollectingSink sink;
  auto work = [](std::size_t unit, BatchWriter& out) {
    out.add(static_cast<std::uint32_t>(unit), 0, 0.0);
    if (unit == 37) throw std::runtime_error("unit 37 failed");
  };
  EXPECT_THROW(run_batch_pipeline(100, 4, 1, work, sink), std::runtime_error);
}

TEST(Streaming, SinkExceptionPropagatesAfterWorkersAreJoined) {
  class ThrowingSink : public PairSink {
    bool consume(const PairBatch&) override { throw std::runtime_error("sink failed"); }
  } sink;
  auto work = [](std::size_t unit, BatchWriter& out) {
    for (int i = 0; i < 100 && out.add(static_cast<std::uint32_t>(unit), 0, 0.0); ++i) {
    }
  };
  EXPECT_THROW(run_batch_pipeline(1000, 4, 3, work, sink), std::runtime_error);
}

TEST(Streaming, EveryUnitRunsOnceAndEveryPairArrivesOnce) {
  CollectingSink sink;
  std::atomic<int> calls{0};
  auto work = [&](std::size_t unit, BatchWriter& out) {
    ++calls;
    for (std::uint32_t i = 0; i < 10; ++i) out.add(static_cast<std::uint32_t>(unit), i, i * 0.5);
    out.candidates += 3;
  };
  const PipelineResult result = run_batch_pipeline(500, 3, 16, work, sink);
  EXPECT_EQ(calls.load(), 500);
  EXPECT_EQ(result.pairs, 5000u);
  EXPECT_EQ(result.candidates, 1500u);
  EXPECT_FALSE(result.stopped);
  const std::vector<Pair> pairs = sink.sorted();
  ASSERT_EQ(pairs.size(), 5000u);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    EXPECT_EQ(pairs[k].l, k / 10);
    EXPECT_EQ(pairs[k].r, k % 10);
  }
  EXPECT_LE(sink.max_batch, 16u);
}

// A sink with a shared queue: the workers push straight into it, shaped as the queue's form
// says; consume() is never called, keep_going still is.
TEST(Streaming, WorkersPushIntoTheSinksSharedQueue) {
  class SharingSink : public PairSink {
   public:
    explicit SharingSink(BatchQueue& queue) : queue_(queue) {}
    bool consume(const PairBatch&) override {
      consumed = true;
      return true;
    }
    bool keep_going() override {
      ++polls;
      return true;
    }
    BatchQueue* shared_queue() override { return &queue_; }
    std::atomic<bool> consumed{false};
    std::atomic<int> polls{0};

   private:
    BatchQueue& queue_;
  };
  BatchQueue queue(2, 1, BatchForm{false, true});
  SharingSink sink(queue);
  auto work = [](std::size_t unit, BatchWriter& out) {
    for (std::uint32_t i = 0; i < 10; ++i) out.add(9 - i, static_cast<std::uint32_t>(unit), 1.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(3));  // 0.3 s in all: keep_going polled
  };
  PipelineResult result;
  std::thread producer([&] {
    result = run_batch_pipeline(300, 3, 16, work, sink);
    queue.producer_done();
  });
  std::vector<Pair> pairs;
  bool unsorted = false;
  OwnedPairBatch batch;
  std::size_t batches = 0;
  for (;;) {
    const BatchQueue::PopResult popped = queue.pop(batch, std::chrono::milliseconds(50));
    if (popped == BatchQueue::PopResult::Finished) break;
    if (popped != BatchQueue::PopResult::Batch) continue;
    ++batches;
    EXPECT_TRUE(batch.distance.empty());
    for (std::size_t k = 0; k < batch.size(); ++k) {
      if (k > 0 && std::make_pair(batch.right[k - 1], batch.left[k - 1]) >
                       std::make_pair(batch.right[k], batch.left[k]))
        unsorted = true;
      pairs.push_back({batch.left[k], batch.right[k], 0.0});
    }
    queue.recycle(std::move(batch));
    batch = OwnedPairBatch();
  }
  producer.join();
  EXPECT_FALSE(sink.consumed);
  EXPECT_GE(sink.polls.load(), 1);
  EXPECT_FALSE(unsorted);
  EXPECT_FALSE(result.stopped);
  EXPECT_EQ(result.pairs, 3000u);
  EXPECT_EQ(result.batches, batches);
  EXPECT_EQ(queue.pairs_pushed(), 3000u);
  std::sort(pairs.begin(), pairs.end());
  ASSERT_EQ(pairs.size(), 3000u);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    EXPECT_EQ(pairs[k].l, k / 300);
    EXPECT_EQ(pairs[k].r, k % 300);
  }
}

TEST(Streaming, SinkIsOnlyCalledOnTheCallingThread) {
  class ThreadCheckingSink : public PairSink {
   public:
    bool consume(const PairBatch&) override {
      wrong_thread = wrong_thread || std::this_thread::get_id() != caller;
      return true;
    }
    bool keep_going() override {
      wrong_thread = wrong_thread || std::this_thread::get_id() != caller;
      return true;
    }
    std::thread::id caller = std::this_thread::get_id();
    bool wrong_thread = false;
  } sink;
  const Points points = uniform_points(3000, 2, 0.0, 10.0, 2);
  JoinSpec spec = cpu_spec(0.3);
  spec.threads = 4;
  spec.batch_pairs = 5;
  const PointSet set = points.set();
  run_join(set, nullptr, spec, sink);
  EXPECT_FALSE(sink.wrong_thread);
}

// A cancel that arrives while the grid is planned or indexed stops the join before its pairs:
// keep_going is asked between phases, not only between batches.
TEST(Streaming, CancelBetweenPhasesStopsBeforeTheJoin) {
  class CancelledSink : public PairSink {
   public:
    bool consume(const PairBatch& batch) override {
      pairs += batch.size;
      return true;
    }
    bool keep_going() override { return false; }
    std::size_t pairs = 0;
  };
  const Points points = uniform_points(20000, 3, 0.0, 10.0, 4);
  const PointSet set = points.set();
  for (Metric metric : {Metric::Euclidean, Metric::Cosine}) {
    for (bool self : {true, false}) {
      CancelledSink sink;
      JoinSpec spec = cpu_spec(0.2, metric);
      spec.algorithm = Algorithm::Grid;
      const JoinStats stats = run_join(set, self ? nullptr : &set, spec, sink);
      EXPECT_TRUE(stats.stopped);
      EXPECT_EQ(sink.pairs, 0u);
      for (const auto& phase : stats.phase_seconds) EXPECT_NE(phase.first, "join");
    }
  }
}

}  // namespace
}  // namespace simjoin
