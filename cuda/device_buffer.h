// RAII owners of device memory and pinned host memory: freed on every path (success, sink stop,
// exception). Destructors never throw.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda_check.h"

namespace simjoin::gpu {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      swap(other);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Discards the contents; allocates at least one element so that data() is never null.
  void resize(std::size_t count) {
    release();
    CUDA_CHECK(cudaMalloc(&data_, (count ? count : 1) * sizeof(T)));
    size_ = count;
  }
  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  void release() noexcept {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
  }
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// The first n elements of `buffer`, copied to the host (synchronously).
template <typename T>
std::vector<T> to_host(const DeviceBuffer<T>& buffer, std::size_t n) {
  std::vector<T> host(n);
  if (n > 0)
    CUDA_CHECK(cudaMemcpy(host.data(), buffer.data(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// The whole of `buffer`, copied to the host on `stream`, after the work queued there (kernels on
// the non-blocking streams are not ordered with the legacy stream that the form above copies on).
template <typename T>
std::vector<T> to_host(const DeviceBuffer<T>& buffer, cudaStream_t stream) {
  std::vector<T> host(buffer.size());
  CUDA_CHECK(cudaMemcpyAsync(host.data(), buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

// `host` in a new device buffer, copied on `stream` (returns once it has landed).
template <typename T>
DeviceBuffer<T> to_device(const std::vector<T>& host, cudaStream_t stream) {
  DeviceBuffer<T> device(host.size());
  CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), device.bytes(), cudaMemcpyHostToDevice,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return device;
}

// n values from host memory (pageable) in a new device buffer. Returns once they have landed: a
// copy from pageable memory may return before its last DMA does, and the kernels that read the
// values run on non-blocking streams, which do not wait for the legacy stream's copy.
inline DeviceBuffer<double> upload(const double* host, std::size_t n) {
  DeviceBuffer<double> device(n);
  if (n > 0) CUDA_CHECK(cudaMemcpy(device.data(), host, n * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());
  return device;
}

// Page-locked host memory: the target of asynchronous device-to-host copies.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) {
    CUDA_CHECK(cudaHostAlloc(&data_, (count ? count : 1) * sizeof(T), cudaHostAllocDefault));
    size_ = count;
  }
  ~PinnedBuffer() {
    if (data_) cudaFreeHost(data_);
  }
  PinnedBuffer(PinnedBuffer&& other) noexcept { swap(other); }
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    swap(other);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void swap(PinnedBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace simjoin::gpu
