// FilledVector<T>: a std::vector for the engine's large arrays. Its resize() leaves new elements
// default-initialized (for numbers: not written), for arrays that a parallel loop then fills
// completely: their pages are first touched by the threads that fill them, in parallel, and
// written once instead of twice. Its blocks of 1 MB and more come from the buffer cache
// (engine/parallel/buffer_cache.h), which keeps them between joins.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/parallel/buffer_cache.h"

namespace simjoin {

template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(cached_allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { cached_deallocate(p, n * sizeof(T)); }
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using FilledVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace simjoin
