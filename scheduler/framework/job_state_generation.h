// When a per-job memo (tasks to allocate, job-order ranks) may be trusted without re-reading its
// inputs: the job's task statuses and virtual-status flags, and its PodSets' minimums.
//
// - The snapshot generation moves when every memo must go: a session starts (the snapshot set
//   statuses without telling anyone).
// - The structure generation moves with it and when the memos that read more than statuses must
//   go: a job-order function is registered. Memos of status facts only (alive, pending) survive
//   it. (The victim solver sets a partial job's PodSet minimums on a fresh copy, whose memos
//   start empty and are its own: nothing else reads them, so nothing moves there.)
// - The job-state generation moves with both and on every task status write (all of them go
//   through Statement or Session::Evict / BindTask).
// - Each job of the session's job map carries a status_version (set to 1 when the session starts,
//   bumped with every status write of one of its tasks). Copies made during the session (partial
//   jobs, victim representatives) share tasks with a session job but have status_version 0: their
//   memos hold only while the job-state generation stands still.
//
// So a session job's memo survives the status changes of other jobs (each victim simulation
// changes a few jobs and rolls back; the job-order heaps rebuilt per simulation ask for every
// pending job's memo again), and a copy's memo survives as long as nothing changed at all.
#pragma once

#include <glog/logging.h>

#include <atomic>
#include <cstdint>

#include "scheduler/api/podgroup_info.h"

namespace kai::scheduler {

namespace internal {
inline std::atomic<uint64_t> job_state_generation{1};
inline std::atomic<uint64_t> job_structure_generation{1};
inline std::atomic<uint64_t> job_snapshot_generation{1};
}  // namespace internal

inline uint64_t JobStateGeneration() {
  return internal::job_state_generation.load(std::memory_order_relaxed);
}

// A task of `job` (nullptr: of no job in the session's map) changed status.
inline void BumpJobState(PodGroupInfo* job) {
  internal::job_state_generation.fetch_add(1, std::memory_order_relaxed);
  if (job != nullptr && job->status_version != 0) ++job->status_version;
}

// Every memo that reads PodSet minimums or the job-order functions is stale.
inline void BumpJobStructure() {
  internal::job_structure_generation.fetch_add(1, std::memory_order_relaxed);
  internal::job_state_generation.fetch_add(1, std::memory_order_relaxed);
}

// Every memo of every job is stale.
inline void BumpJobSnapshot() {
  internal::job_snapshot_generation.fetch_add(1, std::memory_order_relaxed);
  BumpJobStructure();
}

inline JobStateStamp CurrentJobStateStamp(const PodGroupInfo& job) {
  return JobStateStamp{internal::job_snapshot_generation.load(std::memory_order_relaxed),
                       internal::job_structure_generation.load(std::memory_order_relaxed),
                       JobStateGeneration(), job.status_version};
}

// For a memo of the job's task statuses only: the structure generation does not matter.
inline bool JobStatusStampHolds(const PodGroupInfo& job, const JobStateStamp& s) {
  if (s.snapshot != internal::job_snapshot_generation.load(std::memory_order_relaxed)) {
    return false;
  }
  if (s.global == JobStateGeneration()) return true;
  return job.status_version != 0 && s.job == job.status_version;
}

inline bool JobStateStampHolds(const PodGroupInfo& job, const JobStateStamp& s) {
  if (s.structure != internal::job_structure_generation.load(std::memory_order_relaxed)) {
    return false;
  }
  return JobStatusStampHolds(job, s);
}

// A yes/no fact of the job's task statuses, computed again only when one of them changed; debug
// builds check every reuse.
template <typename Compute>
bool MemoizedJobFlag(const PodGroupInfo& job, PodGroupInfo::FlagMemo* m, const Compute& compute,
                     const char* what) {
  if (JobStatusStampHolds(job, m->stamp)) {
    DCHECK_EQ(m->value, compute()) << "stale " << what << " memo of job " << job.uid();
    return m->value;
  }
  m->value = compute();
  m->stamp = CurrentJobStateStamp(job);
  return m->value;
}

}  // namespace kai::scheduler
