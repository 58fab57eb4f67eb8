// Running the engine from a backend: interrupts, GPU fallback and the explain NOTICE in one place,
// shared by similarity_join() and the custom scan.
#pragma once

extern "C" {
#include "postgres.h"
}

#include <string>

#include "engine/engine.h"
#include "engine/parallel/pair_stream.h"

namespace simjoin::pg {

// A sink whose keep_going() stops the join when a query cancel, statement_timeout or backend
// termination is pending (it never longjmps). Subclasses implement consume(); PostgreSQL calls
// made there must go through pg_call (pg_guard.h).
class InterruptibleSink : public PairSink {
 public:
  bool keep_going() override;
};

// Runs run_join with the device chosen by simjoin.device; on a GPU failure reruns on the CPU with
// a NOTICE or raises, as simjoin.gpu_error says (a GPU failure after the sink took pairs always
// raises). Emits the simjoin.explain NOTICE. Must be called inside cpp_guard. After a stop caused
// by an interrupt, the caller must leave C++ and call CHECK_FOR_INTERRUPTS() (see
// raise_if_interrupted).
JoinStats run_engine(const PointSet& left, const PointSet* right, const JoinSpec& spec,
                     PairSink& sink);

// Whether a query cancel, statement_timeout or backend termination is pending. Reads plain
// volatile flags only: safe on any thread, never raises.
bool interrupt_pending();

// Options for running the engine on a producer thread (PairStream) from a backend: the GPU
// fallback as simjoin.gpu_error says, stopping when interrupt_pending(). The producer never calls
// PostgreSQL; report_join() emits its NOTICEs on the backend's thread afterwards.
PairStream::Options stream_options();

// The NOTICEs of a finished join: the GPU fallback message (if any) and the simjoin.explain line.
// Inside cpp_guard (it uses pg_call).
void report_join(const JoinStats& stats, const std::string& fallback_note);

// Called in plain C context (no C++ frames with destructors below) after a join stopped early:
// processes the pending cancel/timeout; raises "canceling statement" if nothing else did.
void raise_if_interrupted(bool stopped);

// One line describing a finished join for NOTICE / EXPLAIN ANALYZE ("device=cpu algorithm=grid
// k=2 batches=3 candidates=... pairs=... time: plan 0.001 s, ..."); machine details only when
// simjoin.explain_machine_details is on.
void describe_join(const JoinStats& stats, char* buffer, size_t size);

}  // namespace simjoin::pg
