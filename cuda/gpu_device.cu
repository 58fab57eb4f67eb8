// Lazy probing of the CUDA device (see gpu_device.cuh).
#include "gpu_device.cuh"

#include <cuda_runtime.h>

#include <mutex>

#include "cuda_check.h"

namespace simjoin::gpu {
namespace {

constexpr int kMinComputeMajor = 9;  // the library carries sm_90 code and compute_90 PTX

DeviceInfo probe() {
  DeviceInfo info;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    info.reason = std::string("no usable CUDA driver or device: ") + cudaGetErrorName(status) +
                  " (" + cudaGetErrorString(status) + ")";
    cudaGetLastError();  // clear it: a later call must not report this one
    return info;
  }
  if (count == 0) {
    info.reason = "no CUDA device";
    return info;
  }
  cudaDeviceProp properties{};
  const cudaError_t props_status = cudaGetDeviceProperties(&properties, info.ordinal);
  if (props_status != cudaSuccess) {
    info.reason = std::string("cannot read the CUDA device's properties: ") +
                  cudaGetErrorString(props_status);
    return info;
  }
  info.name = properties.name;
  if (properties.major < kMinComputeMajor) {
    info.reason = info.name + " has compute capability " + std::to_string(properties.major) +
                  "." + std::to_string(properties.minor) + "; simjoin's kernels need 9.0 or newer";
    return info;
  }
  info.usable = true;
  return info;
}

}  // namespace

const DeviceInfo& device_info() {
  static std::once_flag once;
  static DeviceInfo info;
  std::call_once(once, [] { info = probe(); });
  return info;
}

const DeviceInfo& use_device() {
  const DeviceInfo& info = device_info();
  if (!info.usable) throw Error("simjoin: no usable GPU: " + info.reason);
  CUDA_CHECK(cudaSetDevice(info.ordinal));
  return info;
}

}  // namespace simjoin::gpu
