#include "knn_timing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench_sinks.h"
#include "engine/knn/knn_join.h"

namespace {

using simjoin::bench::CollectingSink;
using simjoin::bench::Pair;

// Each left point's neighbours in arrival order, the points in order (a stable sort by left).
std::vector<Pair> by_left(std::vector<Pair> pairs) {
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const Pair& a, const Pair& b) { return a.l < b.l; });
  return pairs;
}

bool same(const std::vector<Pair>& a, const std::vector<Pair>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t p = 0; p < a.size(); ++p)
    if (a[p].l != b[p].l || a[p].r != b[p].r ||
        std::memcmp(&a[p].d, &b[p].d, sizeof(double)) != 0)
      return false;
  return true;
}

}  // namespace

int time_knn_join(const simjoin::PointSet& left, const simjoin::PointSet* right,
                  const simjoin::JoinSpec& spec, std::size_t k, int repeat, bool verify) {
  simjoin::KnnSpec knn;
  knn.k = k;
  knn.eps = spec.eps;
  knn.metric = spec.metric;
  knn.device = spec.device;
  knn.threads = spec.threads;
  knn.batch_pairs = spec.batch_pairs;
  std::vector<Pair> first;
  for (int run = 0; run < std::max(1, repeat); ++run) {
    CollectingSink sink(verify && run == 0);
    simjoin::JoinStats stats;
    const auto start = std::chrono::steady_clock::now();
    try {
      stats = simjoin::run_knn_join(left, right, knn, sink);
    } catch (const simjoin::Error& e) {
      std::fprintf(stderr, "simjoin_bench: %s\n", e.what());
      return 1;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("knn: n=%zu n2=%zu dim=%zu k=%zu eps=%g device=%s algorithm=%s pairs=%llu "
                "candidates=%llu total_s=%.4f%s\n",
                left.n, right ? right->n : 0, left.dim, k, knn.eps, stats.device.c_str(),
                stats.algorithm.c_str(), static_cast<unsigned long long>(sink.count),
                static_cast<unsigned long long>(stats.candidates), seconds,
                phases(stats).c_str());
    std::fflush(stdout);
    if (run == 0) first = std::move(sink.pairs);
  }
  if (!verify) return 0;
  knn.device = simjoin::Device::Cpu;
  CollectingSink cpu(true);
  const auto start = std::chrono::steady_clock::now();
  const simjoin::JoinStats stats = simjoin::run_knn_join(left, right, knn, cpu);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool equal = same(by_left(first), by_left(cpu.pairs));
  std::printf("knn: device=cpu algorithm=%s pairs=%llu total_s=%.4f verify=%s\n",
              stats.algorithm.c_str(), static_cast<unsigned long long>(cpu.count), seconds,
              equal ? "ok" : "MISMATCH");
  return equal ? 0 : 1;
}
