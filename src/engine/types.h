// Core value types of the join engine: point sets, join specification, statistics.
// Plain C++17: no PostgreSQL and no CUDA header may be included from the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/choice/sampled_work.h"

namespace simjoin {

// Cosine: 1 - cos of the angle (cosine.h); joined as Euclidean on unit vectors, then decided exactly.
enum class Metric { Euclidean, Manhattan, Chebyshev, Cosine };

// Where the join runs. Auto: the GPU when one is present and the join is worth it, else the CPU.
enum class Device { Auto, Cpu, Gpu };

// Which algorithm runs. Auto lets the engine choose by estimated cost (engine/choice/algorithm_choice.h): the
// grid, the Set-of-Z-Lists join (engine/join/szl_join.h) or brute force (always for eps = infinity and tiny
// joins). Szl asked for with eps = infinity runs brute force.
enum class Algorithm { Auto, Grid, BruteForce, Szl };

// In a self-join: All = every ordered pair (i, j) with d(i, j) <= eps, (i, i) included, as SQL's
// `FROM t a JOIN t b ON d <= eps` returns them; Unique = each unordered pair {i, j}, i != j, once,
// reported as (min, max).
enum class SelfPairs { All, Unique };

// n points of `dim` coordinates each, row-major and contiguous. Not owned.
struct PointSet {
  const double* coords = nullptr;
  std::size_t n = 0;
  std::size_t dim = 0;
  const double* point(std::size_t i) const { return coords + i * dim; }
};

struct JoinSpec {
  double eps = 0.0;
  Metric metric = Metric::Euclidean;
  SelfPairs self_pairs = SelfPairs::All;  // only read for self-joins
  Device device = Device::Auto;
  Algorithm algorithm = Algorithm::Auto;
  int threads = 0;                         // CPU worker threads; 0 = hardware concurrency
  std::size_t batch_pairs = 1u << 16;      // pairs per batch handed to the sink
  int indexed_dims = 0;                    // grid dimensions k; 0 = chosen from a sample
  // Device memory the join may allocate on the GPU (inputs, sort buffers and pair batches); 0 =
  // the device's free memory. The GPU service sets it to the job's reservation in its ledger.
  std::size_t device_memory_bytes = 0;
  // What the device choice sampled (Device::Auto), handed on so that Algorithm::Auto does not
  // sample the same inputs again; used only where its sizes are the join's.
  SampledWork sampled;
};

// One algorithm as Algorithm::Auto priced it (engine/choice/algorithm_choice.h).
struct AlgorithmEstimate {
  std::string algorithm;    // "grid", "szl", "brute-force"
  double candidates = 0.0;  // estimated distance evaluations (SZL: positions walked)
  double seconds = 0.0;     // estimated engine time on the device that ran
};

// What ran and what it cost; shown by EXPLAIN ANALYZE and the simjoin.explain NOTICE.
struct JoinStats {
  std::string device;     // "cpu" or "gpu: <name>"
  std::string algorithm;  // "grid", "brute-force", ...
  int indexed_dims = 0;
  std::uint64_t batches = 0;
  std::uint64_t candidates = 0;  // distance evaluations
  std::uint64_t pairs = 0;       // pairs handed to the sink
  bool stopped = false;          // the sink asked to stop before the end
  std::vector<std::pair<std::string, double>> phase_seconds;
  // Algorithm::Auto: the algorithms it weighed (empty when forced or decided without sampling).
  std::vector<AlgorithmEstimate> estimates;
};

// Thrown by the engine for invalid input or a failed backend; the PostgreSQL glue turns it
// into ereport(ERROR) after the C++ frames are gone.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace simjoin
