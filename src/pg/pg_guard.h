// The boundary between PostgreSQL (errors are longjmps) and C++ (errors are exceptions).
//
//  - cpp_guard(f): run C++ code from a PostgreSQL entry point. An exception escaping f becomes
//    ereport(ERROR) only after f's frames (and their destructors) are gone. A PostgreSQL error
//    raised inside f through pg_call is re-thrown unchanged.
//  - pg_call(f): run PostgreSQL code from inside C++. An ERROR raised by f is caught (PG_TRY),
//    copied, and turned into a PgError exception, so that C++ destructors run; cpp_guard re-throws
//    the original error once C++ is left.
//  - Interrupts: C++ code (and any thread) polls interrupt_pending() and stops; the backend then
//    leaves C++ and calls raise_if_interrupted(), where CHECK_FOR_INTERRUPTS() may longjmp.
#pragma once

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
#include "utils/elog.h"
}

#include <cstring>
#include <exception>
#include <type_traits>
#include <utility>

namespace simjoin::pg {

// A PostgreSQL error caught inside C++; owns an ErrorData copied into ErrorContext's parent.
class PgError : public std::exception {
 public:
  explicit PgError(ErrorData* data) : data_(data) {}
  ErrorData* data() const { return data_; }
  const char* what() const noexcept override { return data_ && data_->message ? data_->message : "PostgreSQL error"; }
 private:
  ErrorData* data_;
};

// Runs body under PG_TRY; a PostgreSQL error raised inside becomes PgError (after the error
// state is copied and flushed). A C++ exception thrown by body is caught inside the PG_TRY block
// and rethrown after PG_END_TRY, so that it never leaves the block with PG_exception_stack still
// pointing into this frame. Only on the backend's own thread.
template <typename Body>
void pg_call_void(Body&& body) {
  MemoryContext caller_context = CurrentMemoryContext;
  ErrorData* volatile caught = nullptr;
  std::exception_ptr cpp_error;  // assigned only on the path that leaves PG_TRY normally
  PG_TRY();
  {
    try {
      body();
    } catch (...) {
      cpp_error = std::current_exception();
    }
  }
  PG_CATCH();
  {
    MemoryContextSwitchTo(caller_context);
    caught = CopyErrorData();
    FlushErrorState();
  }
  PG_END_TRY();
  if (caught) throw PgError(caught);
  if (cpp_error) std::rethrow_exception(cpp_error);
}

// Runs f and returns its result; PostgreSQL errors inside it become PgError.
template <typename F>
auto pg_call(F&& f) -> decltype(f()) {
  if constexpr (std::is_void_v<decltype(f())>) {
    pg_call_void(f);
  } else {
    decltype(f()) result{};
    pg_call_void([&] { result = f(); });
    return result;
  }
}

// Runs f (C++); on an exception reports it as a PostgreSQL ERROR after leaving every C++ frame.
//
// Like pg_duckdb's guard, it also restores PostgreSQL's error and context stacks as they were at
// entry before raising: whatever happened inside, the ERROR longjmps to the caller's handler.
template <typename F>
auto cpp_guard(F&& f) -> decltype(f()) {
  sigjmp_buf* const entry_exception_stack = PG_exception_stack;
  ErrorContextCallback* const entry_context_stack = error_context_stack;
  ErrorData* pg_error = nullptr;
  char message[1024];
  message[0] = '\0';
  try {
    return f();
  } catch (const PgError& e) {
    pg_error = e.data();
  } catch (const std::bad_alloc&) {
    std::strncpy(message, "out of memory in the simjoin engine", sizeof message - 1);
  } catch (const std::exception& e) {
    std::strncpy(message, e.what(), sizeof message - 1);
  } catch (...) {
    std::strncpy(message, "unknown C++ exception", sizeof message - 1);
  }
  message[sizeof message - 1] = '\0';
  PG_exception_stack = entry_exception_stack;
  error_context_stack = entry_context_stack;
  if (pg_error) ReThrowError(pg_error);
  const bool prefixed = std::strncmp(message, "simjoin:", 8) == 0;
  ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("%s%s", prefixed ? "" : "simjoin: ", message)));
  pg_unreachable();
}

// Whether a query cancel, statement_timeout or backend termination is pending. Reads plain
// volatile flags only: safe on any thread, never raises.
inline bool interrupt_pending() { return QueryCancelPending || ProcDiePending; }

// Called in plain C context (no C++ frames with destructors below) after a join stopped early:
// processes the pending cancel/timeout; raises "canceling statement" if nothing else did.
inline void raise_if_interrupted(bool stopped) {
  if (!stopped) return;
  CHECK_FOR_INTERRUPTS();
  if (interrupt_pending())
    ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg("canceling statement")));
}

}  // namespace simjoin::pg
