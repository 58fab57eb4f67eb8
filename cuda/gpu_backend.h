// The GPU backend: the engine's join on the device, behind the engine's JoinBackend interface
// (join_backend.h). The arrows point one way: cuda/ uses the engine's headers; the engine never
// includes this file. Whoever owns the GPU in a process (the GPU service, the benchmark, the GPU
// tests) installs backend() with install_gpu_backend(). No CUDA header here.
#pragma once

#include <cstddef>
#include <string>

#include "engine/join_backend.h"
#include "engine/pair_sink.h"
#include "engine/types.h"

namespace simjoin::gpu {

// This build's GPU backend (without CUDA: one that is never usable).
JoinBackend& backend();

// Device bytes per input point at the peak of a join: the uploaded doubles, the sorted doubles,
// the float copy, and ids, keys, magnitudes and the sort's double buffers. The chunked join's
// budget and the GPU service's ledger requests both count with it.
inline std::size_t device_bytes_per_point(std::size_t dim) { return 20 * dim + 48; }
// The same for the SZL join: the doubles, the float copy, the quantized coordinates, per curve an
// id and a key prefix (at most 9 curves), and the sorts' key words and ids.
inline std::size_t szl_device_bytes_per_point(std::size_t dim) { return 16 * dim + 176; }

// Seconds to build the SZL index (szl_device_index.cuh) of `points` on the device, its curves sorted on
// key words (compare_sort false) or with z_compare; for simjoin_bench --zsort.
double szl_index_seconds(const PointSet& points, bool compare_sort);

// The usable GPUs (0 without one), and the one (0 .. gpu_count() - 1) the calling thread's joins,
// warm_up, memory_info and context_healthy use: each thread starts on the first.
int gpu_count();
void select_gpu(int index);

// The device's name and memory (bytes); false when no device is usable.
bool memory_info(std::string* name, std::size_t* free_bytes, std::size_t* total_bytes);

// Creates the context and loads the kernels by running two tiny joins (grid and brute force), so
// that the first real join pays neither; throws simjoin::Error on failure.
void warm_up();

// Whether the context still works after a failed join (a sticky error poisons it for the rest of
// the process: then the owner must restart).
bool context_healthy();

// Poisons this process's context with a sticky error (an illegal address in a kernel) and throws
// simjoin::Error with CUDA's message: for the GPU service's fault tests only.
void poison_context_for_test();

// Whether a CUDA device is usable. Initializes the CUDA runtime on first call (never call this
// in the postmaster). `why` gets the reason when not.
bool available(std::string* why);

// Same contract as simjoin::run_join (engine.h); throws simjoin::Error on CUDA failures after
// releasing every device allocation. Calls the sink only on the calling thread.
JoinStats run_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                   PairSink& sink);

// The k-nearest-neighbour join on the device (knn_tensor_join.cuh): whether it takes `spec`
// (Euclidean or cosine, k <= 32), and run_knn_join's contract there (the pairs arrive once the
// device is done); throws simjoin::Error on CUDA failures after releasing device memory.
bool runs_knn(const KnnSpec& spec);
JoinStats run_knn_join(const PointSet& left, const PointSet* right, const KnnSpec& spec,
                       PairSink& sink);

}  // namespace simjoin::gpu
