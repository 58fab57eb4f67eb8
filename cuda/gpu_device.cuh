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

// Probes every device on first call (thread-safe); later calls return the same answers.
// device_info(): the first usable device's (or why none is usable).
const DeviceInfo& device_info();
// The usable devices (0 when none is).
int usable_device_count();
// Chooses the usable device (0 .. usable_device_count() - 1) this thread's joins run on; each
// thread starts on the first.
void select_device(int index);

// The device memory one join may use: the free memory, within `budget` bytes when it is not 0
// (JoinSpec::device_memory_bytes).
std::size_t join_memory_bytes(std::size_t budget);

// Makes the device current on the calling thread; throws simjoin::Error when none is usable.
const DeviceInfo& use_device();

}  // namespace simjoin::gpu
