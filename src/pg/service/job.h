// One job of the GPU service in its DSM segment, laid out by the backend that submits it. A join:
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "engine/knn/knn_join.h"
#include "engine/types.h"
#include "pg/service/stats_record.h"

namespace simjoin::pg {

//   JobHeader | left points (n_left * dim doubles) | right points | ring of result batches
//
// An aggregate job (neighbour statistics, DBSCAN) has no ring: its per-point result arrays follow
// the points (pg/service/aggregate_job.h).
//
// The ring has `ring_slots` batches of up to `slot_pairs` pairs (left ids, right ids, distances).
// The service's runner thread fills slot head % ring_slots and then advances `head`; the backend
// reads slot tail % ring_slots and then advances `tail`. Each side wakes the other through its
// latch; the runner waits for room by polling (it is not a PostgreSQL thread: no latch waits).

constexpr std::uint32_t kJobMagic = 0x53'4a'4f'42;  // "SJOB"

// What a job computes: a join's pairs (into the ring), a kNN join's (the ring, each left point's
// neighbours nearest first) or an aggregate's per-point arrays.
enum class JobKind : std::uint32_t { Join = 0, NeighbourStats, Dbscan, Knn };
const char* job_kind_name(JobKind kind);  // "join", "neighbour stats", "dbscan", "knn join"

// Faults the service injects into a job (simjoin.service_test_fault, tests only).
enum class JobFault : std::uint32_t {
  None = 0,
  Error,     // the engine throws simjoin::Error before the first pair
  BadAlloc,  // an engine worker thread throws std::bad_alloc
  Exit,      // the service process exits (status 1) while the job runs
  Stall,     // the job waits after admission until it is withdrawn
  LateError, // the engine throws after the first batch was published
  Sticky,    // a sticky CUDA error poisons the context (the CPU test device pretends one)
};

struct JobHeader {
  std::uint32_t magic;
  JobKind kind;
  // The join (written by the backend before submitting).
  std::uint32_t dim;
  std::uint64_t n_left, n_right;  // n_right = 0 with self_join
  bool self_join;
  JoinSpec spec;  // as the backend's settings made it (device and memory set by the service)
  KnnSpec knn;    // a kNN join's k, eps, metric, include_self (device set by the service)
  bool keep_distance;
  bool order_by_right;
  JobFault fault;
  // Points: in the segment given (a dsm_handle, pg/service/shared_points.h) at its start, or with handle 0
  // in this segment at the offset.
  std::uint32_t left_segment, right_segment;
  std::uint64_t left_offset, right_offset, ring_offset;
  std::uint32_t ring_slots, slot_pairs;
  // The ring (see above) and the end of the job.
  std::atomic<std::uint64_t> head;
  std::atomic<std::uint64_t> tail;
  std::atomic<std::uint32_t> finished;  // 0 running, 1 done, 2 failed (runner)
  bool failed_before_pairs;             // the failure came before the first published pair
  JoinStatsRecord stats;
  char error[512];
};

// Bytes of one ring slot (its size word, then the three arrays).
inline std::size_t ring_slot_bytes(std::uint32_t slot_pairs) {
  return 8 + static_cast<std::size_t>(slot_pairs) * (4 + 4 + 8);
}

struct RingSlotView {
  std::uint64_t* size;
  std::uint32_t* left;
  std::uint32_t* right;
  double* distance;
};

inline RingSlotView ring_slot(JobHeader* job, std::uint64_t index) {
  char* base = reinterpret_cast<char*>(job) + job->ring_offset +
               (index % job->ring_slots) * ring_slot_bytes(job->slot_pairs);
  RingSlotView view;
  view.size = reinterpret_cast<std::uint64_t*>(base);
  view.distance = reinterpret_cast<double*>(base + 8);
  view.left = reinterpret_cast<std::uint32_t*>(base + 8 + 8 * std::size_t(job->slot_pairs));
  view.right = view.left + job->slot_pairs;
  return view;
}

inline const double* job_points(const JobHeader* job, std::uint64_t offset) {
  return reinterpret_cast<const double*>(reinterpret_cast<const char*>(job) + offset);
}

static_assert(std::is_trivially_copyable_v<JoinSpec>, "the spec is copied into shared memory");
static_assert(std::is_trivially_copyable_v<KnnSpec>, "the spec is copied into shared memory");
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "shared atomics must be lock-free");
static_assert(std::atomic<std::uint32_t>::is_always_lock_free, "shared atomics must be lock-free");

}  // namespace simjoin::pg
