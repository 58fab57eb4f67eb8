// CUDA_CHECK: turns a failed CUDA runtime call into simjoin::Error with file, line and message.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "engine/types.h"

namespace simjoin::gpu {

[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file,
                                          int line) {
  throw Error(std::string("CUDA error at ") + file + ":" + std::to_string(line) + ": " + call +
              ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}

}  // namespace simjoin::gpu

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    const cudaError_t cuda_check_code_ = (call);                                      \
    if (cuda_check_code_ != cudaSuccess)                                              \
      ::simjoin::gpu::throw_cuda_error(cuda_check_code_, #call, __FILE__, __LINE__);  \
  } while (0)

// After a kernel launch: launch-configuration errors surface here, faults at the next sync.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
