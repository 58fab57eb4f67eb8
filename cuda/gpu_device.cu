// Lazy probing of the CUDA device (see gpu_device.cuh).
#include "gpu_device.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_check.h"

namespace simjoin::gpu {
namespace {

// The lowest architecture this build carries code for (nvcc lists the -gencode virtual
// architectures, e.g. 800,900): an older device can run none of its kernels.
#ifdef __CUDA_ARCH_LIST__
constexpr int kBuiltArchs[] = {__CUDA_ARCH_LIST__};
#else
constexpr int kBuiltArchs[] = {0};  // an nvcc older than 11.5: not checked here
#endif

constexpr int lowest_built_arch() {
  int lowest = kBuiltArchs[0];
  for (int arch : kBuiltArchs) lowest = arch < lowest ? arch : lowest;
  return lowest;
}

std::string version_text(int cuda_version) {  // 12040 -> "12.4"
  return std::to_string(cuda_version / 1000) + "." + std::to_string(cuda_version % 1000 / 10);
}

// Why the CUDA runtime found no usable device, in words a user can act on; the CUDA error's
// name stays at the end for support.
std::string no_device_reason(cudaError_t status) {
  std::string text;
  switch (status) {
    case cudaErrorInsufficientDriver: {
      int driver = 0;
      cudaDriverGetVersion(&driver);  // 0 when no driver is installed; initializes nothing
      text = driver == 0 ? "no NVIDIA GPU driver found"
                         : "the NVIDIA GPU driver supports CUDA " + version_text(driver) +
                               " but simjoin was built with CUDA " + version_text(CUDART_VERSION) +
                               ": update the driver";
      break;
    }
    case cudaErrorNoDevice:
      text = "no NVIDIA GPU found";
      break;
    case cudaErrorInitializationError:
      text = "the NVIDIA GPU driver failed to initialize (does nvidia-smi work?)";
      break;
    case cudaErrorSystemDriverMismatch:
      text = "the NVIDIA kernel module and driver library versions differ: reload the driver or "
             "reboot";
      break;
    case cudaErrorCompatNotSupportedOnDevice:
      text = "the NVIDIA forward-compatibility driver does not support this GPU";
      break;
    case cudaErrorStubLibrary:
      text = "only a stub of the NVIDIA driver library was found, not a real driver";
      break;
    case cudaErrorDevicesUnavailable:
      text = "every NVIDIA GPU is busy or unavailable (exclusive compute mode?)";
      break;
    case cudaErrorOperatingSystem:
    case cudaErrorNotPermitted:
      text = "the operating system refused access to the NVIDIA GPU (permissions of /dev/nvidia*?)";
      break;
    default:
      text = std::string("the NVIDIA GPU cannot be used: ") + cudaGetErrorString(status);
      break;
  }
  return text + " (" + cudaGetErrorName(status) + ")";
}

DeviceInfo probe(int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    info.reason = no_device_reason(status);
    cudaGetLastError();  // clear it: a later call must not report this one
    return info;
  }
  if (count <= ordinal) {
    info.reason = "no NVIDIA GPU found";
    return info;
  }
  cudaDeviceProp properties{};
  const cudaError_t props_status = cudaGetDeviceProperties(&properties, info.ordinal);
  if (props_status != cudaSuccess) {
    info.reason = std::string("the NVIDIA GPU's properties cannot be read: ") +
                  cudaGetErrorString(props_status) + " (" + cudaGetErrorName(props_status) + ")";
    return info;
  }
  info.name = properties.name;
  const int arch = properties.major * 100 + properties.minor * 10;
  if (arch < lowest_built_arch()) {
    info.reason = info.name + " has compute capability " + std::to_string(properties.major) +
                  "." + std::to_string(properties.minor) + "; this build of simjoin needs " +
                  std::to_string(lowest_built_arch() / 100) + "." +
                  std::to_string(lowest_built_arch() % 100 / 10) +
                  " or newer (rebuild it with make CUDA_ARCH=...: see README.md)";
    return info;
  }
  info.usable = true;
  return info;
}

// The usable devices in ordinal order, or one entry saying why there is none.
const std::vector<DeviceInfo>& devices() {
  static std::once_flag once;
  static std::vector<DeviceInfo> list;
  std::call_once(once, [] {
    const DeviceInfo first = probe(0);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    cudaGetLastError();
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      const DeviceInfo info = ordinal == 0 ? first : probe(ordinal);
      if (info.usable) list.push_back(info);
    }
    if (list.empty()) list.push_back(first);
  });
  return list;
}

thread_local int selected_device = 0;  // an index into devices()

}  // namespace

const DeviceInfo& device_info() { return devices().front(); }

int usable_device_count() {
  return devices().front().usable ? static_cast<int>(devices().size()) : 0;
}

void select_device(int index) {
  if (index < 0 || index >= usable_device_count())
    throw Error("simjoin: there is no usable GPU number " + std::to_string(index));
  selected_device = index;
}

std::size_t join_memory_bytes(std::size_t budget) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return budget == 0 ? free_bytes : std::min(budget, free_bytes);
}

const DeviceInfo& use_device() {
  const DeviceInfo& info = devices()[selected_device];
  if (!info.usable) throw Error("simjoin: no usable GPU: " + info.reason);
  CUDA_CHECK(cudaSetDevice(info.ordinal));
  return info;
}

}  // namespace simjoin::gpu
