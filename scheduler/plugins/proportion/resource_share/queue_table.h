// QueueTable: every queue of a session with its hierarchy resolved to indices.
//
// KAI keeps queues in a map keyed by UID and walks parents by lookup; the table does the same
// walks through integer links so that hot paths (queue order, capacity checks, event handlers)
// never hash a string. Iteration order is fixed: queues sorted by creation time, then UID.
// Copying a table is the simulation-state clone of OnJobSolutionStart.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kube/base/statusor.h"
#include "scheduler/plugins/proportion/resource_share/queue_attributes.h"

namespace kai::proportion {

using QueueIndex = int32_t;
inline constexpr QueueIndex kNoQueue = -1;

class QueueTable {
 public:
  QueueTable() = default;

  // Builds the table. Fails on an empty or duplicate UID. A queue whose parent is missing, or
  // that sits on a parent cycle, is an orphan: it keeps its numbers but belongs to no tree, so
  // it never receives a fair share (the snapshot normally removes such queues first).
  static StatusOr<QueueTable> Build(std::vector<QueueAttributes> queues);

  int size() const { return static_cast<int>(queues_.size()); }
  bool empty() const { return queues_.empty(); }

  QueueAttributes& operator[](QueueIndex i) { return queues_[i]; }
  const QueueAttributes& operator[](QueueIndex i) const { return queues_[i]; }

  // kNoQueue when absent.
  QueueIndex Find(std::string_view uid) const;

  // kNoQueue for top-level queues and orphans.
  QueueIndex parent(QueueIndex i) const { return parent_[i]; }
  // Children sorted by (creation time, UID).
  std::span<const QueueIndex> children(QueueIndex i) const { return children_[i]; }
  bool IsLeaf(QueueIndex i) const { return children_[i].empty(); }
  bool IsOrphan(QueueIndex i) const { return orphan_[i] != 0; }
  // Top-level queues sorted by (creation time, UID).
  std::span<const QueueIndex> top_level() const { return top_level_; }
  // All queues sorted by (creation time, UID); indices are assigned in this order, so this is
  // 0..size()-1.
  int depth(QueueIndex i) const { return depth_[i]; }

  // Calls f(index) for `i` and each ancestor up to the root.
  template <typename F>
  void ForSelfAndAncestors(QueueIndex i, F&& f) const {
    for (QueueIndex q = i; q != kNoQueue; q = parent_[q]) f(q);
  }
  // Root-first path from the top-level ancestor to `i`.
  std::vector<QueueIndex> PathFromRoot(QueueIndex i) const;

  // Adds `delta` to Allocated (and AllocatedNotPreemptible when `non_preemptible`) of `leaf`
  // and every ancestor; the session's allocate / deallocate event handlers call this.
  void AddAllocated(QueueIndex leaf, const ResourceQuantities& delta, bool non_preemptible);
  void SubAllocated(QueueIndex leaf, const ResourceQuantities& delta, bool non_preemptible);
  // Adds to Allocated, AllocatedNotPreemptible (non-preemptible jobs) and Request of `leaf`
  // and ancestors: an allocated task at snapshot time.
  void AddAllocatedTask(QueueIndex leaf, const ResourceQuantities& accepted, bool non_preemptible);
  // Adds to Request of `leaf` and ancestors: a pending task at snapshot time.
  void AddPendingTask(QueueIndex leaf, const ResourceQuantities& requested);

 private:
  std::vector<QueueAttributes> queues_;
  std::vector<QueueIndex> parent_;
  std::vector<std::vector<QueueIndex>> children_;
  std::vector<uint8_t> orphan_;
  std::vector<int> depth_;
  std::vector<QueueIndex> top_level_;
  std::unordered_map<std::string, QueueIndex> index_;  // lookup only, never iterated
};

// True when `a` sorts before `b` in the table's fixed order (creation time, then UID).
bool QueueBefore(const QueueAttributes& a, const QueueAttributes& b);

}  // namespace kai::proportion
