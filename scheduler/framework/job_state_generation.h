// JobStateGeneration: a process-wide counter that moves whenever something a per-job memo reads
// may have changed during a session: a task's status or virtual-status flag (every write goes
// through Statement or Session::BindTask / EvictTask), or a partial job's PodSet minimums (set by
// the victim solver right after cloning). Memos on a job (tasks to allocate, job-order ranks)
// stamp the generation they were computed or checked at; while it has not moved, they are valid
// without re-reading their inputs. New jobs (each snapshot's, each clone) start with empty memos.
#pragma once

#include <atomic>
#include <cstdint>

namespace kai::scheduler {

namespace internal {
inline std::atomic<uint64_t> job_state_generation{1};
}  // namespace internal

// Never 0 (0 marks a memo that was never filled).
inline uint64_t JobStateGeneration() {
  return internal::job_state_generation.load(std::memory_order_relaxed);
}

inline void BumpJobStateGeneration() {
  internal::job_state_generation.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace kai::scheduler
