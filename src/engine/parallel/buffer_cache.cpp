#include "engine/parallel/buffer_cache.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <vector>

namespace simjoin {
namespace {

constexpr std::size_t kGranule = std::size_t{1} << 20;  // mapped sizes round up to this
constexpr auto kDisposalWait = std::chrono::milliseconds(50);  // at most, for blocks on their way

struct Block {
  void* address;
  std::size_t bytes;  // mapped
};

// Never destroyed: a block may come back on a thread of dispose_in_background's while the process
// exits and its static objects are destroyed (and made on first use, whatever the order of static
// initialization).
struct CacheState {
  std::mutex mutex;
  std::vector<Block> cached;  // oldest first
  std::size_t held = 0;
  std::size_t limit = 256u << 20;
  int disposing = 0;                 // dispose_in_background's threads still running
  std::condition_variable disposed;  // one of them ended
};
CacheState& cache() {
  static CacheState* const state = new CacheState;
  return *state;
}

std::size_t mapped_size(std::size_t bytes) { return (bytes + kGranule - 1) / kGranule * kGranule; }

void unmap(const Block& block) { munmap(block.address, block.bytes); }

// The oldest blocks taken out of the cache until it holds no more than its limit (its mutex
// held); the caller unmaps them after releasing it.
void drop_over_limit(CacheState& c, std::vector<Block>* dropped) {
  while (c.held > c.limit) {
    dropped->push_back(c.cached.front());
    c.held -= c.cached.front().bytes;
    c.cached.erase(c.cached.begin());
  }
}

}  // namespace

void* cached_allocate(std::size_t bytes) {
  if (bytes < kCachedBlockMin) return ::operator new(bytes);
  const std::size_t size = mapped_size(bytes);
  CacheState& c = cache();
  {
    std::unique_lock<std::mutex> lock(c.mutex);
    for (bool waited = false;; waited = true) {
      // The smallest held block that fits, if it wastes less than a quarter of itself.
      auto best = c.cached.end();
      for (auto it = c.cached.begin(); it != c.cached.end(); ++it)
        if (it->bytes >= size && it->bytes - size <= it->bytes / 4 &&
            (best == c.cached.end() || it->bytes < best->bytes))
          best = it;
      if (best != c.cached.end()) {
        void* address = best->address;
        c.held -= best->bytes;
        c.cached.erase(best);
        return address;
      }
      // A join right after another: its index's blocks are on their way back (a few
      // milliseconds), cheaper to wait for than fresh memory.
      if (waited || c.disposing == 0) break;
      c.disposed.wait_for(lock, kDisposalWait, [&c] { return c.disposing == 0; });
    }
  }
  void* address = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED) throw std::bad_alloc();
  return address;
}

void cached_deallocate(void* block, std::size_t bytes) {
  if (bytes < kCachedBlockMin) {
    ::operator delete(block);
    return;
  }
  const Block freed{block, mapped_size(bytes)};
  if (freed.bytes > buffer_cache_limit()) {
    unmap(freed);
    return;
  }
  // Before the block is in the cache, where another thread may take it and write to it.
#ifdef MADV_FREE
  madvise(block, freed.bytes, MADV_FREE);
#endif
  CacheState& c = cache();
  std::vector<Block> dropped;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.cached.push_back(freed);
    c.held += freed.bytes;
    drop_over_limit(c, &dropped);
  }
  for (const Block& b : dropped) unmap(b);
}

void begin_disposal() {
  CacheState& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.disposing++;
}

void end_disposal() {
  CacheState& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.disposing--;
  }
  c.disposed.notify_all();
}

void set_buffer_cache_limit(std::size_t bytes) {
  CacheState& c = cache();
  std::vector<Block> dropped;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.limit = bytes;
    drop_over_limit(c, &dropped);
  }
  for (const Block& b : dropped) unmap(b);
}

std::size_t buffer_cache_limit() {
  CacheState& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.limit;
}

std::size_t buffer_cache_held() {
  CacheState& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.held;
}

}  // namespace simjoin
