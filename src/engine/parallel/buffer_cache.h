// The engine's large blocks (FilledVector's, engine/parallel/filled_vector.h), kept between joins by a cache of
// the process's own: a grid join of a million points frees 49 MB of them (run_neighbour_stats on
// 997,840 2-D points), and on first touch every 4 kB page of fresh memory costs a page fault (on
// a 2-core VM that join's index took 28-32 ms in fresh memory, 20 ms in cached blocks). A freed
// block is kept, its pages given back lazily (MADV_FREE: the
// kernel takes them whenever it needs memory, and a later write just reuses what it left), and
// the next join of a similar size reuses it without faulting. At most buffer_cache_limit()
// bytes are kept (0: none, every block is unmapped at once); the oldest go first.
#pragma once

#include <cstddef>
#include <system_error>
#include <type_traits>
#include <utility>

#include "engine/parallel/worker_thread.h"

namespace simjoin {

// Blocks from this size on are mapped and cached; smaller ones are operator new's.
constexpr std::size_t kCachedBlockMin = std::size_t{1} << 20;

void* cached_allocate(std::size_t bytes);
void cached_deallocate(void* block, std::size_t bytes);

// Destroys `object` (an index of FilledVectors) on a thread of its own, so that handing its
// blocks back (madvise) overlaps the caller's next work; here when no thread starts.
// While such threads run, an allocation that finds no fitting block waits for them (briefly).
void begin_disposal();
void end_disposal();

template <typename T>
void dispose_in_background(T&& object) {
  using Object = std::decay_t<T>;
  begin_disposal();
  try {
    start_worker_thread([held = Object(std::forward<T>(object))]() mutable {
      { Object gone = std::move(held); }
      end_disposal();
    }).detach();
  } catch (const std::system_error&) {
    end_disposal();  // the object went with the lambda, here
  }
}

void set_buffer_cache_limit(std::size_t bytes);
std::size_t buffer_cache_limit();
// Bytes of freed blocks held now.
std::size_t buffer_cache_held();

}  // namespace simjoin
