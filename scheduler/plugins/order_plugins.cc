// Job, task and PodSet order plugins: priority, elastic, kubeflow, ray, taskorder,
// subgrouporder (reference §7.1, §8).
#include <charconv>
#include <optional>
#include <string>
#include <string_view>

#include "api/well_known.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler {

namespace {

// priority: higher PodGroup priority first.
class PriorityPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "priority"; }
  void OnSessionOpen(Session* ssn) override {
    // Higher priority first.
    ssn->AddJobOrderRankFn(
        [](const PodGroupInfo& job) { return -static_cast<int64_t>(job.priority()); });
  }
};

// elastic: jobs below their minimum in some PodSet first, then jobs exactly at their minimum,
// then jobs above it.
int ElasticClass(const PodGroupInfo& job) {
  bool above = false;
  for (const auto& [name, ps] : job.pod_sets()) {
    int active = ps->NumActiveAllocated();
    if (active < ps->min_available()) return 0;
    if (active > ps->min_available()) above = true;
  }
  return above ? 2 : 1;
}

class ElasticPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "elastic"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddJobOrderRankFn(
        [](const PodGroupInfo& job) { return static_cast<int64_t>(ElasticClass(job)); });
  }
};

// The value of label `key`, or empty. Keys are std::strings made once: a label key built per
// lookup is a heap allocation each time.
std::string_view LabelOf(const PodInfo& t, const std::string& key) {
  const auto& labels = t.pod().metadata.labels;
  auto it = labels.find(key);
  return it == labels.end() ? std::string_view() : std::string_view(it->second);
}

// Task orders are ranks, lower first (Session::AddTaskOrderRankFn): a sort reads each task's
// labels once instead of twice per comparison.

// kubeflow: master / launcher pods first.
int64_t KubeflowLeaderRank(const PodInfo& t) {
  static const std::string* const key = new std::string(api::kKubeflowJobRoleLabel);
  const std::string_view role = LabelOf(t, *key);
  return role == "master" || role == "launcher" ? 0 : 1;
}

class KubeflowPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "kubeflow"; }
  void OnSessionOpen(Session* ssn) override { ssn->AddTaskOrderRankFn(&KubeflowLeaderRank); }
};

// ray: head pods first.
int64_t RayHeadRank(const PodInfo& t) {
  static const std::string* const key = new std::string(api::kRayNodeTypeLabel);
  return LabelOf(t, *key) == "head" ? 0 : 1;
}

class RayPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "ray"; }
  void OnSessionOpen(Session* ssn) override { ssn->AddTaskOrderRankFn(&RayHeadRank); }
};

// taskorder: kai.scheduler/task-priority, higher first; missing or unparsable values last. Two
// ranks: whether the value is missing, then the value reversed (~p orders p descending without
// the overflow of -p).
std::optional<int64_t> TaskPriority(const PodInfo& t) {
  static const std::string* const key = new std::string(api::kTaskPriorityLabel);
  const std::string_view v = LabelOf(t, *key);
  int64_t p = 0;
  if (v.empty()) return std::nullopt;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), p);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  return p;
}

int64_t TaskPriorityMissingRank(const PodInfo& t) { return TaskPriority(t) ? 0 : 1; }

int64_t TaskPriorityRank(const PodInfo& t) {
  const std::optional<int64_t> p = TaskPriority(t);
  return p ? ~*p : 0;
}

class TaskOrderPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "taskorder"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddTaskOrderRankFn(&TaskPriorityMissingRank);
    ssn->AddTaskOrderRankFn(&TaskPriorityRank);
  }
};

// subgrouporder: PodSets below their minimum first, then the lower allocation ratio first.
class SubGroupOrderPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "subgrouporder"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddSubGroupOrderFn([](const PodSet& l, const PodSet& r) {
      int la = l.NumActiveAllocated(), ra = r.NumActiveAllocated();
      bool lsat = la >= l.min_available(), rsat = ra >= r.min_available();
      if (!lsat && rsat) return -1;
      if (lsat && !rsat) return 1;
      double lr = l.min_available() > 0 ? static_cast<double>(la) / l.min_available() : 0;
      double rr = r.min_available() > 0 ? static_cast<double>(ra) / r.min_available() : 0;
      if (lr < rr) return -1;
      if (lr > rr) return 1;
      return 0;
    });
  }
};

}  // namespace

std::unique_ptr<Plugin> NewPriorityPlugin(const PluginArguments&) {
  return std::make_unique<PriorityPlugin>();
}
std::unique_ptr<Plugin> NewElasticPlugin(const PluginArguments&) {
  return std::make_unique<ElasticPlugin>();
}
std::unique_ptr<Plugin> NewKubeflowPlugin(const PluginArguments&) {
  return std::make_unique<KubeflowPlugin>();
}
std::unique_ptr<Plugin> NewRayPlugin(const PluginArguments&) {
  return std::make_unique<RayPlugin>();
}
std::unique_ptr<Plugin> NewTaskOrderPlugin(const PluginArguments&) {
  return std::make_unique<TaskOrderPlugin>();
}
std::unique_ptr<Plugin> NewSubGroupOrderPlugin(const PluginArguments&) {
  return std::make_unique<SubGroupOrderPlugin>();
}

}  // namespace kai::scheduler
