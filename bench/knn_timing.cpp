#include "knn_timing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "engine/knn/knn_join.h"

namespace {

using simjoin::PairBatch;

struct KnnPair {
  std::uint32_t left, right;
  double distance;
};

class KnnCollector : public simjoin::PairSink {
 public:
  explicit KnnCollector(bool keep) : keep_(keep) {}
  bool consume(const PairBatch& batch) override {
    count += batch.size;
    if (keep_)
      for (std::size_t p = 0; p < batch.size; ++p)
        pairs.push_back({batch.left[p], batch.right[p], batch.distance[p]});
    return true;
  }
  std::uint64_t count = 0;
  std::vector<KnnPair> pairs;  // each left point's in arrival (rank) order

 private:
  bool keep_;
};

// Each left point's neighbours in arrival order, the points in order (a stable sort by left).
std::vector<KnnPair> by_left(std::vector<KnnPair> pairs) {
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const KnnPair& a, const KnnPair& b) { return a.left < b.left; });
  return pairs;
}

bool same(const std::vector<KnnPair>& a, const std::vector<KnnPair>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t p = 0; p < a.size(); ++p)
    if (a[p].left != b[p].left || a[p].right != b[p].right ||
        std::memcmp(&a[p].distance, &b[p].distance, sizeof(double)) != 0)
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
  std::vector<KnnPair> first;
  for (int run = 0; run < std::max(1, repeat); ++run) {
    KnnCollector sink(verify && run == 0);
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
  KnnCollector cpu(true);
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
