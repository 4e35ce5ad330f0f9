// ResourceFitCache: per-session memo of "no node of this node set has room for a task of this
// resource shape, not even counting releasing resources", with the fit errors that trying every
// node records (NodeInfo::FittingError per node).
//
// Why: when the cluster is full, every pending job that fits nowhere used to score every node,
// order them and try each one, only to record one "didn't have enough resources" error per node;
// at 4,000 nodes and ~1,600 such jobs that was most of a cycle. The resource check and the
// fit-error texts depend only on the nodes' accounting and on the task's requests, so tasks of
// the same shape share the answer, per node, across node sets (a victim simulation's feasible set
// is the action's plus its victims' nodes). When nodes change (NodeInfo::accounting_version), only
// those nodes are checked again, and the shared errors are copied only when one of those nodes'
// reasons actually changed. Each shape still meets thousands of full nodes, so the errors are kept
// dense: per node a pointer to a reason list interned by NodeInfo::FittingFailures (nodes failing
// alike share one; no strings per node). Pod-level predicates are never consulted here: they only
// run on nodes where the resources fit, and a task that has such a node takes the ordinary path.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/api/fit_errors.h"
#include "scheduler/api/node_info.h"
#include "scheduler/api/pod_info.h"
#include "scheduler/framework/interfaces.h"
#include "scheduler/framework/node_fit_view.h"

namespace kai::scheduler {

class ResourceFitCache {
 public:
  struct Result {
    // No node passes NodeInfo::IsTaskAllocatableOnReleasingOrIdle.
    bool none_fits = false;
    // When none_fits: the reasons of every node where the task does not fit in Idle either
    // (what Session::FittingNode records), keyed by node name; nullptr when there are none.
    std::shared_ptr<const NodeFitErrors> errors;
    // Per node of the set, in its order: 1 where the task has room
    // (IsTaskAllocatableOnReleasingOrIdle). Valid until the next Check.
    const std::vector<uint8_t>* room = nullptr;
  };

  // The answer for `task` on `nodes`, computed or brought up to date. `gang` is passed to
  // NodeInfo::FittingError as Session::FittingNode does; the errors are only computed when
  // `want_errors` (simulations do not record them).
  Result Check(const PodInfo& task, const NodeSet& nodes, bool gang, bool want_errors);

  // The session's table of its nodes' accounting versions by name rank (Session keeps it;
  // NodeInfo::MirrorAccountingVersion writes it): nodes that mirror into it are compared through
  // it, without reading the NodeInfo, the others through NodeInfo::accounting_version. A shape
  // checked again on a set of mirrored nodes reads only the nodes the table's log says were
  // written since its last check there.
  void SetNodeVersions(const VersionTable* versions) { versions_ = versions; }

  // NodeInfo::IsTaskAllocatable of every node (out[i] = 1 where the task fits in Idle), through
  // the views the fit errors built, where they are still current (nodeavailability scores every
  // node with room this way).
  void FitsInIdle(const PodInfo& task, std::span<const NodeInfo* const> nodes,
                  std::span<uint8_t> out) const;

  // What the memo would hold for the task, computed from scratch (tests and debug checks).
  static Result Compute(const PodInfo& task, const NodeSet& nodes, bool gang);

  // Checks of a shape seen before / of a new shape (node sets share a shape's answers).
  int64_t hits() const { return hits_; }
  // Node sets remembered now (at most kRecentSets).
  size_t interned_sets() const { return sets_.size(); }
  static constexpr size_t kRecentSets = 256;
  int64_t misses() const { return misses_; }
  // Nodes checked again because their accounting changed after the entry was made.
  int64_t node_rechecks() const { return node_rechecks_; }
  // Passes over a whole node set (room of a new shape, fit errors of a new entry) answered from
  // the views' columns.
  int64_t column_passes() const { return column_passes_; }
  // Checks and errors brought up to date from the table's log (only the nodes written since).
  int64_t log_updates() const { return log_updates_; }

 private:
  static constexpr uint64_t kNeverChecked = ~uint64_t{0};
  // Per task shape: each node's room answer and the accounting version it was computed at,
  // indexed by the node's name rank (shared by every node set, so a simulation's feasible set
  // with one more node reuses every other node's answer).
  struct NodeRoom {
    uint64_t version = kNeverChecked;
    uint8_t room = 0;
  };
  // A shape's last answer on a set of mirrored nodes, at the table's write count then.
  struct LastAnswer {
    int set = -1;
    uint64_t writes = 0;
    int num_room = 0;
    std::vector<uint8_t> room;
  };
  struct Shape {
    std::vector<NodeRoom> by_rank;
    LastAnswer last;
  };
  // Per shape and node set: the fit errors (dense form, in the set's order), kept up to date
  // node by node. Gangs and single pods share them: NodeInfo::FittingError ignores its gang flag.
  struct Errors {
    std::vector<uint64_t> versions;  // per node of the set, when its reasons were computed
    std::optional<uint64_t> writes;  // the table's write count then, when every node mirrors
    std::shared_ptr<NodeFitErrors> errors;
  };
  // Reason lists by the failures they spell: nodes that fail alike point at one list. Owned
  // jointly by the errors that point into it (they can outlive the session).
  struct ReasonTable {
    std::map<FitFailures, const NodeFitErrors::Reasons*> by_failures;
    std::deque<NodeFitErrors::Reasons> lists;  // stable addresses
  };

  // A node set seen before: its nodes, and per node its name rank when the node mirrors its
  // version into versions_ (0: read the node).
  struct InternedSet {
    uint64_t hash = 0;  // HashNodeSet(nodes), its key in set_by_hash_
    NodeSet nodes;
    std::vector<int> mirrored;
    bool all_mirrored = false;
    std::vector<int> index_by_rank;  // -1: not in the set; built on first use (IndexByRank)
    std::shared_ptr<const std::vector<std::string>> names;  // SetNames, built on first use
    std::map<std::string, Errors, std::less<>> errors;      // by shape key
  };

  // Index of an equal node set among the recent ones (or a new one). Ids are never reused; only
  // the kRecentSets latest sets are kept, with their errors: each victim scenario asks about a
  // set of its own, and keeping them all held hundreds of megabytes at L (an id that is gone is
  // only a set asked about again from scratch).
  int InternNodeSet(const NodeSet& nodes);
  InternedSet& SetAt(int id) { return sets_[id - first_set_]; }
  // Forgets the oldest set: its id, its hash entry and its errors.
  void DropOldestSet();
  // The table's write count when every node of the set mirrors into it; nullopt otherwise.
  std::optional<uint64_t> WritesFor(const InternedSet& s) const {
    if (!s.all_mirrored) return std::nullopt;
    return versions_->writes();
  }
  // The name ranks written since `since` (a WritesFor value) when the log still has them and they
  // are few enough to beat a pass over the set's nodes.
  std::optional<std::span<const uint32_t>> FewWrittenSince(std::optional<uint64_t> since,
                                                           const InternedSet& s) const;
  // Position of each name rank in the set (all its nodes mirror).
  const std::vector<int>& IndexByRank(InternedSet* s) const;
  // The accounting version of the set's i-th node.
  uint64_t VersionAt(const InternedSet& set, size_t i) const {
    const int rank = set.mirrored[i];
    return rank > 0 ? (*versions_)[rank] : set.nodes[i]->accounting_version();
  }
  // The names of a node set's nodes, in its order (shared by its errors).
  const std::shared_ptr<const std::vector<std::string>>& SetNames(int set);
  // What the resource check reads of a task.
  static void ShapeKey(const PodInfo& task, std::string* key);
  // What the fit-error pass knows of a task whose failures node views answer.
  struct TaskFit {
    const ResourceVectorMap* map = nullptr;
  };
  // task_fit_ filled in for the task when node views answer for it; nullptr otherwise.
  const TaskFit* PrepareTaskFit(const PodInfo& task, const NodeSet& nodes);
  // The view of the node with that name rank when it was built at `version` over `map` as the map
  // is now and can answer; nullptr otherwise.
  // Inline: asked for every node of every check.
  const NodeFitView* CurrentView(int rank, uint64_t version, const ResourceVectorMap& map) const {
    if (rank <= 0 || static_cast<size_t>(rank) >= views_.size()) return nullptr;
    const NodeFitView& view = views_[rank];
    const bool current = view.version == version && view.map == &map && view.map_size == map.size();
    return current && view.usable ? &view : nullptr;
  }
  // NodeInfo::IsTaskAllocatableOnReleasingOrIdle, through the node's view when it is current.
  bool HasRoom(const PodInfo& task, const TaskFit* fit, const NodeInfo& node, int rank,
               uint64_t version) const;
  // NodeInfo::FittingFailuresUnlessAllocatable of the set's i-th node (at `version`), through
  // its view when `fit` is given and the view can answer.
  std::optional<FitFailures> Failures(const PodInfo& task, const TaskFit* fit, const InternedSet& s,
                                      size_t i, uint64_t version);
  // The reasons FittingNode records for failures `f` of the node (nullptr: none), interned.
  const NodeFitErrors::Reasons* NodeErrors(std::optional<FitFailures> f, const NodeInfo& node);
  // The views of every node of the set as dense columns (see Columns), brought up to date; false
  // when some node cannot be read that way (its version is not mirrored, its view is not usable).
  bool RefreshColumns(const InternedSet& s, const ResourceVectorMap& map);
  // Whether a new shape's first pass over the set can read the columns (RefreshColumns done).
  bool ColumnsAnswer(const PodInfo& task, const TaskFit* fit, const InternedSet& s);
  // HasRoom of every node of the set, from the columns, into room_.
  void ColumnRoom(const PodInfo& task, const InternedSet& s);
  // NodeInfo::IsTaskAllocatableOn for a fractional task against `column` (room or Idle as
  // IsTaskAllocatable sees it) of every node of the set, ANDed into `fits`.
  void ColumnFractionFits(const PodInfo& task, const InternedSet& s,
                          const std::vector<double>& column, std::vector<uint8_t>* fits) const;
  // NodeErrors(Failures(...)) of every node of the set, from the columns where they answer.
  void ColumnReasons(const PodInfo& task, const TaskFit* fit, const InternedSet& s,
                     const std::vector<uint64_t>& versions,
                     std::vector<const NodeFitErrors::Reasons*>* reasons);
  // The errors of every node of the set, brought up to date. `columns`: ColumnsAnswer for the
  // task and set when the caller just asked it (a new shape's Check), so the columns are not
  // refreshed twice.
  std::shared_ptr<const NodeFitErrors> ErrorsFor(const std::string& shape_key, const PodInfo& task,
                                                 int set, std::optional<bool> columns);

  // The views' vectors by dimension and name rank ([d * ranks + rank]), for the first pass of a
  // new whole-GPU or CPU-only shape: one dimension at a time over contiguous doubles instead of
  // the fit tests node by node (each new shape meets every node of the cluster once).
  struct Columns {
    const ResourceVectorMap* map = nullptr;
    int dims = 0;
    size_t ranks = 0;
    std::vector<uint64_t> version;  // per rank: the view version the columns hold
    // Per rank: a non-negative GPU memory (else the GPU-memory flag could be set: such nodes take
    // the view path), and whether reservation pods are missing (then a second test on Idle).
    std::vector<uint8_t> plain, missing_reservations;
    std::vector<double> room, allocatable_idle, idle, unused;
    std::vector<double> unused_whole;  // static_cast<int64_t>(unused), as the flags compare it

    // Whether `request`, padded with zeros to `dims` (LessEqualTo's rule for shorter vectors),
    // fits `column` (room, allocatable_idle or idle) at `rank`.
    bool Fits(const std::vector<double>& column, const ResourceVector& request, size_t rank) const {
      for (int d = 0; d < dims; ++d) {
        if (request.Get(d) > column[d * ranks + rank]) return false;
      }
      return true;
    }
  };

  const VersionTable* versions_ = nullptr;
  Columns columns_;
  std::deque<InternedSet> sets_;  // ids first_set_, first_set_ + 1, ...
  int first_set_ = 0;
  int last_set_ = -1;  // the set InternNodeSet returned last
  std::unordered_multimap<uint64_t, int> set_by_hash_;
  std::shared_ptr<ReasonTable> reasons_ = std::make_shared<ReasonTable>();
  // The failures NodeErrors interned last and their list (reasons_ keeps the list alive).
  FitFailures last_failures_;
  const NodeFitErrors::Reasons* last_reasons_ = nullptr;
  std::map<std::string, Shape, std::less<>> shapes_;
  std::vector<uint8_t> room_;       // the last answer's per-node room (Result::room)
  std::vector<NodeFitView> views_;  // by name rank
  TaskFit task_fit_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
  int64_t node_rechecks_ = 0;
  int64_t column_passes_ = 0;
  int64_t log_updates_ = 0;
};

}  // namespace kai::scheduler
