#include "scheduler/bench/synthetic_cluster.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "api/codec.h"
#include "api/well_known.h"
#include "kube/base/time.h"

namespace kai::scheduler::bench {

namespace {

constexpr int kPlacementProbe = 64;  // nodes tried per pod while filling the running phase
constexpr int64_t kGpuMemoryMib = 81920;

struct PriorityClassDef {
  const char* name;
  int32_t value;
  double share;
};
// KAI's Helm priority classes (reference §4.1); train and build-preemptible are preemptible.
constexpr PriorityClassDef kPriorityClasses[] = {{"train", 50, 0.70},
                                                 {"build-preemptible", 75, 0.10},
                                                 {"build", 100, 0.10},
                                                 {"inference", 125, 0.10}};

enum class JobKind { kWholeGpu, kFraction, kCpuOnly };

struct PodShape {
  JobKind kind = JobKind::kCpuOnly;
  int gpus = 0;           // whole GPUs
  double fraction = 0;    // per pod, kFraction
  int64_t cpu_milli = 0;  // requests
  int64_t memory = 0;
};

struct SharedGroup {
  std::string name;
  double used = 0;
};

struct NodeState {
  int64_t cpu = 0, memory = 0;
  int gpus = 0, pods = 0;
  std::vector<SharedGroup> groups;
};

// A pod's placement while a job is being placed (undone when the gang does not fit).
struct Placement {
  int node = -1;
  int group = -1;  // index into NodeState::groups for fractions
  bool new_group = false;
};

class Generator {
 public:
  Generator(const SyntheticClusterSpec& spec, SyntheticCluster* out)
      : spec_(spec), out_(out), random_(spec.seed) {}

  void Run() {
    out_->now = WallTime{} + std::chrono::hours(24 * 365 * 55);  // ~2025
    MakeNodes();
    MakeQueues();
    MakePriorityClasses();
    const int64_t total_gpus = int64_t{spec_.nodes} * spec_.gpus_per_node;
    const int64_t gpu_target = static_cast<int64_t>(spec_.running_gpu_fill * total_gpus);
    // Running phase: jobs are placed first-fit from a random node; a gang that does not fit
    // becomes a pending job.
    // A job that does not fit is dropped; a long run of them means the cluster is full.
    int consecutive_failures = 0;
    while (out_->running_pods < spec_.running_pods_max && out_->used_gpus < gpu_target &&
           consecutive_failures < 200) {
      consecutive_failures = AddJob(/*running=*/true, -1) ? 0 : consecutive_failures + 1;
    }
    // Pending phase.
    while (out_->pending_pods < spec_.pending_pods) {
      AddJob(/*running=*/false, spec_.pending_pods - out_->pending_pods);
    }
    out_->jobs = job_counter_;
  }

 private:
  double U() { return random_.UniformDouble(); }
  int Between(int lo, int hi) { return lo + static_cast<int>(random_.Uniform(hi - lo + 1)); }

  WallTime CreationTime(int64_t seq) const {
    return out_->now - std::chrono::hours(12) + std::chrono::seconds(seq);
  }

  void MakeNodes() {
    nodes_.resize(spec_.nodes);
    for (int i = 0; i < spec_.nodes; ++i) {
      auto node = std::make_shared<api::Node>();
      char name[32];
      std::snprintf(name, sizeof(name), "node-%05d", i);
      node->metadata.name = name;
      node->metadata.uid = std::string("uid-") + name;
      node->metadata.creation_timestamp = CreationTime(0);
      auto& labels = node->metadata.labels;
      labels[std::string(api::kGpuMemoryLabel)] = std::to_string(kGpuMemoryMib);
      labels[std::string(api::kGpuCountLabel)] = std::to_string(spec_.gpus_per_node);
      labels["kubernetes.io/hostname"] = name;
      node->status.conditions.push_back(api::NodeCondition{"Ready", "True", {}, {}, "", ""});
      LoadedNode ln;
      ln.node = node;
      ln.allocatable = {{"cpu", static_cast<double>(spec_.node_cpu_milli)},
                        {"memory", static_cast<double>(spec_.node_memory_bytes)},
                        {std::string(kGpuResource), static_cast<double>(spec_.gpus_per_node)},
                        {"pods", static_cast<double>(spec_.node_pods)}};
      ln.capacity = ln.allocatable;
      // The same amounts on the object, for SyntheticClusterListJson's readers.
      api::ResourceList& alloc = node->status.allocatable;
      alloc["cpu"] = api::Quantity::FromMilli(spec_.node_cpu_milli);
      alloc["memory"] =
          api::Quantity::FromInt(spec_.node_memory_bytes, api::Quantity::Format::kBinarySI);
      alloc[std::string(kGpuResource)] = api::Quantity::FromInt(spec_.gpus_per_node);
      alloc["pods"] = api::Quantity::FromInt(spec_.node_pods);
      node->status.capacity = alloc;
      out_->objects.nodes.push_back(std::move(ln));
      NodeState& s = nodes_[i];
      s.cpu = spec_.node_cpu_milli;
      s.memory = spec_.node_memory_bytes;
      s.gpus = spec_.gpus_per_node;
      s.pods = spec_.node_pods;
    }
  }

  std::shared_ptr<api::Queue> MakeQueue(const std::string& name, const std::string& parent,
                                        double gpu_quota, int64_t seq) {
    auto q = std::make_shared<api::Queue>();
    q->metadata.name = name;
    q->metadata.uid = "uid-queue-" + name;
    q->metadata.creation_timestamp = CreationTime(seq);
    q->spec.display_name = name;
    q->spec.parent_queue = parent;
    api::QueueResources r;
    r.gpu = {gpu_quota, 1, -1};
    r.cpu = {-1, 1, -1};
    r.memory = {-1, 1, -1};
    q->spec.resources = r;
    return q;
  }

  void MakeQueues() {
    const int leaves = spec_.departments * spec_.queues_per_department;
    const double total_gpus = static_cast<double>(spec_.nodes) * spec_.gpus_per_node;
    const double base = total_gpus * 0.9 / leaves;
    int64_t seq = 0;
    for (int d = 0; d < spec_.departments; ++d) {
      char dept[32];
      std::snprintf(dept, sizeof(dept), "dept-%02d", d);
      double dept_quota = 0;
      std::vector<std::shared_ptr<api::Queue>> children;
      for (int l = 0; l < spec_.queues_per_department; ++l) {
        char leaf[32];
        std::snprintf(leaf, sizeof(leaf), "team-%02d-%02d", d, l);
        double quota = std::floor(base * (0.3 + 1.4 * U()));
        dept_quota += quota;
        children.push_back(MakeQueue(leaf, dept, quota, ++seq));
        leaf_names_.push_back(leaf);
      }
      out_->objects.queues.push_back(MakeQueue(dept, "", dept_quota, ++seq));
      for (auto& c : children) out_->objects.queues.push_back(std::move(c));
    }
  }

  void MakePriorityClasses() {
    for (const auto& pc : kPriorityClasses) {
      auto p = std::make_shared<api::PriorityClass>();
      p->metadata.name = pc.name;
      p->value = pc.value;
      out_->objects.priority_classes.push_back(std::move(p));
    }
  }

  PodShape DrawShape() {
    PodShape s;
    double u = U();
    if (u < spec_.fractional_share) {
      s.kind = JobKind::kFraction;
      s.fraction = U() < 0.5 ? 0.5 : 0.25;
      s.cpu_milli = 1000 * Between(1, 4);
      s.memory = (int64_t{1} << 30) * Between(4, 16);
    } else if (u < spec_.fractional_share + spec_.cpu_only_share) {
      s.kind = JobKind::kCpuOnly;
      s.cpu_milli = 500 * Between(1, 16);
      s.memory = (int64_t{1} << 30) * Between(2, 16);
    } else {
      s.kind = JobKind::kWholeGpu;
      static constexpr int kGpus[] = {1, 1, 1, 2, 2, 4, 8};
      s.gpus = std::min(kGpus[random_.Uniform(7)], spec_.gpus_per_node);
      s.cpu_milli = 4000 * s.gpus;
      s.memory = (int64_t{16} << 30) * s.gpus;
    }
    return s;
  }

  bool Fits(const NodeState& n, const PodShape& s, int* group) const {
    if (n.pods < 1 || n.cpu < s.cpu_milli || n.memory < s.memory) return false;
    *group = -1;
    switch (s.kind) {
      case JobKind::kWholeGpu:
        return n.gpus >= s.gpus;
      case JobKind::kCpuOnly:
        return true;
      case JobKind::kFraction:
        for (size_t g = 0; g < n.groups.size(); ++g) {
          if (n.groups[g].used + s.fraction <= 1.0 + 1e-9) {
            *group = static_cast<int>(g);
            return true;
          }
        }
        return n.gpus >= 1;
    }
    return false;
  }

  Placement Place(int node_index, const PodShape& s, int group) {
    NodeState& n = nodes_[node_index];
    Placement p;
    p.node = node_index;
    n.pods -= 1;
    n.cpu -= s.cpu_milli;
    n.memory -= s.memory;
    if (s.kind == JobKind::kWholeGpu) n.gpus -= s.gpus;
    if (s.kind == JobKind::kFraction) {
      if (group < 0) {
        n.gpus -= 1;
        char name[48];
        std::snprintf(name, sizeof(name), "%s-gpu-%zu",
                      out_->objects.nodes[node_index].node->metadata.name.c_str(),
                      n.groups.size() + 1);
        n.groups.push_back(SharedGroup{name, 0});
        group = static_cast<int>(n.groups.size()) - 1;
        p.new_group = true;
      }
      n.groups[group].used += s.fraction;
      p.group = group;
    }
    return p;
  }

  void Unplace(const Placement& p, const PodShape& s) {
    NodeState& n = nodes_[p.node];
    n.pods += 1;
    n.cpu += s.cpu_milli;
    n.memory += s.memory;
    if (s.kind == JobKind::kWholeGpu) n.gpus += s.gpus;
    if (s.kind == JobKind::kFraction) {
      n.groups[p.group].used -= s.fraction;
      if (p.new_group) {
        n.groups.pop_back();
        n.gpus += 1;
      }
    }
  }

  // Adds one job of up to `max_pods` pods (-1 = no cap). A running job that does not fit is
  // not added (false).
  bool AddJob(bool running, int64_t max_pods) {
    const int64_t seq = ++job_counter_;
    const std::string& queue = leaf_names_[random_.Uniform(leaf_names_.size())];
    int size = Between(1, spec_.max_gang);
    if (max_pods > 0 && size > max_pods) size = static_cast<int>(max_pods);
    PodShape shape = DrawShape();
    int32_t min_member = size;
    if (size >= 2 && U() < 0.2) min_member = std::max(1, size / 2);
    double pu = U();
    const PriorityClassDef* pc = &kPriorityClasses[0];
    for (const auto& def : kPriorityClasses) {
      if (pu < def.share) {
        pc = &def;
        break;
      }
      pu -= def.share;
    }

    std::vector<Placement> placements;
    if (running) {
      int cursor = static_cast<int>(random_.Uniform(spec_.nodes));
      for (int i = 0; i < size; ++i) {
        bool placed = false;
        for (int k = 0; k < kPlacementProbe && k < spec_.nodes; ++k) {
          int idx = (cursor + k) % spec_.nodes;
          int group = -1;
          if (Fits(nodes_[idx], shape, &group)) {
            placements.push_back(Place(idx, shape, group));
            cursor = idx;
            placed = true;
            break;
          }
        }
        if (!placed) {
          for (auto it = placements.rbegin(); it != placements.rend(); ++it) Unplace(*it, shape);
          return false;
        }
      }
    }

    char job[32];
    std::snprintf(job, sizeof(job), "job-%06lld", static_cast<long long>(seq));
    auto pg = std::make_shared<api::PodGroup>();
    pg->metadata.name = job;
    pg->metadata.namespace_ = queue;
    pg->metadata.uid = std::string("uid-") + job;
    pg->metadata.creation_timestamp = CreationTime(seq);
    pg->spec.min_member = min_member;
    pg->spec.queue = queue;
    pg->spec.priority_class_name = pc->name;
    if (running) {
      pg->metadata.annotations[std::string(api::kLastStartTimestampAnnotation)] =
          FormatRfc3339(CreationTime(seq));
    }
    out_->objects.podgroups.push_back(pg);

    for (int i = 0; i < size; ++i) {
      auto pod = std::make_shared<api::Pod>();
      char name[48];
      std::snprintf(name, sizeof(name), "%s-%d", job, i);
      pod->metadata.name = name;
      pod->metadata.namespace_ = queue;
      pod->metadata.uid = std::string("uid-") + name;
      pod->metadata.creation_timestamp = CreationTime(seq);
      pod->metadata.labels[std::string(api::kDefaultQueueLabelKey)] = queue;
      pod->metadata.annotations[std::string(api::kPodGroupNameAnnotation)] = job;
      pod->spec.scheduler_name = std::string(api::kDefaultSchedulerName);
      pod->spec.priority_class_name = pc->name;
      api::Container c;
      c.name = "main";
      c.image = "bench";
      c.resources.requests["cpu"] = api::Quantity::FromMilli(shape.cpu_milli);
      c.resources.requests["memory"] =
          api::Quantity::FromInt(shape.memory, api::Quantity::Format::kBinarySI);
      LoadedPod lp;
      lp.requests = {{"cpu", static_cast<double>(shape.cpu_milli)},
                     {"memory", static_cast<double>(shape.memory)}};
      if (shape.kind == JobKind::kWholeGpu) {
        lp.requests[std::string(kGpuResource)] = shape.gpus;
        auto gpus = api::Quantity::FromInt(static_cast<int64_t>(shape.gpus));
        c.resources.requests[std::string(kGpuResource)] = gpus;
        c.resources.limits[std::string(kGpuResource)] = gpus;
      }
      pod->spec.containers.push_back(std::move(c));
      if (shape.kind == JobKind::kFraction) {
        char f[16];
        std::snprintf(f, sizeof(f), "%g", shape.fraction);
        pod->metadata.annotations[std::string(api::kGpuFractionAnnotation)] = f;
      }
      if (running) {
        const Placement& p = placements[i];
        pod->spec.node_name = out_->objects.nodes[p.node].node->metadata.name;
        pod->status.phase = "Running";
        if (shape.kind == JobKind::kFraction) {
          pod->metadata.labels[std::string(api::kGpuGroupLabel)] =
              nodes_[p.node].groups[p.group].name;
          pod->metadata.annotations[std::string(api::kReceivedResourceTypeAnnotation)] = "Fraction";
        } else {
          pod->metadata.annotations[std::string(api::kReceivedResourceTypeAnnotation)] = "Regular";
        }
        ++out_->running_pods;
        if (shape.kind == JobKind::kWholeGpu) out_->used_gpus += shape.gpus;
        if (shape.kind == JobKind::kFraction && p.new_group) out_->used_gpus += 1;
      } else {
        pod->status.phase = "Pending";
        ++out_->pending_pods;
      }
      lp.pod = std::move(pod);
      out_->objects.pods.push_back(std::move(lp));
    }
    return true;
  }

  const SyntheticClusterSpec& spec_;
  SyntheticCluster* out_;
  SeededRandom random_;
  std::vector<NodeState> nodes_;
  std::vector<std::string> leaf_names_;
  int64_t job_counter_ = 0;
};

}  // namespace

StatusOr<SyntheticClusterSpec> SpecForSize(const std::string& size) {
  SyntheticClusterSpec s;
  s.name = size;
  if (size == "tiny") {
    s.nodes = 8;
    s.departments = 2;
    s.queues_per_department = 2;
    s.running_pods_max = 40;
    s.running_gpu_fill = 0.5;
    s.pending_pods = 40;
    s.max_gang = 4;
  } else if (size == "S") {
    // 100 nodes x 8 GPUs, 1,000 pods.
    s.nodes = 100;
    s.departments = 2;
    s.queues_per_department = 5;
    s.running_pods_max = 500;
    s.running_gpu_fill = 0.6;
    s.pending_pods = 500;
  } else if (size == "M") {
    // 1,000 nodes, 10,000 pending pods in gangs of 1-16, 100 queues in 2 levels, 30% fractional
    // pods, half the cluster running.
    s.nodes = 1000;
    s.departments = 10;
    s.queues_per_department = 10;
    s.running_pods_max = 1'000'000;
    s.running_gpu_fill = 0.5;
    s.pending_pods = 10'000;
  } else if (size == "L") {
    // 4,000 nodes, 140,000 pods, most of them running, 500 queues.
    s.nodes = 4000;
    s.departments = 20;
    s.queues_per_department = 25;
    s.running_pods_max = 126'000;
    s.running_gpu_fill = 0.95;
    s.pending_pods = 14'000;
    s.fractional_share = 0.3;
    s.cpu_only_share = 0.6;
  } else {
    return InvalidArgumentError("unknown cluster size \"" + size + "\" (expected tiny, S, M or L)");
  }
  return s;
}

SyntheticCluster GenerateSyntheticCluster(const SyntheticClusterSpec& spec) {
  SyntheticCluster out;
  Generator g(spec, &out);
  g.Run();
  return out;
}

EventBatchStats ApplyEventBatch(SyntheticCluster* cluster, int n, Random* random,
                                ClusterModel* model) {
  EventBatchStats st;
  auto& pods = cluster->objects.pods;
  auto& nodes = cluster->objects.nodes;
  const int64_t generation = ++cluster->event_generation;
  const int node_updates = std::max(1, n / 100);
  const int pod_events = std::max(0, n - node_updates);
  for (int i = 0; i < pod_events; ++i) {
    if (pods.empty()) break;
    size_t idx = random->Uniform(pods.size());
    LoadedPod& lp = pods[idx];
    double u = random->UniformDouble();
    if (u < 0.5) {
      // Status churn (a condition or annotation changes; containers do not).
      auto pod = std::make_shared<api::Pod>(*lp.pod);
      pod->metadata.annotations["bench/generation"] = std::to_string(generation);
      lp.pod = pod;
      model->ReplacePodObject(lp.pod);
      ++st.pod_updates;
    } else if (u < 0.75 && lp.pod->status.phase == "Running") {
      // A running pod completes and is deleted.
      model->DeletePod(lp.pod->metadata.namespace_ + "/" + lp.pod->metadata.name);
      pods[idx] = std::move(pods.back());
      pods.pop_back();
      ++st.pod_deletes;
    } else {
      // A new single-pod pending job.
      auto pg = std::make_shared<api::PodGroup>();
      char name[48];
      std::snprintf(name, sizeof(name), "evt-%lld-%d", static_cast<long long>(generation), i);
      pg->metadata.name = name;
      pg->metadata.namespace_ = lp.pod->metadata.namespace_;
      pg->metadata.uid = std::string("uid-") + name;
      pg->metadata.creation_timestamp = cluster->now;
      pg->spec.min_member = 1;
      pg->spec.queue = lp.pod->metadata.namespace_;
      pg->spec.priority_class_name = "train";
      auto pod = std::make_shared<api::Pod>(*lp.pod);
      pod->metadata.name = std::string(name) + "-0";
      pod->metadata.uid = "uid-" + pod->metadata.name;
      pod->metadata.annotations[std::string(api::kPodGroupNameAnnotation)] = name;
      pod->metadata.labels.erase(std::string(api::kGpuGroupLabel));
      pod->metadata.annotations.erase(std::string(api::kReceivedResourceTypeAnnotation));
      pod->spec.node_name.clear();
      pod->status.phase = "Pending";
      LoadedPod added{pod, lp.requests};
      model->UpsertPodGroup(pg);
      model->UpsertPod(added);
      cluster->objects.podgroups.push_back(pg);
      pods.push_back(std::move(added));
      ++st.pod_adds;
      ++st.podgroup_adds;
    }
  }
  for (int i = 0; i < node_updates && !nodes.empty(); ++i) {
    LoadedNode& ln = nodes[random->Uniform(nodes.size())];
    auto node = std::make_shared<api::Node>(*ln.node);
    node->metadata.labels["bench/heartbeat"] = std::to_string(generation);
    ln.node = node;
    model->UpsertNode(ln);
    ++st.node_updates;
  }
  return st;
}

std::string SyntheticClusterListJson(const SyntheticCluster& cluster) {
  const LoadedObjects& o = cluster.objects;
  std::string out = "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [";
  bool first = true;
  auto add = [&](const std::string& json) {
    out += first ? "\n" : ",\n";
    first = false;
    out += json;
  };
  for (const auto& pc : o.priority_classes) add(api::EncodeJson(*pc));
  for (const auto& q : o.queues) add(api::EncodeJson(*q));
  for (const auto& n : o.nodes) add(api::EncodeJson(*n.node));
  for (const auto& pg : o.podgroups) add(api::EncodeJson(*pg));
  for (const auto& p : o.pods) add(api::EncodeJson(*p.pod));
  out += "\n]}\n";
  return out;
}

}  // namespace kai::scheduler::bench
