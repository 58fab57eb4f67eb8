// The engine's backend interface: a process without an installed GPU backend (a PostgreSQL
// backend) never reaches a GPU; the backend installed by the process's owner is the one used.
#include <gtest/gtest.h>

#include <string>

#include "engine/join_backend.h"
#include "join_scenarios.h"
#include "test_support.h"

namespace simjoin {
namespace {

using namespace simjoin::testing;

// Restores the process's GPU backend (the tests install the real one before main).
class InstalledBackendGuard {
 public:
  InstalledBackendGuard() : saved_(installed_gpu_backend()) {}
  ~InstalledBackendGuard() { install_gpu_backend(saved_); }

 private:
  JoinBackend* saved_;
};

// A stand-in GPU backend that runs the CPU engine and counts its calls.
class CountingBackend : public JoinBackend {
 public:
  bool usable(std::string*) override { return true; }
  JoinStats run(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                PairSink& sink) override {
    ++calls;
    JoinStats stats = cpu_backend().run(left, right, spec, sink);
    stats.device = "counting";
    return stats;
  }
  int calls = 0;
};

TEST(JoinBackend, WithoutAnInstalledGpuBackendGpuThrowsAndAutoRunsOnTheCpu) {
  InstalledBackendGuard guard;
  install_gpu_backend(nullptr);
  std::string why;
  EXPECT_FALSE(gpu_available(&why));
  EXPECT_EQ(why, "no GPU backend in this process");
  const Points points = uniform_points(12000, 2, 0.0, 1.0, 5);  // 1.4e8 pairs: auto would pick a GPU
  const PointSet set = points.set();
  JoinSpec spec = cpu_spec(0.01);
  spec.device = Device::Gpu;
  CollectingSink sink;
  try {
    run_join(set, nullptr, spec, sink);
    ADD_FAILURE() << "Device::Gpu ran without a GPU backend";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU backend in this process"), std::string::npos);
  }
  EXPECT_TRUE(sink.pairs.empty());
  spec.device = Device::Auto;
  EXPECT_EQ(expect_matches_oracle(points, nullptr, spec).device, "cpu");
}

TEST(JoinBackend, TheInstalledGpuBackendRunsGpuAndLargeAutoJoins) {
  InstalledBackendGuard guard;
  CountingBackend counting;
  install_gpu_backend(&counting);
  EXPECT_TRUE(gpu_available());
  // 64-D: nearly every one of the 7e7 point pairs is a candidate, few are results.
  const Points points = uniform_points(12000, 64, 0.0, 1.0, 6);
  JoinSpec spec = cpu_spec(0.5);
  spec.device = Device::Gpu;
  EXPECT_EQ(expect_matches_oracle(points, nullptr, spec).device, "counting");
  EXPECT_EQ(counting.calls, 1);
  spec.device = Device::Auto;  // worth the GPU by the sampled work
  EXPECT_EQ(expect_matches_oracle(points, nullptr, spec).device, "counting");
  const Points few = uniform_points(100, 2, 0.0, 1.0, 7);
  EXPECT_EQ(expect_matches_oracle(few, nullptr, spec).device, "cpu");  // 1e4 pairs: not worth it
  spec.device = Device::Cpu;
  EXPECT_EQ(expect_matches_oracle(points, nullptr, spec).device, "cpu");
  EXPECT_EQ(counting.calls, 2);
}

}  // namespace
}  // namespace simjoin
