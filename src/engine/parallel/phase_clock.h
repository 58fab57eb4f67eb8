// Times the phases of a join into JoinStats::phase_seconds.
#pragma once

#include <chrono>

#include "engine/types.h"

namespace simjoin {

// Appends (phase, seconds since the previous mark, restart or construction) to the stats.
class PhaseClock {
 public:
  explicit PhaseClock(JoinStats& stats) : stats_(stats), last_(Clock::now()) {}
  void mark(const char* phase) {
    const auto now = Clock::now();
    stats_.phase_seconds.emplace_back(phase, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  void restart() { last_ = Clock::now(); }

 private:
  using Clock = std::chrono::steady_clock;
  JoinStats& stats_;
  Clock::time_point last_;
};

}  // namespace simjoin
