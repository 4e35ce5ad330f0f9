// Job, task and PodSet order plugins: priority, elastic, kubeflow, ray, taskorder,
// subgrouporder (reference §7.1, §8).
#include <charconv>

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

// `key` as a std::string made once by the caller: task orders compare pairs of tasks thousands of
// times per job, and a label key built per lookup is a heap allocation each time.
std::string_view LabelOf(const PodInfo& t, const std::string& key) {
  const auto& labels = t.pod().metadata.labels;
  auto it = labels.find(key);
  return it == labels.end() ? std::string_view() : std::string_view(it->second);
}

int PreferFirst(bool l, bool r) {
  if (l && !r) return -1;
  if (!l && r) return 1;
  return 0;
}

// kubeflow: master / launcher pods first.
class KubeflowPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "kubeflow"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddTaskOrderFn(
        [key = std::string(api::kKubeflowJobRoleLabel)](const PodInfo& l, const PodInfo& r) {
          auto leader = [&key](const PodInfo& t) {
            std::string_view role = LabelOf(t, key);
            return role == "master" || role == "launcher";
          };
          return PreferFirst(leader(l), leader(r));
        });
  }
};

// ray: head pods first.
class RayPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "ray"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddTaskOrderFn(
        [key = std::string(api::kRayNodeTypeLabel)](const PodInfo& l, const PodInfo& r) {
          return PreferFirst(LabelOf(l, key) == "head", LabelOf(r, key) == "head");
        });
  }
};

// taskorder: kai.scheduler/task-priority, higher first; missing or unparsable values last.
class TaskOrderPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "taskorder"; }
  void OnSessionOpen(Session* ssn) override {
    ssn->AddTaskOrderFn(
        [key = std::string(api::kTaskPriorityLabel)](const PodInfo& l, const PodInfo& r) {
          auto parse = [&key](const PodInfo& t, int64_t* out) {
            std::string_view v = LabelOf(t, key);
            if (v.empty()) return false;
            auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
            return ec == std::errc() && ptr == v.data() + v.size();
          };
          int64_t lp = 0, rp = 0;
          bool lok = parse(l, &lp), rok = parse(r, &rp);
          if (!lok && !rok) return 0;
          if (!lok) return 1;
          if (!rok) return -1;
          if (lp > rp) return -1;
          if (lp < rp) return 1;
          return 0;
        });
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
