// The GPU backend's interface: the engine's run_join, on the device. No CUDA header here, so that
// the engine's dispatcher compiles without the toolkit.
#pragma once

#include <string>

#include "pair_sink.h"
#include "types.h"

namespace simjoin::gpu {

// Whether a CUDA device is usable. Initializes the CUDA runtime on first call (never call this
// in the postmaster). `why` gets the reason when not.
bool available(std::string* why);

// Same contract as simjoin::run_join (engine.h); throws simjoin::Error on CUDA failures after
// releasing every device allocation. Calls the sink only on the calling thread.
JoinStats run_join(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                   PairSink& sink);

}  // namespace simjoin::gpu
