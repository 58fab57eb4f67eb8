// The CUDA device the backend runs on: probed once, lazily (never at library load or static
// initialization, so that a process without a driver, or the postmaster, never touches CUDA).
#pragma once

#include <cstddef>
#include <string>

namespace simjoin::gpu {

struct DeviceInfo {
  bool usable = false;
  std::string reason;  // why not usable
  std::string name;    // e.g. "NVIDIA H100 80GB HBM3"
  int ordinal = 0;
};

// Probes device 0 on first call (thread-safe); later calls return the same answer.
const DeviceInfo& device_info();

// The device memory one join may use: the free memory, within `budget` bytes when it is not 0
// (JoinSpec::device_memory_bytes).
std::size_t join_memory_bytes(std::size_t budget);

// Makes the device current on the calling thread; throws simjoin::Error when none is usable.
const DeviceInfo& use_device();

}  // namespace simjoin::gpu
