// simjoin_bench: times run_join on generated or CSV data and prints one line per run.
//
//   simjoin_bench --data uniform|clustered|exponential|directions|units|csv:PATH --n N --dim D --eps E
//                 [--metric euclidean|manhattan|chebyshev|cosine] [--device cpu|gpu|auto]
//                 [--algorithm auto|grid|brute|szl] [--threads T] [--k K] [--self|--two N2]
//                 [--unique] [--seed S] [--repeat R] [--range X] [--batch B] [--verify]
//                 [--estimate-only] [--zsort] [--stats | --dbscan MINPTS] [--host-fold]
//                 [--save PATH] [--nearest K]
//
// uniform: [0, range]^dim (range 100 by default); clustered: 100 gaussian blobs in [0, range]^dim,
// sigma range/200; exponential: lambda 40, values above 1 redrawn (the Syn data sets of Gowanlock and Karsin, DaMoN 2019);
// directions: n/100 directions in [-1, 1]^dim with noisy copies (for cosine); units: the same
// scaled to unit length (a cosine join's data for Euclidean peers: |a - b|^2 = 2 d_cos(a, b));
// --save PATH: writes the left input as CSV (17 significant digits, a peer's input) and exits;
// --zsort: times the SZL index build of the left input with each curve sort (materialized Z keys
// and the key-free comparator; with --device gpu, the GPU index: radix sorts on key words and the
// merge sort with z_compare) and exits. The GPU join's sort: SIMJOIN_GPU_ZSORT=keys|compare.
// --stats: the neighbour aggregates of the left side (engine/aggregates/neighbour_stats.h), timing the sink's fold
// apart from the join; --dbscan MINPTS: run_dbscan on the left input, by phase. With --device gpu
// both time the engine call, which folds on the device (gpu_aggregates.h; on the CPU, DBSCAN in
// 1-3 dimensions runs the grid DBSCAN, engine/aggregates/dbscan_grid.h); --host-fold also times the pair-based path
// (the joins through a runner, folded on the host) on the same input.
// --nearest K: the k-nearest-neighbour join instead (eps: its limit), timed and with --verify
// checked against the CPU engine's (knn_timing.h).
// csv: the numeric columns of a CSV file (a non-numeric first line is taken as a header).
#include "bench_sinks.h"
#include "knn_timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <time.h>

#include "engine/aggregates/dbscan.h"
#include "engine/aggregates/neighbour_stats.h"
#include "engine/choice/algorithm_choice.h"
#include "engine/choice/device_choice.h"
#include "engine/engine.h"
#include "engine/join/szl_index.h"
#include "engine/join_backend.h"
#include "engine/parallel/batch_pipeline.h"
#include "engine/partition/partitioned_join.h"
#include "gpu_backend.h"

namespace {

using simjoin::Algorithm;
using simjoin::bench::CollectingSink;
using simjoin::bench::Pair;
using simjoin::Device;
using simjoin::JoinSpec;
using simjoin::JoinStats;
using simjoin::Metric;
using simjoin::PairBatch;
using simjoin::PairSink;
using simjoin::PointSet;

struct Options {
  std::string data = "uniform";
  std::size_t n = 100000;
  std::size_t dim = 2;
  double eps = 1.0;
  double range = 100.0;
  std::string metric = "euclidean";
  std::string device = "cpu";
  std::string algorithm = "auto";
  int threads = 0;
  int k = 0;
  std::size_t two = 0;  // 0: self-join
  bool unique = false;
  unsigned seed = 1;
  int repeat = 1;
  std::size_t batch = 1u << 16;
  bool verify = false;
  bool estimate_only = false;
  bool zsort = false;
  bool stats = false;
  std::uint64_t dbscan = 0;  // min_points; 0: no clustering
  bool host_fold = false;
  std::string save;  // write the left input here and exit
  std::size_t nearest = 0;  // --nearest K: the k-nearest-neighbour join (knn_timing.h)
  std::size_t regions = 0;  // --regions R: split by regions, one join each, at once (GPU r % G)
  std::string split = "work";
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "simjoin_bench: " << problem << "\n"
            << "usage: simjoin_bench --data uniform|clustered|exponential|directions|units|csv:PATH --n N --dim D "
               "--eps E [--metric euclidean|manhattan|chebyshev|cosine] [--device cpu|gpu|auto] "
               "[--algorithm auto|grid|brute|szl] [--threads T] [--k K] [--self|--two N2] "
               "[--unique] [--seed S] [--repeat R] [--range X] [--batch B] [--verify] [--estimate-only] [--zsort] "
               "[--stats | --dbscan MINPTS] [--host-fold] [--save PATH] [--nearest K] "
               "[--regions R [--split work|points]]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) usage("missing value after " + arg);
      return argv[++a];
    };
    if (arg == "--data") o.data = value();
    else if (arg == "--n") o.n = std::stoull(value());
    else if (arg == "--dim") o.dim = std::stoull(value());
    else if (arg == "--eps") o.eps = std::stod(value());
    else if (arg == "--range") o.range = std::stod(value());
    else if (arg == "--metric") o.metric = value();
    else if (arg == "--device") o.device = value();
    else if (arg == "--algorithm") o.algorithm = value();
    else if (arg == "--threads") o.threads = std::stoi(value());
    else if (arg == "--k") o.k = std::stoi(value());
    else if (arg == "--two") o.two = std::stoull(value());
    else if (arg == "--self") o.two = 0;
    else if (arg == "--unique") o.unique = true;
    else if (arg == "--seed") o.seed = static_cast<unsigned>(std::stoul(value()));
    else if (arg == "--repeat") o.repeat = std::stoi(value());
    else if (arg == "--batch") o.batch = std::stoull(value());
    else if (arg == "--verify") o.verify = true;
    else if (arg == "--estimate-only") o.estimate_only = true;
    else if (arg == "--zsort") o.zsort = true;
    else if (arg == "--stats") o.stats = true;
    else if (arg == "--dbscan") o.dbscan = std::stoull(value());
    else if (arg == "--host-fold") o.host_fold = true;
    else if (arg == "--save") o.save = value();
    else if (arg == "--nearest") o.nearest = std::stoull(value());
    else if (arg == "--regions") o.regions = std::stoull(value());
    else if (arg == "--split") o.split = value();
    else usage("unknown argument " + arg);
  }
  return o;
}

// ---- data --------------------------------------------------------------------------------------

std::vector<double> uniform_data(std::size_t n, std::size_t dim, double range, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coord(0.0, range);
  std::vector<double> coords(n * dim);
  for (double& x : coords) x = coord(rng);
  return coords;
}

std::vector<double> clustered_data(std::size_t n, std::size_t dim, double range, unsigned seed) {
  constexpr std::size_t kBlobs = 100;
  const std::vector<double> centres = uniform_data(kBlobs, dim, range, seed + 7919);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> offset(0.0, range / 200.0);
  std::vector<double> coords(n * dim);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t blob = rng() % kBlobs;
    for (std::size_t j = 0; j < dim; ++j) coords[i * dim + j] = centres[blob * dim + j] + offset(rng);
  }
  return coords;
}

// Embedding-like directions (bench/sql/cosine_100d.sql's data): n/100 centres uniform in
// [-1, 1]^dim, each point a centre plus uniform noise in [-0.2, 0.2] per coordinate.
std::vector<double> directions_data(std::size_t n, std::size_t dim, unsigned seed) {
  const std::size_t centres_n = std::max<std::size_t>(n / 100, 1);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> centre(-1.0, 1.0), noise(-0.2, 0.2);
  std::vector<double> centres(centres_n * dim);
  for (double& x : centres) x = centre(rng);
  std::vector<double> coords(n * dim);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < dim; ++j)
      coords[i * dim + j] = centres[(i % centres_n) * dim + j] + noise(rng);
  return coords;
}

// directions_data with every row divided by its length.
std::vector<double> unit_data(std::size_t n, std::size_t dim, unsigned seed) {
  std::vector<double> coords = directions_data(n, dim, seed);
  for (std::size_t i = 0; i < n; ++i) {
    double* row = coords.data() + i * dim;
    double sum = 0.0;
    for (std::size_t j = 0; j < dim; ++j) sum += row[j] * row[j];
    const double length = std::sqrt(sum);
    for (std::size_t j = 0; j < dim && length > 0.0; ++j) row[j] /= length;
  }
  return coords;
}

// The rows as CSV lines of 17 significant digits (every double read back exactly).
void save_csv(const std::string& path, const std::vector<double>& coords, std::size_t dim) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) usage("cannot write " + path);
  for (std::size_t k = 0; k < coords.size(); ++k)
    std::fprintf(out, (k + 1) % dim == 0 ? "%.17g\n" : "%.17g,", coords[k]);
  std::fclose(out);
}

std::vector<double> exponential_data(std::size_t n, std::size_t dim, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> coord(40.0);
  std::vector<double> coords(n * dim);
  for (double& x : coords) {
    do x = coord(rng);
    while (x > 1.0);
  }
  return coords;
}

// Numeric columns of a CSV file; sets dim. At most max_rows rows (0: all).
std::vector<double> csv_data(const std::string& path, std::size_t max_rows, std::size_t& dim) {
  std::ifstream in(path);
  if (!in) usage("cannot open " + path);
  std::vector<double> coords;
  std::string line;
  std::size_t rows = 0;
  dim = 0;
  while (std::getline(in, line) && (max_rows == 0 || rows < max_rows)) {
    std::vector<double> row;
    std::stringstream fields(line);
    std::string field;
    bool numeric = true;
    while (std::getline(fields, field, ',')) {
      char* end = nullptr;
      const double x = std::strtod(field.c_str(), &end);
      if (end == field.c_str()) numeric = false;
      row.push_back(x);
    }
    if (row.empty()) continue;
    if (!numeric) {
      if (rows == 0 && coords.empty()) continue;  // header
      usage("non-numeric field in " + path + ": " + line);
    }
    if (dim == 0) dim = row.size();
    if (row.size() != dim) usage("ragged CSV row in " + path + ": " + line);
    coords.insert(coords.end(), row.begin(), row.end());
    ++rows;
  }
  return coords;
}

std::vector<double> make_data(const Options& o, std::size_t n, unsigned seed, std::size_t& dim) {
  dim = o.dim;
  if (o.data == "uniform") return uniform_data(n, dim, o.range, seed);
  if (o.data == "clustered") return clustered_data(n, dim, o.range, seed);
  if (o.data == "exponential") return exponential_data(n, dim, seed);
  if (o.data == "directions") return directions_data(n, dim, seed);
  if (o.data == "units") return unit_data(n, dim, seed);
  if (o.data.rfind("csv:", 0) == 0) return csv_data(o.data.substr(4), n, dim);
  usage("unknown --data " + o.data);
}

// ---- the curve sorts of the SZL index -----------------------------------------------------------

void time_curve_sorts(const PointSet& points, int threads, bool on_gpu) {
  if (on_gpu) {
    simjoin::gpu::szl_index_seconds(points, false);  // the context and kernels, untimed
    for (bool compare_sort : {false, true}) {
      const double seconds = simjoin::gpu::szl_index_seconds(points, compare_sort);
      std::printf("zsort: device=gpu n=%zu dim=%zu method=%s index_s=%.4f\n", points.n,
                  points.dim, compare_sort ? "compare" : "keys", seconds);
    }
    return;
  }
  for (const auto method : {simjoin::ZSortMethod::Keys, simjoin::ZSortMethod::Msb}) {
    const auto start = std::chrono::steady_clock::now();
    const simjoin::SzlIndex index = simjoin::build_szl_index(points, 0, threads, method);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("zsort: n=%zu dim=%zu curves=%zu method=%s index_s=%.4f\n", points.n, points.dim,
                index.curves, method == simjoin::ZSortMethod::Keys ? "keys" : "msb", seconds);
  }
}

// ---- spec --------------------------------------------------------------------------------------

JoinSpec make_spec(const Options& o) {
  JoinSpec spec;
  spec.eps = o.eps;
  spec.threads = o.threads;
  spec.indexed_dims = o.k;
  spec.batch_pairs = o.batch;
  spec.self_pairs = o.unique ? simjoin::SelfPairs::Unique : simjoin::SelfPairs::All;
  if (o.metric == "euclidean") spec.metric = Metric::Euclidean;
  else if (o.metric == "manhattan") spec.metric = Metric::Manhattan;
  else if (o.metric == "chebyshev") spec.metric = Metric::Chebyshev;
  else if (o.metric == "cosine") spec.metric = Metric::Cosine;
  else usage("unknown --metric " + o.metric);
  if (o.device == "cpu") spec.device = Device::Cpu;
  else if (o.device == "gpu") spec.device = Device::Gpu;
  else if (o.device == "auto") spec.device = Device::Auto;
  else usage("unknown --device " + o.device);
  if (o.algorithm == "auto") spec.algorithm = Algorithm::Auto;
  else if (o.algorithm == "grid") spec.algorithm = Algorithm::Grid;
  else if (o.algorithm == "brute") spec.algorithm = Algorithm::BruteForce;
  else if (o.algorithm == "szl") spec.algorithm = Algorithm::Szl;
  else usage("unknown --algorithm " + o.algorithm);
  return spec;
}

}  // namespace

std::string phases(const JoinStats& stats) {
  std::string text;
  for (const auto& [name, seconds] : stats.phase_seconds) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, " %s_s=%.4f", name.c_str(), seconds);
    text += buffer;
  }
  return text;
}

namespace {

// Runs the brute force on the CPU and compares; returns whether the pair lists are identical.
bool verify(const PointSet& left, const PointSet* right, JoinSpec spec,
            std::vector<Pair> got) {
  spec.device = Device::Cpu;
  spec.algorithm = Algorithm::BruteForce;
  CollectingSink expected;
  simjoin::run_join(left, right, spec, expected);
  std::sort(got.begin(), got.end());
  std::sort(expected.pairs.begin(), expected.pairs.end());
  return got == expected.pairs;
}
// The calling thread's CPU time in the consume calls of another sink (not wall time: on a busy
// machine the thread may wait for a core inside consume).
class TimedSink : public PairSink {
 public:
  explicit TimedSink(PairSink& inner) : inner_(inner) {}
  bool consume(const PairBatch& batch) override {
    const double start = thread_cpu_seconds();
    const bool more = inner_.consume(batch);
    seconds += thread_cpu_seconds() - start;
    return more;
  }
  static double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }
  double seconds = 0.0;

 private:
  PairSink& inner_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The host fold over run_join (a runner keeps the engine off the device aggregates).
JoinStats join_with_run_join(const PointSet& l, const PointSet* r, const JoinSpec& s,
                             PairSink& sink) {
  return simjoin::run_join(l, r, s, sink);
}

// The engine's aggregates as the engine runs them (on the GPU: folded on the device), and with
// --host-fold the host fold over the same join; one line each.
void time_engine_aggregate(const Options& o, const PointSet& left, const PointSet* right,
                           const JoinSpec& spec) {
  for (const bool host_fold : {false, true}) {
    if (host_fold && !o.host_fold) break;
    const simjoin::JoinRunner runner = host_fold ? join_with_run_join : simjoin::JoinRunner();
    const char* path = host_fold ? "host-fold" : "engine";
    const auto start = std::chrono::steady_clock::now();
    if (o.dbscan > 0) {
      const simjoin::DbscanResult r = simjoin::run_dbscan(left, spec, o.dbscan, {}, runner);
      const double seconds = seconds_since(start);
      std::size_t core = 0, border = 0;
      for (simjoin::PointKind kind : r.kind) {
        core += kind == simjoin::PointKind::Core;
        border += kind == simjoin::PointKind::Border;
      }
      std::printf("dbscan: path=%s device=%s algorithm=%s n=%zu dim=%zu eps=%g min_points=%llu "
                  "clusters=%zu core=%zu border=%zu noise=%zu pairs=%llu total_s=%.4f counting:%s "
                  "linking:%s\n",
                  path, r.linking.device.c_str(), r.linking.algorithm.c_str(), left.n, left.dim,
                  spec.eps, static_cast<unsigned long long>(o.dbscan), r.clusters, core, border,
                  left.n - core - border, static_cast<unsigned long long>(r.linking.pairs),
                  seconds, phases(r.counting).c_str(), phases(r.linking).c_str());
    } else {
      const simjoin::NeighbourStats r =
          simjoin::run_neighbour_stats(left, right, spec, simjoin::StatsSide::Left, nullptr, {},
                                       runner);
      const double seconds = seconds_since(start);
      std::uint64_t with_partners = 0;
      for (std::uint64_t count : r.count) with_partners += count > 0;
      std::printf("stats: path=%s device=%s algorithm=%s n=%zu n2=%zu dim=%zu eps=%g pairs=%llu "
                  "with_partners=%llu total_s=%.4f%s\n",
                  path, r.join.device.c_str(), r.join.algorithm.c_str(), left.n,
                  right ? right->n : 0, left.dim, spec.eps, static_cast<unsigned long long>(r.pairs),
                  static_cast<unsigned long long>(with_partners), seconds, phases(r.join).c_str());
    }
    std::fflush(stdout);
  }
}

// --stats and --dbscan: one line each run.
void run_aggregate(const Options& o, const PointSet& left, const PointSet* right,
                   const JoinSpec& spec) {
  const auto start = std::chrono::steady_clock::now();
  if (o.dbscan > 0 || spec.device == Device::Gpu) {
    time_engine_aggregate(o, left, right, spec);
    return;
  }
  // The join as run_neighbour_stats runs it (a self-join in Unique mode), into a timed fold.
  JoinSpec join_spec = spec;
  join_spec.self_pairs = simjoin::SelfPairs::Unique;
  CollectingSink counter(false);
  const JoinStats plain = simjoin::run_join(left, right, join_spec, counter);
  const double plain_s = seconds_since(start);
  simjoin::NeighbourStatsSink fold(left.n, simjoin::StatsSide::Left, right == nullptr, nullptr);
  TimedSink timed(fold);
  const auto folded_start = std::chrono::steady_clock::now();
  simjoin::run_join(left, right, join_spec, timed);
  const double folded_s = seconds_since(folded_start);
  std::printf("stats: n=%zu pairs=%llu join_counting_s=%.4f join_folding_s=%.4f fold_cpu_s=%.4f\n",
              left.n, static_cast<unsigned long long>(plain.pairs), plain_s, folded_s,
              timed.seconds);
}

// --regions: the join split by regions (engine/partition), region r on GPU r % GPUs; prints the
// plan's time and each region's balance (the slowest region's time over the mean).
JoinStats run_by_regions(const Options& o, const PointSet& left, const PointSet* right,
                         const JoinSpec& spec, PairSink& sink) {
  const auto start = std::chrono::steady_clock::now();
  simjoin::RegionPlanOptions plan;
  plan.regions = o.regions;
  plan.split = o.split == "points" ? simjoin::RegionSplit::Points : simjoin::RegionSplit::Work;
  plan.metric = spec.metric;
  plan.eps = spec.eps;
  const simjoin::RegionPartition partition = simjoin::plan_regions(left, plan);
  const double plan_s = seconds_since(start);
  simjoin::PartitionedJoinOptions options;
  const int gpus = spec.device == Device::Gpu ? simjoin::gpu::gpu_count() : 0;
  if (gpus > 0)
    options.on_region_thread = [gpus](std::size_t r) {
      simjoin::gpu::select_gpu(static_cast<int>(r % static_cast<std::size_t>(gpus)));
    };
  else
    options.concurrent = 1;  // the CPU: one region at a time, each on every thread
  std::vector<simjoin::RegionRun> runs;
  const JoinStats stats = simjoin::run_partitioned_join(left, right, spec, partition, sink,
                                                        options, &runs);
  double slowest = 0.0, sum = 0.0;
  std::size_t reach = 0;
  for (const simjoin::RegionRun& run : runs) {
    slowest = std::max(slowest, run.seconds);
    sum += run.seconds;
    reach += run.reach_points;
  }
  std::printf("regions: r=%zu split=%s gpus=%d plan_s=%.4f reach_points=%zu "
              "slowest_over_mean=%.3f\n", o.regions, o.split.c_str(), gpus, plan_s, reach,
              sum > 0 ? slowest / (sum / static_cast<double>(runs.size())) : 0.0);
  return stats;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  simjoin::install_gpu_backend(&simjoin::gpu::backend());  // this program owns the GPU
  std::size_t dim = 0;
  const std::vector<double> left_coords = make_data(o, o.n, o.seed, dim);
  std::size_t right_dim = dim;
  const std::vector<double> right_coords =
      o.two > 0 ? make_data(o, o.two, o.seed + 1, right_dim) : std::vector<double>();
  const PointSet left{left_coords.data(), dim == 0 ? 0 : left_coords.size() / dim, dim};
  const PointSet right{right_coords.data(), dim == 0 ? 0 : right_coords.size() / dim, right_dim};
  const PointSet* right_ptr = o.two > 0 ? &right : nullptr;
  const JoinSpec spec = make_spec(o);
  if (!o.save.empty()) {
    save_csv(o.save, left_coords, dim);
    return 0;
  }
  if (o.nearest > 0) return time_knn_join(left, right_ptr, spec, o.nearest, o.repeat, o.verify);
  if (o.zsort) {
    try {
      time_curve_sorts(left, o.threads, o.device == "gpu");
    } catch (const simjoin::Error& e) {
      std::fprintf(stderr, "simjoin_bench: %s\n", e.what());
      return 1;
    }
    return 0;
  }

  // What Device::Auto weighs: the sampled work and each device's estimated time.
  {
    const auto start = std::chrono::steady_clock::now();
    simjoin::SampledWork sampled;
    simjoin::DeviceEstimate e;
    simjoin::auto_prefers_gpu(left, right_ptr, spec, simjoin::resolve_thread_count(spec.threads),
                              &sampled, false, &e);
    const double estimate_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const simjoin::JoinWork& work = sampled.grid;
    std::printf("estimate: est_candidates=%.4g est_pairs=%.4g est_terms=%.3g est_k=%d "
                "est_cpu_s=%.4f est_gpu_s=%.4f est_around_s=%.4f auto=%s estimate_s=%.4f\n",
                work.candidates, work.pairs, work.terms_per_candidate, work.indexed_dims,
                e.cpu_seconds, e.gpu_seconds, e.around_seconds, e.gpu ? "gpu" : "cpu", estimate_s);
    // What Algorithm::Auto weighs on the device (scripts/fit_algorithm_speeds.py reads this line),
    // from the samples the device choice took (as the engine is handed them).
    const bool on_gpu = o.device == "gpu";
    simjoin::JoinSpec carried = spec;
    carried.sampled = sampled;
    const auto choose_start = std::chrono::steady_clock::now();
    const simjoin::AlgorithmChoice choice = simjoin::choose_algorithm(
        left, right_ptr, carried, on_gpu ? 1 : simjoin::resolve_thread_count(spec.threads), true,
        on_gpu ? simjoin::gpu_algorithm_speeds() : simjoin::cpu_algorithm_speeds());
    const auto choose_end = std::chrono::steady_clock::now();
    std::printf("timing: device_choice_s=%.4f algorithm_choice_s=%.4f\n", estimate_s,
                std::chrono::duration<double>(choose_end - choose_start).count());
    const simjoin::SzlWork szl = std::isfinite(spec.eps) && spec.eps >= 0.0
                                     ? simjoin::estimate_szl_work(left, right_ptr, spec.eps)
                                     : simjoin::SzlWork{};
    std::printf("choice: auto=%s szl_curves=%g szl_build=%g szl_probe=%g szl_walked=%.4g",
                simjoin::algorithm_name(choice.algorithm), szl.curves, szl.build_points,
                szl.probe_points, szl.walked);
    for (const simjoin::AlgorithmEstimate& e : choice.estimates)
      std::printf(" %s=%.4g/%.4gs", e.algorithm.c_str(), e.candidates, e.seconds);
    std::printf("\n");
    std::fflush(stdout);
    if (o.estimate_only) return 0;
  }

  if (o.stats || o.dbscan > 0) {
    for (int run = 0; run < std::max(1, o.repeat); ++run) {
      try {
        run_aggregate(o, left, right_ptr, spec);
      } catch (const simjoin::Error& e) {
        std::cerr << "simjoin_bench: " << e.what() << "\n";
        return 1;
      }
      std::fflush(stdout);
    }
    return 0;
  }

  int status = 0;
  for (int run = 0; run < std::max(1, o.repeat); ++run) {
    CollectingSink sink(o.verify);
    JoinStats stats;
    const auto start = std::chrono::steady_clock::now();
    try {
      stats = o.regions > 0 ? run_by_regions(o, left, right_ptr, spec, sink)
                            : simjoin::run_join(left, right_ptr, spec, sink);
    } catch (const simjoin::Error& e) {
      std::cerr << "simjoin_bench: " << e.what() << "\n";
      return 1;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "data=%s n=%zu n2=%zu dim=%zu eps=%g metric=%s device=%s algorithm=%s k=%d pairs=%llu "
        "candidates=%llu batches=%llu total_s=%.4f%s pairs_per_s=%.3g",
        o.data.c_str(), left.n, right_ptr ? right.n : 0, dim, o.eps, o.metric.c_str(),
        stats.device.c_str(), stats.algorithm.c_str(), stats.indexed_dims,
        static_cast<unsigned long long>(stats.pairs),
        static_cast<unsigned long long>(stats.candidates),
        static_cast<unsigned long long>(stats.batches), seconds, phases(stats).c_str(),
        static_cast<double>(stats.pairs) / seconds);
    if (o.verify) {
      const bool same = verify(left, right_ptr, spec, sink.pairs);
      std::printf(" verify=%s", same ? "ok" : "MISMATCH");
      if (!same) status = 1;
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return status;
}
