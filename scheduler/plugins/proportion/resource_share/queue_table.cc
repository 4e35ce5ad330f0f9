#include "scheduler/plugins/proportion/resource_share/queue_table.h"

#include <algorithm>
#include <utility>

namespace kai::proportion {

bool QueueBefore(const QueueAttributes& a, const QueueAttributes& b) {
  if (a.creation_time != b.creation_time) return a.creation_time < b.creation_time;
  return a.uid < b.uid;
}

StatusOr<QueueTable> QueueTable::Build(std::vector<QueueAttributes> queues) {
  std::sort(queues.begin(), queues.end(), QueueBefore);
  QueueTable t;
  const int n = static_cast<int>(queues.size());
  t.index_.reserve(queues.size());
  for (int i = 0; i < n; ++i) {
    if (queues[i].uid.empty()) {
      return InvalidArgumentError("proportion: queue with an empty UID");
    }
    if (!t.index_.emplace(queues[i].uid, i).second) {
      return InvalidArgumentError("proportion: duplicate queue UID '" + queues[i].uid + "'");
    }
  }
  t.queues_ = std::move(queues);
  t.parent_.assign(n, kNoQueue);
  t.children_.assign(n, {});
  t.orphan_.assign(n, 0);
  t.depth_.assign(n, 0);

  for (int i = 0; i < n; ++i) {
    const std::string& parent = t.queues_[i].parent;
    if (parent.empty()) continue;
    const QueueIndex p = t.Find(parent);
    if (p == kNoQueue || p == i) {
      t.orphan_[i] = 1;
    } else {
      t.parent_[i] = p;
    }
  }
  // A queue is in a tree iff following parents reaches a top-level queue. Anything else (a
  // missing ancestor or a parent cycle) is an orphan. Orphans keep their parent links, as in
  // KAI, except queues on a cycle, which are detached so that every walk up terminates.
  std::vector<int8_t> state(n, 0);  // 0 unknown, 1 rooted, 2 orphan
  for (int i = 0; i < n; ++i) {
    std::vector<QueueIndex> path;
    QueueIndex q = i;
    int8_t verdict = 0;
    while (true) {
      if (state[q] != 0) {
        verdict = state[q];
        break;
      }
      if (t.orphan_[q]) {
        verdict = 2;
        break;
      }
      if (t.parent_[q] == kNoQueue) {
        verdict = 1;
        break;
      }
      auto seen = std::find(path.begin(), path.end(), q);
      if (seen != path.end()) {
        for (auto it = seen; it != path.end(); ++it) t.parent_[*it] = kNoQueue;
        verdict = 2;
        break;
      }
      path.push_back(q);
      q = t.parent_[q];
    }
    if (state[q] == 0) state[q] = verdict;
    for (QueueIndex p : path) state[p] = verdict;
  }
  for (int i = 0; i < n; ++i) {
    if (state[i] == 2) t.orphan_[i] = 1;
  }
  for (int i = 0; i < n; ++i) {  // indices are already in (creation time, UID) order
    if (t.orphan_[i]) continue;
    if (t.parent_[i] == kNoQueue) {
      t.top_level_.push_back(i);
    } else {
      t.children_[t.parent_[i]].push_back(i);
    }
  }
  for (int i = 0; i < n; ++i) {
    int d = 0;
    for (QueueIndex q = t.parent_[i]; q != kNoQueue; q = t.parent_[q]) ++d;
    t.depth_[i] = d;
  }
  return t;
}

QueueIndex QueueTable::Find(std::string_view uid) const {
  auto it = index_.find(std::string(uid));
  return it == index_.end() ? kNoQueue : it->second;
}

std::vector<QueueIndex> QueueTable::PathFromRoot(QueueIndex i) const {
  std::vector<QueueIndex> path;
  ForSelfAndAncestors(i, [&](QueueIndex q) { path.push_back(q); });
  std::reverse(path.begin(), path.end());
  return path;
}

void QueueTable::AddAllocated(QueueIndex leaf, const ResourceQuantities& delta,
                              bool non_preemptible) {
  ForSelfAndAncestors(leaf, [&](QueueIndex q) {
    for (ResourceName r : kAllResources) {
      ResourceShare& s = queues_[q].share(r);
      s.allocated += delta[r];
      if (non_preemptible) s.allocated_not_preemptible += delta[r];
    }
  });
}

void QueueTable::SubAllocated(QueueIndex leaf, const ResourceQuantities& delta,
                              bool non_preemptible) {
  ForSelfAndAncestors(leaf, [&](QueueIndex q) {
    for (ResourceName r : kAllResources) {
      ResourceShare& s = queues_[q].share(r);
      s.allocated -= delta[r];
      if (non_preemptible) s.allocated_not_preemptible -= delta[r];
    }
  });
}

void QueueTable::AddAllocatedTask(QueueIndex leaf, const ResourceQuantities& accepted,
                                  bool non_preemptible) {
  ForSelfAndAncestors(leaf, [&](QueueIndex q) {
    for (ResourceName r : kAllResources) {
      ResourceShare& s = queues_[q].share(r);
      s.allocated += accepted[r];
      s.request += accepted[r];
      if (non_preemptible) s.allocated_not_preemptible += accepted[r];
    }
  });
}

void QueueTable::AddPendingTask(QueueIndex leaf, const ResourceQuantities& requested) {
  ForSelfAndAncestors(leaf, [&](QueueIndex q) {
    for (ResourceName r : kAllResources) queues_[q].share(r).request += requested[r];
  });
}

}  // namespace kai::proportion
