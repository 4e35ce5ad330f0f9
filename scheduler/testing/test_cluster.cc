#include "scheduler/testing/test_cluster.h"

#include <glog/logging.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "scheduler/actions/actions.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler::testing {

namespace {

// The plugins of KAI's built-in configuration, in order (§6.2), and the other known plugins.
const std::vector<PluginOption>& DefaultPlugins() {
  static const auto* plugins =
      new std::vector<PluginOption>{{"predicates", {}},
                                    {"proportion", {}},
                                    {"priority", {}},
                                    {"elastic", {}},
                                    {"kubeflow", {}},
                                    {"ray", {}},
                                    {"nodeavailability", {}},
                                    {"gpusharingorder", {}},
                                    {"gpupack", {}},
                                    {"resourcetype", {}},
                                    {"subgrouporder", {}},
                                    {"taskorder", {}},
                                    {"nominatednode", {}},
                                    {"dynamicresources", {}},
                                    {"nodeplacement", {{"cpu", "binpack"}, {"gpu", "binpack"}}},
                                    {"minruntime", {}},
                                    {"topology", {}},
                                    {"snapshot", {}}};
  return *plugins;
}
constexpr const char* kOtherPlugins[] = {"podaffinity", "gpuspread"};

std::string Q(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  return buf;
}

std::string Time(WallTime t) { return Q(FormatRfc3339(t)); }

std::string Map(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    out += (first ? "" : ",") + Q(k) + ":" + Q(v);
    first = false;
  }
  return out + "}";
}

std::string PriorityClassName(int value) {
  switch (value) {
    case 50:
      return "train";
    case 75:
      return "build-preemptible";
    case 100:
      return "build";
    case 125:
      return "inference";
    default:
      return "prio-" + std::to_string(value);
  }
}

std::string QueueResource(double quota, double limit, double weight) {
  return "{\"quota\":" + Num(quota) + ",\"limit\":" + Num(limit) +
         ",\"overQuotaWeight\":" + Num(weight) + "}";
}

}  // namespace

WallTime TestNow() {
  static const WallTime now = *ParseRfc3339("2025-01-01T12:00:00Z");
  return now;
}

std::string PodName(const std::string& job, int index) { return job + "-" + std::to_string(index); }

JobSpec PendingJob(std::string name, std::string queue, double gpus, int tasks, int priority) {
  JobSpec j;
  j.name = std::move(name);
  j.queue = std::move(queue);
  j.gpus = gpus;
  j.priority = priority;
  j.tasks.assign(tasks, TaskSpec{});
  return j;
}

JobSpec RunningJob(std::string name, std::string queue, double gpus, const std::string& node,
                   int tasks, int priority) {
  JobSpec j = PendingJob(std::move(name), std::move(queue), gpus, tasks, priority);
  for (TaskSpec& t : j.tasks) {
    t.state = TaskState::kRunning;
    t.node = node;
  }
  j.last_start_min = 1;
  return j;
}

JobSpec ReleasingJob(std::string name, std::string queue, double gpus, const std::string& node,
                     int tasks) {
  JobSpec j = RunningJob(std::move(name), std::move(queue), gpus, node, tasks);
  for (TaskSpec& t : j.tasks) t.state = TaskState::kReleasing;
  return j;
}

TestCluster& TestCluster::AddNode(NodeSpec node) {
  nodes_.push_back(std::move(node));
  return *this;
}

TestCluster& TestCluster::AddQueue(QueueSpec queue) {
  queues_.push_back(std::move(queue));
  return *this;
}

TestCluster& TestCluster::AddJob(JobSpec job) {
  jobs_.push_back(std::move(job));
  return *this;
}

TestCluster& TestCluster::SetArg(std::string name, std::string value) {
  args_.emplace_back(std::move(name), std::move(value));
  return *this;
}

TestCluster& TestCluster::SetPlugins(std::vector<PluginOption> plugins) {
  plugins_ = std::move(plugins);
  return *this;
}

std::vector<std::string> TestCluster::RenderObjects() const {
  std::vector<std::string> objs;
  const WallTime now = TestNow();

  // Scheduler settings, as the scenario harness pins them (FORMAT.md "Scheduler settings").
  {
    std::map<std::string, std::string> args{{"max-consolidation-preemptees", "-1"},
                                            {"allow-consolidating-reclaim", "true"},
                                            {"default-staleness-grace-period", "0s"}};
    for (const auto& [k, v] : args_) args[k] = v;
    const std::vector<PluginOption>& plugins = plugins_ ? *plugins_ : DefaultPlugins();
    std::string p = "{";
    int prio = 100 * (static_cast<int>(plugins.size()) + 1);
    std::set<std::string> listed;
    for (const PluginOption& opt : plugins) {
      listed.insert(opt.name);
      p += (p.size() > 1 ? "," : "") + Q(opt.name) +
           ":{\"enabled\":true,\"priority\":" + std::to_string(prio) +
           (opt.arguments.empty() ? "" : ",\"arguments\":" + Map(opt.arguments)) + "}";
      prio -= 100;
    }
    std::vector<std::string> all;
    for (const auto& d : DefaultPlugins()) all.push_back(d.name);
    for (const char* o : kOtherPlugins) all.push_back(o);
    for (const auto& name : all) {
      if (listed.count(name) == 0) p += "," + Q(name) + ":{\"enabled\":false}";
    }
    p += "}";
    std::string extra;
    for (const auto& [key, json] : shard_spec_) extra += "," + Q(key) + ":" + json;
    objs.push_back(
        "{\"apiVersion\":\"kai.scheduler/v1\",\"kind\":\"SchedulingShard\",\"metadata\":{\"name\":"
        "\"default\"},\"spec\":{\"args\":" +
        Map(args) + ",\"plugins\":" + p + extra + "}}");
  }

  for (const auto& [name, levels] : topologies_) {
    std::string lv;
    for (const auto& l : levels)
      lv += (lv.empty() ? "" : ",") + std::string("{\"nodeLabel\":") + Q(l) + "}";
    objs.push_back(
        "{\"apiVersion\":\"kai.scheduler/v1alpha1\",\"kind\":\"Topology\",\"metadata\":{"
        "\"name\":" +
        Q(name) + "},\"spec\":{\"levels\":[" + lv + "]}}");
  }

  std::set<int> priorities;
  for (const JobSpec& j : jobs_) priorities.insert(j.priority);
  for (int v : priorities) {
    objs.push_back(
        "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{"
        "\"name\":" +
        Q(PriorityClassName(v)) + "},\"value\":" + std::to_string(v) + "}");
  }

  for (const QueueSpec& q : queues_) {
    WallTime created = now - std::chrono::hours(24) + std::chrono::minutes(q.creation_offset_min);
    std::string spec = "{\"displayName\":" + Q(q.name);
    if (!q.parent.empty()) spec += ",\"parentQueue\":" + Q(q.parent);
    if (q.priority) spec += ",\"priority\":" + std::to_string(*q.priority);
    if (!q.preempt_min_runtime.empty())
      spec += ",\"preemptMinRuntime\":" + Q(q.preempt_min_runtime);
    if (!q.reclaim_min_runtime.empty())
      spec += ",\"reclaimMinRuntime\":" + Q(q.reclaim_min_runtime);
    spec += ",\"resources\":{\"gpu\":" + QueueResource(q.gpu_quota, q.gpu_limit, q.gpu_weight) +
            ",\"cpu\":" + QueueResource(q.cpu_quota, q.cpu_limit, q.cpu_weight) +
            ",\"memory\":" + QueueResource(q.mem_quota, q.mem_limit, q.mem_weight) + "}}";
    objs.push_back(
        "{\"apiVersion\":\"scheduling.run.ai/v2\",\"kind\":\"Queue\",\"metadata\":{\"name\":" +
        Q(q.name) + ",\"creationTimestamp\":" + Time(created) + "},\"spec\":" + spec + "}");
  }

  for (const NodeSpec& n : nodes_) {
    std::map<std::string, std::string> labels{
        {"nvidia.com/gpu.count", Num(n.gpus)},
        {"node-role.kubernetes.io/mig-enabled",
         !n.mig_strategy.empty() || !n.mig.empty() ? "true" : "false"},
        {"kai.scheduler/type", n.name}};
    if (n.gpu_memory_mib) labels["nvidia.com/gpu.memory"] = std::to_string(*n.gpu_memory_mib);
    if (!n.mig_strategy.empty()) labels["nvidia.com/mig.strategy"] = n.mig_strategy;
    for (const auto& [k, v] : n.labels) labels[k] = v;
    std::map<std::string, std::string> resources{
        {"cpu", n.cpu},
        {"memory", n.memory},
        {"pods", std::to_string(n.pods)},
        {"nvidia.com/gpu", n.mig_strategy == "mixed" ? "0" : Num(n.gpus)}};
    for (const auto& [profile, count] : n.mig) {
      resources["nvidia.com/mig-" + profile] = std::to_string(count);
    }
    std::string spec = "{";
    if (n.unschedulable) spec += "\"unschedulable\":true";
    if (!n.no_schedule_taints.empty()) {
      spec += std::string(spec.size() > 1 ? "," : "") + "\"taints\":[";
      for (size_t i = 0; i < n.no_schedule_taints.size(); ++i) {
        spec += (i ? "," : "") + std::string("{\"key\":") + Q(n.no_schedule_taints[i].first) +
                ",\"value\":" + Q(n.no_schedule_taints[i].second) + ",\"effect\":\"NoSchedule\"}";
      }
      spec += "]";
    }
    spec += "}";
    objs.push_back(
        "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":" + Q(n.name) +
        ",\"labels\":" + Map(labels) + "},\"spec\":" + spec +
        ",\"status\":{\"capacity\":" + Map(resources) + ",\"allocatable\":" + Map(resources) +
        ",\"conditions\":[{\"type\":\"Ready\",\"status\":" + Q(n.not_ready ? "False" : "True") +
        "}]}}");
  }

  std::set<std::pair<std::string, std::string>> reserved;  // (node, group)
  for (size_t ji = 0; ji < jobs_.size(); ++ji) {
    const JobSpec& j = jobs_[ji];
    WallTime created = j.age_min > 0 ? now - std::chrono::minutes(j.age_min)
                                     : now - std::chrono::minutes(jobs_.size() - ji);
    std::map<std::string, std::string> pg_ann;
    if (j.last_start_min) {
      pg_ann["kai.scheduler/last-start-timestamp"] =
          FormatRfc3339(now - std::chrono::minutes(*j.last_start_min));
    }
    if (j.stale_sec) {
      pg_ann["kai.scheduler/stale-podgroup-timestamp"] =
          FormatRfc3339(now - std::chrono::seconds(*j.stale_sec));
    }
    std::string spec =
        "{\"queue\":" + Q(j.queue) + ",\"priorityClassName\":" + Q(PriorityClassName(j.priority));
    if (!j.subgroups.empty()) {
      int min = 0;
      spec += ",\"subGroups\":[";
      for (size_t i = 0; i < j.subgroups.size(); ++i) {
        const auto& sg = j.subgroups[i];
        spec += (i ? "," : "") + std::string("{\"name\":") + Q(sg.name);
        if (!sg.parent.empty()) spec += ",\"parent\":" + Q(sg.parent);
        if (sg.min_member) {
          spec += ",\"minMember\":" + std::to_string(*sg.min_member);
          min += *sg.min_member;
        }
        spec += "}";
      }
      spec += "],\"minMember\":" + std::to_string(j.min_member.value_or(min));
    } else {
      spec += ",\"minMember\":" +
              std::to_string(j.min_member.value_or(static_cast<int>(j.tasks.size())));
    }
    if (!j.preemptibility.empty()) spec += ",\"preemptibility\":" + Q(j.preemptibility);
    if (j.topology) {
      spec += ",\"topologyConstraint\":{\"topology\":" + Q((*j.topology)[0]);
      if (!(*j.topology)[1].empty()) spec += ",\"requiredTopologyLevel\":" + Q((*j.topology)[1]);
      if (!(*j.topology)[2].empty()) spec += ",\"preferredTopologyLevel\":" + Q((*j.topology)[2]);
      spec += "}";
    }
    if (j.scheduling_backoff) {
      spec += ",\"schedulingBackoff\":" + std::to_string(*j.scheduling_backoff);
    }
    if (j.mark_unschedulable) {
      spec += std::string(",\"markUnschedulable\":") + (*j.mark_unschedulable ? "true" : "false");
    }
    spec += "}";
    objs.push_back(
        "{\"apiVersion\":\"scheduling.run.ai/v2alpha2\",\"kind\":\"PodGroup\",\"metadata\":{"
        "\"name\":" +
        Q(j.name) + ",\"namespace\":" + Q(j.ns) + ",\"creationTimestamp\":" + Time(created) +
        ",\"labels\":" + Map(j.podgroup_labels) + ",\"annotations\":" + Map(pg_ann) +
        "},\"spec\":" + spec +
        (j.condition_node_pool.empty()
             ? std::string()
             : ",\"status\":{\"schedulingConditions\":[{\"type\":\"UnschedulableOnNodePool\","
               "\"nodePool\":" +
                   Q(j.condition_node_pool) +
                   ",\"reason\":\"Unschedulable\",\"status\":\"True\",\"transitionID\":"
                   "\"1\"}]}") +
        "}");

    const bool fractional = (j.gpus > 0 && j.gpus < 1) || j.gpu_memory_mib > 0;
    for (size_t ti = 0; ti < j.tasks.size(); ++ti) {
      const TaskSpec& t = j.tasks[ti];
      const std::string pod = PodName(j.name, static_cast<int>(ti));
      std::map<std::string, std::string> labels{{"kai.scheduler/queue", j.queue}};
      if (!t.subgroup.empty()) labels["kai.scheduler/subgroup-name"] = t.subgroup;
      if (t.task_priority) labels["kai.scheduler/task-priority"] = std::to_string(*t.task_priority);
      for (const auto& [k, v] : t.labels) labels[k] = v;
      const bool holds = t.state == TaskState::kRunning || t.state == TaskState::kReleasing;
      if (holds && fractional) {
        std::vector<std::string> groups = t.gpu_groups;
        if (groups.empty()) groups.push_back(pod + "-gpu-group");
        for (const auto& g : groups) reserved.insert({t.node, g});
        if (groups.size() == 1) {
          labels["runai-gpu-group"] = groups[0];
        } else {
          for (const auto& g : groups) labels["runai-gpu-group/" + g] = g;
        }
      }
      std::map<std::string, std::string> ann{{"pod-group-name", j.name}};
      if (j.gpu_memory_mib > 0) {
        ann["gpu-memory"] = std::to_string(j.gpu_memory_mib);
      } else if (fractional) {
        ann["gpu-fraction"] = Num(j.gpus);
      }
      if (j.num_devices > 0) ann["gpu-fraction-num-devices"] = std::to_string(j.num_devices);
      if (holds) {
        ann["received-resource-type"] =
            !j.mig.empty() ? "MigInstance" : (fractional ? "Fraction" : "Regular");
      }
      std::map<std::string, std::string> requests, limits;
      if (!j.cpu.empty()) requests["cpu"] = j.cpu;
      if (!j.memory.empty()) requests["memory"] = j.memory;
      if (j.gpus >= 1) {
        requests["nvidia.com/gpu"] = Num(j.gpus);
        limits["nvidia.com/gpu"] = Num(j.gpus);
      }
      for (const auto& [profile, count] : j.mig) {
        requests["nvidia.com/mig-" + profile] = std::to_string(count);
        limits["nvidia.com/mig-" + profile] = std::to_string(count);
      }
      std::string meta = "{\"name\":" + Q(pod) + ",\"namespace\":" + Q(j.ns) +
                         ",\"creationTimestamp\":" + Time(created) + ",\"labels\":" + Map(labels) +
                         ",\"annotations\":" + Map(ann);
      if (t.state == TaskState::kReleasing) meta += ",\"deletionTimestamp\":" + Time(now);
      meta += "}";
      std::string pspec = "{\"schedulerName\":\"kai-scheduler\"";
      if (holds || t.state == TaskState::kSucceeded) pspec += ",\"nodeName\":" + Q(t.node);
      if (t.state == TaskState::kGated) pspec += ",\"schedulingGates\":[{\"name\":\"gate\"}]";
      if (!j.node_affinity.empty()) {
        std::string values;
        for (const auto& n : j.node_affinity) values += (values.empty() ? "" : ",") + Q(n);
        pspec +=
            ",\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
            "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"kai.scheduler/type\","
            "\"operator\":\"In\",\"values\":[" +
            values + "]}]}]}}}";
      }
      pspec +=
          ",\"containers\":[{\"name\":\"main\",\"image\":\"busybox\",\"resources\":{"
          "\"requests\":" +
          Map(requests) + ",\"limits\":" + Map(limits) + "}}]}";
      std::string phase = t.state == TaskState::kSucceeded ? "Succeeded"
                          : t.state == TaskState::kRunning || t.state == TaskState::kReleasing
                              ? "Running"
                              : "Pending";
      std::string status = "{\"phase\":\"" + phase + "\"";
      if (!t.nominated_node.empty()) status += ",\"nominatedNodeName\":" + Q(t.nominated_node);
      status += "}";
      objs.push_back(StrCat("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":", meta,
                            ",\"spec\":", pspec, ",\"status\":", status, "}"));
      if (t.state == TaskState::kBinding) {
        std::string groups;
        for (const auto& g : t.gpu_groups) groups += (groups.empty() ? "" : ",") + Q(g);
        objs.push_back(
            "{\"apiVersion\":\"scheduling.run.ai/v1alpha2\",\"kind\":\"BindRequest\","
            "\"metadata\":{\"name\":" +
            Q(pod) + ",\"namespace\":" + Q(j.ns) + "},\"spec\":{\"podName\":" + Q(pod) +
            ",\"selectedNode\":" + Q(t.node) + ",\"receivedResourceType\":" +
            Q(fractional ? "Fraction" : "Regular") + ",\"selectedGPUGroups\":[" + groups + "]}}");
      }
    }
  }
  if (reservation_pods_) {
    for (const auto& [node, group] : reserved) {
      objs.push_back(
          "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":" +
          Q(StrCat("gpu-reservation-", node, "-", group)) +
          ",\"namespace\":\"kai-resource-reservation\",\"creationTimestamp\":" +
          Time(now - std::chrono::hours(1)) +
          ",\"labels\":{\"app\":\"kai-resource-reservation\",\"runai-gpu-group\":" + Q(group) +
          "}},\"spec\":{\"schedulerName\":\"kai-scheduler\",\"nodeName\":" + Q(node) +
          ",\"containers\":[{\"name\":\"main\",\"image\":\"busybox\",\"resources\":{"
          "\"limits\":{\"nvidia.com/gpu\":\"1\"},\"requests\":{\"nvidia.com/gpu\":\"1\"}}}]},"
          "\"status\":{\"phase\":\"Running\"}}");
    }
  }
  return objs;
}

size_t TestCluster::NumObjects() const { return RenderObjects().size(); }

std::string TestCluster::ToJson(const std::vector<size_t>& order) const {
  std::vector<std::string> objs = RenderObjects();
  std::string out = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
  for (size_t i = 0; i < objs.size(); ++i) {
    size_t idx = order.empty() ? i : order[i];
    out += (i ? ",\n" : "\n") + objs[idx];
  }
  return out + "]}\n";
}

TestSession::TestSession(const TestCluster& cluster, const std::vector<size_t>& order,
                         uint64_t seed)
    : random_(seed) {
  clock_.SetNow(TestNow());
  auto objects = LoadObjects(cluster.ToJson(order));
  CHECK(objects.ok()) << objects.status();
  conf_ = DefaultSchedulerConfiguration();
  SchedulerParams params;
  CHECK(!objects->shards.empty());
  Status s = ConfigFromSchedulingShard(*objects->shards.front(), &conf_, &params);
  CHECK(s.ok()) << s;
  ClusterModel model;
  model.AddAll(*objects);
  std::vector<std::string> warnings;
  auto snapshot = model.Snapshot(params, &warnings);
  ssn_ = std::make_unique<Session>("test", std::move(snapshot), conf_, params, &sink_, &clock_,
                                   &random_);
  static const PluginRegistry* const registry = [] {
    auto* r = new PluginRegistry();
    RegisterDefaultPlugins(r);
    return r;
  }();
  ssn_->Open(*registry);
}

TestSession::~TestSession() { ssn_->Close(); }

void TestSession::Run(const std::vector<std::string>& actions) {
  ActionRegistry registry;
  RegisterDefaultActions(&registry);
  for (const auto& name : actions) {
    const ActionRegistry::Builder* b = registry.Find(name);
    CHECK(b != nullptr) << "unknown action " << name;
    (*b)()->Execute(ssn_.get());
  }
}

void TestSession::RunAll() { Run(conf_.actions); }

PodInfo* TestSession::Task(const std::string& pod_name, const std::string& ns) {
  return cluster().FindTask(ns + "/" + pod_name);
}

PodGroupInfo* TestSession::Job(const std::string& name, const std::string& ns) {
  return cluster().FindJob(ns + "/" + name);
}

NodeInfo* TestSession::Node(const std::string& name) { return cluster().FindNode(name); }

const QueueInfo* TestSession::Queue(const std::string& name) { return cluster().FindQueue(name); }

namespace {

std::string Vec(const ResourceVector& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.values().size(); ++i) out += (i ? "," : "") + Num(v.values()[i]);
  return out + "]";
}

// Zero entries of the shared-GPU maps are equivalent to absent ones (every reader treats a
// missing group as 0), so they are left out.
template <typename M>
std::string Ints(const M& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) {
    if (v != 0) out += k + ":" + std::to_string(v) + ",";
  }
  return out + "}";
}

}  // namespace

std::string ModelFingerprint(const Session& ssn) {
  const ClusterInfo& c = ssn.cluster();
  std::string out;
  for (const auto& [name, n] : c.nodes) {
    out += "node " + name + " idle=" + Vec(n->idle) + " used=" + Vec(n->used) +
           " releasing=" + Vec(n->releasing) + " usedShared=" + Ints(n->used_shared_gpus_memory) +
           " relShared=" + Ints(n->releasing_shared_gpus_memory) +
           " allocShared=" + Ints(n->allocated_shared_gpus_memory) + " relSet=";
    for (const auto& g : n->releasing_shared_gpus) out += g + ",";
    out += "\n";
    for (const auto& [key, e] : n->tasks()) {
      out += "  " + key + " " + std::string(PodStatusName(e.status)) +
             (e.is_virtual_status ? " v" : "") + " tracked=" + Vec(e.tracked) +
             " mem=" + std::to_string(e.gpu_memory) + " groups=";
      for (const auto& g : e.groups) out += g + ",";
      out += "\n";
    }
  }
  for (const auto& t : c.tasks) {
    out += "task " + t->key() + " " + std::string(PodStatusName(t->status)) +
           " node=" + t->node_name + (t->is_virtual_status ? " v" : "") +
           " recv=" + std::string(ReceivedTypeName(t->received_type)) +
           " accepted=" + Vec(t->accepted) + " groups=";
    for (const auto& g : t->gpu_groups) out += g + ",";
    out += "\n";
  }
  for (const auto& [name, q] : c.queues) {
    if (auto a = ssn.QueueAllocated(*q)) {
      out += "queue " + name + " allocated=";
      // Rounded: adding and subtracting fractions leaves float residues (1e-16) as in KAI.
      for (const auto& [r, v] : a->ToMap())
        out += r + ":" + Num(std::round(v * 1e6) / 1e6 + 0.0) + ",";
      out += "\n";
    }
  }
  return out;
}

}  // namespace kai::scheduler::testing
