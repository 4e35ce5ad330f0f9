// Test-only builder of small snapshots and sessions for the scheduler's unit and property tests.
//
// A TestCluster describes nodes, queues, priority classes and jobs with the vocabulary of KAI's
// test fixtures (GPUs per task, priority, queue, task state) and renders them as the Kubernetes
// objects `kai-scheduler simulate` reads (test/scenarios/FORMAT.md conventions), so the tests go
// through the same loader and snapshot code as production. A TestSession opens a real Session
// over that snapshot with a FakeClock, a seeded Random and a recording DecisionSink.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kube/base/fake_clock.h"
#include "kube/base/random.h"
#include "kube/base/statusor.h"
#include "scheduler/cache/cluster_model.h"
#include "scheduler/framework/session.h"

namespace kai::scheduler::testing {

// Fixed "now" of every test cluster (2025-01-01T12:00:00Z).
WallTime TestNow();

struct NodeSpec {
  std::string name;
  double gpus = 0;
  std::string cpu = "20";      // quantity
  std::string memory = "20G";  // quantity
  int pods = 110;
  std::optional<int64_t> gpu_memory_mib = 100;  // nvidia.com/gpu.memory label; nullopt = none
  std::string mig_strategy;                     // "", "single", "mixed"
  std::map<std::string, int> mig;               // profile ("1g.10gb") -> count
  std::map<std::string, std::string> labels;
  bool unschedulable = false;
  bool not_ready = false;
  std::vector<std::pair<std::string, std::string>> no_schedule_taints;  // key, value
};

struct QueueSpec {
  std::string name;
  std::string parent;  // "" = top level
  double gpu_quota = -1, gpu_limit = -1, gpu_weight = 1;
  double cpu_quota = -1, cpu_limit = -1, cpu_weight = 1;  // millicores
  double mem_quota = -1, mem_limit = -1, mem_weight = 1;  // MB
  std::optional<int> priority;
  std::string preempt_min_runtime, reclaim_min_runtime;  // Go durations, "" = unset
  int creation_offset_min = 0;                           // created at TestNow() - 1 day + offset
};

enum class TaskState { kPending, kRunning, kReleasing, kSucceeded, kGated, kBinding };

struct TaskSpec {
  TaskState state = TaskState::kPending;
  std::string node;                     // Running / Releasing / Succeeded / Binding
  std::vector<std::string> gpu_groups;  // shared GPU groups of a running fractional pod
  std::string subgroup;
  std::optional<int> task_priority;
  std::map<std::string, std::string> labels;
  std::string nominated_node;  // status.nominatedNodeName
};

struct JobSpec {
  std::string name;
  std::string ns = "default";
  std::string queue;
  int priority = 50;  // PriorityClass value (train=50, build-preemptible=75, build=100, ...)
  std::string preemptibility;
  double gpus = 0;                 // per task: whole (>= 1) or fraction (< 1)
  int64_t gpu_memory_mib = 0;      // per task, gpu-memory annotation
  int64_t num_devices = 0;         // gpu-fraction-num-devices
  std::map<std::string, int> mig;  // per task
  std::string cpu = "1";           // per task quantity ("" = none)
  std::string memory = "1G";       // per task quantity ("" = none)
  std::optional<int> min_member;   // default: number of tasks
  struct SubGroup {
    std::string name, parent;
    std::optional<int> min_member;  // leaves need it
  };
  std::vector<SubGroup> subgroups;
  std::vector<TaskSpec> tasks;
  int age_min = 0;  // created TestNow() - age; 0 = by order of AddJob (older first)
  std::optional<int> last_start_min;       // last-start-timestamp annotation, minutes ago
  std::optional<int> stale_sec;            // stale-podgroup-timestamp annotation, seconds ago
  std::vector<std::string> node_affinity;  // kai.scheduler/type In [...]
  // spec.topologyConstraint: topology, required level, preferred level.
  std::optional<std::array<std::string, 3>> topology;
  std::optional<int> scheduling_backoff;
  std::optional<bool> mark_unschedulable;
  // status.schedulingConditions: one UnschedulableOnNodePool condition for this node pool.
  std::string condition_node_pool;
  std::map<std::string, std::string> podgroup_labels;
};

// Convenience constructors.
JobSpec PendingJob(std::string name, std::string queue, double gpus, int tasks = 1,
                   int priority = 50);
JobSpec RunningJob(std::string name, std::string queue, double gpus, const std::string& node,
                   int tasks = 1, int priority = 50);
// A running job whose pods are all Releasing on `node` (evicted, not gone yet).
JobSpec ReleasingJob(std::string name, std::string queue, double gpus, const std::string& node,
                     int tasks = 1);

class TestCluster {
 public:
  TestCluster& AddNode(NodeSpec node);
  TestCluster& AddQueue(QueueSpec queue);
  TestCluster& AddJob(JobSpec job);
  // A Topology object (kai.scheduler/v1alpha1) with node label keys from the highest level down.
  TestCluster& AddTopology(std::string name, std::vector<std::string> levels) {
    topologies_.emplace_back(std::move(name), std::move(levels));
    return *this;
  }
  // Shard args (scheduler flags), e.g. {"max-consolidation-preemptees", "-1"}.
  TestCluster& SetArg(std::string name, std::string value);
  // Adds a member to the SchedulingShard's spec, as JSON (e.g. "scenarioSearchBudgets").
  TestCluster& SetShardSpec(std::string key, std::string json) {
    shard_spec_.emplace_back(std::move(key), std::move(json));
    return *this;
  }
  // Replaces the plugin list (default: KAI's built-in tiers); arguments per plugin.
  TestCluster& SetPlugins(std::vector<PluginOption> plugins);
  // Renders the binder's reservation pod (namespace kai-resource-reservation, one per node and
  // GPU group) for every shared GPU group held by running or releasing pods.
  TestCluster& SetReservationPods(bool on) {
    reservation_pods_ = on;
    return *this;
  }

  const std::vector<JobSpec>& jobs() const { return jobs_; }
  const std::vector<NodeSpec>& nodes() const { return nodes_; }

  // The snapshot as a JSON List of Kubernetes objects. `order` permutes the objects (property
  // tests check that the result does not depend on it); empty = natural order.
  std::string ToJson(const std::vector<size_t>& order = {}) const;
  // Number of objects ToJson renders.
  size_t NumObjects() const;

  const SchedulerConfiguration& configuration() const { return conf_; }
  const SchedulerParams& params() const { return params_; }

 private:
  std::vector<std::string> RenderObjects() const;

  std::vector<NodeSpec> nodes_;
  std::vector<QueueSpec> queues_;
  std::vector<JobSpec> jobs_;
  std::vector<std::pair<std::string, std::vector<std::string>>> topologies_;
  std::vector<std::pair<std::string, std::string>> args_;
  std::vector<std::pair<std::string, std::string>> shard_spec_;
  std::optional<std::vector<PluginOption>> plugins_;
  bool reservation_pods_ = false;
  SchedulerConfiguration conf_ = DefaultSchedulerConfiguration();
  SchedulerParams params_;
};

// A DecisionSink that records every decision.
class RecordingSink : public DecisionSink {
 public:
  Status Bind(const BindDecision& d) override {
    if (fail_binds.count(d.pod_key) > 0) {
      log.push_back("bind failed " + d.pod_key);
      return UnavailableError("bind of " + d.pod_key + " fails in this test");
    }
    binds.push_back(d);
    log.push_back("bind " + d.pod_key + " " + d.node);
    return Status::OK();
  }
  Status Evict(const EvictDecision& d) override {
    if (fail_evictions.count(d.pod_key) > 0) {
      log.push_back("evict failed " + d.pod_key);
      return UnavailableError("eviction of " + d.pod_key + " fails in this test");
    }
    evictions.push_back(d);
    log.push_back("evict " + d.pod_key + " (" + d.metadata.action + ")");
    return Status::OK();
  }
  void Pipelined(const PipelineDecision& d) override {
    pipelined.push_back(d);
    log.push_back("pipeline " + d.pod_key + " " + d.node);
  }

  // Pods (namespace/name) whose Bind fails, as a BindRequest creation the API server refuses.
  std::set<std::string> fail_binds;
  // Pods whose eviction (DELETE) fails.
  std::set<std::string> fail_evictions;
  std::vector<BindDecision> binds;
  std::vector<EvictDecision> evictions;
  std::vector<PipelineDecision> pipelined;
  // Every decision in commit order.
  std::vector<std::string> log;
};

// A session over a TestCluster's snapshot.
class TestSession {
 public:
  // Loads the cluster (objects in `order`, see ToJson), builds the snapshot and opens a session
  // with the cluster's plugins. CHECK-fails on a malformed cluster (a test bug).
  explicit TestSession(const TestCluster& cluster, const std::vector<size_t>& order = {},
                       uint64_t seed = 1);
  ~TestSession();

  Session& ssn() { return *ssn_; }
  ClusterInfo& cluster() { return ssn_->cluster(); }
  RecordingSink& sink() { return sink_; }
  FakeClock& clock() { return clock_; }

  // Runs actions by name ("allocate", ...), in order.
  void Run(const std::vector<std::string>& actions);
  // The default actions of the configuration.
  void RunAll();

  PodInfo* Task(const std::string& pod_name, const std::string& ns = "default");
  PodGroupInfo* Job(const std::string& name, const std::string& ns = "default");
  NodeInfo* Node(const std::string& name);
  const QueueInfo* Queue(const std::string& name);

 private:
  FakeClock clock_;
  SeededRandom random_;
  RecordingSink sink_;
  std::unique_ptr<Session> ssn_;
  SchedulerConfiguration conf_;
};

// Pod name of the i-th task of a job ("<job>-<i>").
std::string PodName(const std::string& job, int index);

}  // namespace kai::scheduler::testing

namespace kai::scheduler::testing {

// A textual fingerprint of everything a statement may change: every node's accounting (idle,
// used, releasing, shared-GPU maps, hosted tasks), every task's scheduling state, and the
// proportion plugin's per-queue allocation. Two equal fingerprints mean "no trace left".
std::string ModelFingerprint(const Session& ssn);

}  // namespace kai::scheduler::testing
