// topology (KAI plugins/topology, reference §11.2-11.5): topology trees built from Topology
// objects and node labels; SubsetNodes returns the candidate domains (tightest fit first) for a
// constrained (sub)group, and NodeOrder prefers nodes by preferred-level domain.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <span>

#include "kube/base/saturating_cast.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler {

namespace {

constexpr std::string_view kRootLevel = "root";
constexpr double kRequiredResourceNotInDomainRatio = 1000.0;
constexpr int kAllocatablePodsNotSet = -1;

struct Domain {
  std::string id;
  std::string level;
  std::vector<Domain*> children;
  std::map<std::string, NodeInfo*> nodes;
  int allocatable_pods = kAllocatablePodsNotSet;
  ResourceVector free;  // idle + releasing

  void AddChild(Domain* c) {
    for (Domain* e : children) {
      if (e->id == c->id) return;
    }
    children.push_back(c);
  }
};

struct Tree {
  std::string name;
  std::vector<std::string> levels;  // highest first (as in the Topology)
  std::map<std::string, std::map<std::string, std::unique_ptr<Domain>>> by_level;
  Domain* root = nullptr;
};

bool NodeInTopology(const NodeInfo& n, const std::vector<std::string>& levels) {
  const auto& labels = n.node().metadata.labels;
  for (const auto& l : levels) {
    if (labels.find(l) == labels.end()) return false;
  }
  return true;
}

double AvailableSharedGpuFractions(const NodeInfo& n) {
  if (n.memory_of_every_gpu <= 0) return 0;
  double total = 0;
  for (const auto& [g, used] : n.used_shared_gpus_memory) {
    if (used <= 0) continue;
    int64_t alloc = 0, rel = 0;
    if (auto it = n.allocated_shared_gpus_memory.find(g);
        it != n.allocated_shared_gpus_memory.end()) {
      alloc = it->second;
    }
    if (auto it = n.releasing_shared_gpus_memory.find(g);
        it != n.releasing_shared_gpus_memory.end()) {
      rel = it->second;
    }
    int64_t avail = n.memory_of_every_gpu - alloc + rel;
    if (avail > 0) total += static_cast<double>(avail) / static_cast<double>(n.memory_of_every_gpu);
  }
  return total;
}

class TopologyPlugin : public Plugin {
 public:
  std::string_view Name() const override { return "topology"; }

  void OnSessionOpen(Session* ssn) override {
    ssn_ = ssn;
    const ClusterInfo& c = ssn->cluster();
    for (const auto& [name, topo] : c.topologies) {
      auto tree = std::make_unique<Tree>();
      tree->name = name;
      for (const auto& l : topo->spec.levels) tree->levels.push_back(l.node_label);
      tree->root = NewDomain(tree.get(), std::string(kRootLevel), std::string(kRootLevel));
      for (NodeInfo* node : c.node_list) AddNode(tree.get(), node);
      trees_[name] = std::move(tree);
    }
    ssn->AddSubsetNodesFn(
        [this](const PodGroupInfo& job, const SubGroupRef& sg, const std::vector<PodSet*>& pod_sets,
               const std::vector<PodInfo*>& tasks,
               const NodeSet& nodes) { return SubsetNodes(job, sg, pod_sets, tasks, nodes); });
    ssn->AddNodeOrderBatchFn(
        [this](const PodInfo& task, std::span<const NodeInfo* const> nodes, std::span<double> out,
               std::span<uint8_t> failed) { NodeOrder(task, nodes, out, failed); });
    ssn->AddPreJobAllocationFn([this](const PodGroupInfo&) { node_scores_.clear(); });
  }

 private:
  Domain* NewDomain(Tree* t, const std::string& id, const std::string& level) {
    auto d = std::make_unique<Domain>();
    d->id = id;
    d->level = level;
    Domain* raw = d.get();
    t->by_level[level][id] = std::move(d);
    return raw;
  }

  void AddNode(Tree* t, NodeInfo* node) {
    if (!NodeInTopology(*node, t->levels)) return;
    const auto& labels = node->node().metadata.labels;
    Domain* child = nullptr;
    for (int i = static_cast<int>(t->levels.size()) - 1; i >= 0; --i) {
      std::string id;
      for (int j = 0; j <= i; ++j) id += (j ? "." : "") + labels.at(t->levels[j]);
      const std::string& level = t->levels[i];
      auto& level_map = t->by_level[level];
      auto it = level_map.find(id);
      Domain* d = it == level_map.end() ? NewDomain(t, id, level) : it->second.get();
      d->nodes[node->name()] = node;
      if (child != nullptr) d->AddChild(child);
      child = d;
    }
    if (child != nullptr) t->root->AddChild(child);
    t->root->nodes[node->name()] = node;
  }

  static double RatioToFree(const ResourceVector& req, const Domain& d) {
    double dominant = 0;
    bool any = false;
    for (int i = 0; i < req.size(); ++i) {
      if (req.Get(i) > 0) any = true;
    }
    if (!any) return 0;
    for (int i = 0; i < req.size(); ++i) {
      double v = req.Get(i);
      if (v <= 0 || i == kPodsIndex) continue;
      double free = d.free.Get(i);
      double ratio = free <= 0 ? kRequiredResourceNotInDomainRatio : v / free;
      dominant = std::max(dominant, ratio);
    }
    return dominant;
  }

  static ResourceVector CalcFree(Domain* d, int size) {
    d->free = ResourceVector(size);
    if (d->children.empty()) {
      for (auto& [n, node] : d->nodes) {
        d->free.Add(node->idle);
        d->free.Add(node->releasing);
      }
      return d->free;
    }
    for (Domain* c : d->children) d->free.Add(CalcFree(c, size));
    return d->free;
  }

  static int NodeAccommodation(const ResourceVector& max_pod, int num_tasks, const NodeInfo& n) {
    ResourceVector one_pod(max_pod.size());
    one_pod.Set(kPodsIndex, 1);
    if (max_pod.LessEqual(one_pod)) return num_tasks;
    ResourceVector non_alloc = n.idle;
    non_alloc.Add(n.releasing);
    double gpu = max_pod.gpu();
    if (gpu > 0 && gpu < 1)
      non_alloc.Set(kGpuIndex, non_alloc.gpu() + AvailableSharedGpuFractions(n));
    if (!max_pod.LessEqual(non_alloc)) return 0;
    int min_pods = std::numeric_limits<int>::max();
    for (int i = 0; i < max_pod.size(); ++i) {
      if (max_pod.Get(i) <= 0) continue;
      // Saturating: a node's bytes of memory over a request of a few bytes pass 2^31.
      int pods = SaturatingCast<int>(non_alloc.Get(i) / max_pod.Get(i));
      min_pods = std::min(min_pods, pods);
    }
    return min_pods == std::numeric_limits<int>::max() ? num_tasks : min_pods;
  }

  static int CalcAllocatable(Domain* d, const ResourceVector& max_pod, int num_tasks) {
    d->allocatable_pods = 0;
    if (d->children.empty()) {
      for (auto& [n, node] : d->nodes)
        d->allocatable_pods += NodeAccommodation(max_pod, num_tasks, *node);
      return d->allocatable_pods;
    }
    for (Domain* c : d->children) d->allocatable_pods += CalcAllocatable(c, max_pod, num_tasks);
    return d->allocatable_pods;
  }

  static bool UseRepresentativePods(const std::vector<PodInfo*>& tasks, int size) {
    if (tasks.empty()) return true;
    std::map<int, size_t> extended;
    size_t gpu_pods = 0;
    for (const PodInfo* t : tasks) {
      for (int i = 0; i < size; ++i) {
        if (i == kCpuIndex || i == kMemoryIndex || i == kGpuIndex) continue;
        if (t->res_req.Get(i) > 0) extended[i]++;
      }
      if (t->gpu_req.Gpus() > 0) ++gpu_pods;
    }
    if (gpu_pods != tasks.size() && gpu_pods != 0) return false;
    for (const auto& [i, n] : extended) {
      if (n != tasks.size()) return false;
    }
    return true;
  }

  static std::string FitError(const Domain& d, const ResourceVector& req, int count, bool* fits) {
    if (d.allocatable_pods != kAllocatablePodsNotSet) {
      *fits = d.allocatable_pods >= count;
      return "node-group " + d.id + " can allocate only " + std::to_string(d.allocatable_pods) +
             " of " + std::to_string(count) + " required pods";
    }
    *fits = RatioToFree(req, d) <= 1.0;
    return "node-group " + d.id + " doesn't have enough resources";
  }

  static void SortTree(const ResourceVector& req, Domain* d, const std::string& max_depth) {
    if (d == nullptr || max_depth.empty()) return;
    std::map<const Domain*, double> ratios;
    for (Domain* c : d->children) ratios[c] = RatioToFree(req, *c);
    std::sort(d->children.begin(), d->children.end(), [&](Domain* a, Domain* b) {
      double ra = ratios[a], rb = ratios[b];
      if (ra != rb) return ra > rb;
      return a->id < b->id;
    });
    if (d->level == max_depth) return;
    for (Domain* c : d->children) SortTree(req, c, max_depth);
  }

  static void LevelDomains(Domain* d, const std::string& level, std::vector<Domain*>* out) {
    if (d->level == level) {
      out->push_back(d);
      return;
    }
    for (Domain* c : d->children) LevelDomains(c, level, out);
  }

  static std::string NoMatchError(const PodGroupInfo& job, const SubGroupRef& sg, const Tree& t,
                                  const std::string& suffix) {
    std::string what = "job <" + job.namespace_() + "/" + job.name() + ">";
    if (!sg.name.empty() && sg.name != kDefaultSubGroup) what += ", subgroup " + sg.name;
    return "topology " + t.name + ", requirement " + (*sg.topology)->required_level +
           " couldn't be satisfied for " + what + (suffix.empty() ? "" : ": " + suffix);
  }

  // nullopt: the nodes whole (SubsetNodesFn).
  using Subsets = std::optional<std::vector<NodeSet>>;

  StatusOr<Subsets> SubsetNodes(const PodGroupInfo& job_const, const SubGroupRef& sg,
                                const std::vector<PodSet*>& pod_sets,
                                const std::vector<PodInfo*>& tasks, const NodeSet& nodes) {
    PodGroupInfo& job = const_cast<PodGroupInfo&>(job_const);
    if (sg.topology == nullptr || !sg.topology->has_value() || (*sg.topology)->topology.empty()) {
      return Subsets();
    }
    const TopologyConstraintInfo& constraint = **sg.topology;
    auto tit = trees_.find(constraint.topology);
    if (tit == trees_.end()) {
      job.AddJobFitError(std::string(kReasonPodSchedulingErrors),
                         "Requested topology " + constraint.topology + " does not exist");
      return Subsets(std::vector<NodeSet>{});
    }
    if (tasks.empty()) return Subsets();
    Tree& tree = *tit->second;
    int size = ssn_->cluster().vector_map->size();

    // Lowest common domain of the nodes (not below the preferred level).
    std::map<std::string, NodeInfo*> valid;
    for (NodeInfo* n : nodes) {
      if (NodeInTopology(*n, tree.levels)) valid[n->name()] = n;
    }
    std::vector<std::string> parts;
    for (const auto& level : tree.levels) {
      std::string value;
      bool all = true;
      for (const auto& [name, n] : valid) {
        const std::string& v = n->node().metadata.labels.at(level);
        if (value.empty()) value = v;
        if (v != value) {
          all = false;
          break;
        }
      }
      if (!all || value.empty()) break;
      parts.push_back(value);
      if (constraint.preferred_level == level) break;
    }
    Domain* domain = tree.root;
    if (!parts.empty()) {
      std::string id;
      for (size_t i = 0; i < parts.size(); ++i) id += (i ? "." : "") + parts[i];
      const std::string& level = tree.levels[parts.size() - 1];
      auto& lm = tree.by_level[level];
      auto it = lm.find(id);
      if (it == lm.end()) {
        return InternalError("domain not found for node set in topology " + tree.name);
      }
      domain = it->second.get();
    }

    for (auto& [level, domains] : tree.by_level) {
      for (auto& [id, d] : domains) {
        d->allocatable_pods = kAllocatablePodsNotSet;
        d->free = ResourceVector(size);
      }
    }
    CalcFree(domain, size);
    ResourceVector req(size);
    ResourceVector max_pod(size);
    for (const PodInfo* t : tasks) {
      req.Add(t->res_req);
      max_pod.SetMax(t->res_req);
    }
    int count = static_cast<int>(tasks.size());
    if (UseRepresentativePods(tasks, size)) CalcAllocatable(domain, max_pod, count);

    bool fits = false;
    std::string err = FitError(*domain, req, count, &fits);
    if (!fits) {
      std::string msg = domain == tree.root
                            ? "not enough resources in the cluster to allocate the job"
                            : "not enough resources in " + domain->id + " to allocate the job";
      job.AddJobFitError(std::string(kReasonPodSchedulingErrors), NoMatchError(job, sg, tree, msg));
      return Subsets(std::vector<NodeSet>{});
    }

    std::string max_depth =
        constraint.preferred_level.empty() ? constraint.required_level : constraint.preferred_level;
    SortTree(req, domain, max_depth);
    if (!constraint.preferred_level.empty()) {
      std::vector<Domain*> preferred;
      LevelDomains(domain, constraint.preferred_level, &preferred);
      std::map<std::string, double> scores;
      for (size_t i = 0; i < preferred.size(); ++i) {
        double s = (static_cast<double>(i + 1) / static_cast<double>(preferred.size())) * 10;
        for (const auto& [n, node] : preferred[i]->nodes) {
          scores[n] = std::floor(s) * scores::kTopology;
        }
      }
      node_scores_[sg.name] = std::move(scores);
    }

    // Relevant levels: from the preferred (or required) level up to the required level or root.
    std::vector<std::string> levels;
    for (auto it = tree.levels.rbegin(); it != tree.levels.rend(); ++it) levels.push_back(*it);
    levels.emplace_back(kRootLevel);
    bool found_required = false, found_preferred = false;
    std::vector<std::string> relevant;
    for (const auto& level : levels) {
      if (level == constraint.preferred_level) found_preferred = true;
      if (level == constraint.required_level) found_required = true;
      if (found_preferred || found_required) relevant.push_back(level);
      if (found_required) break;
    }
    auto config_error = [&](const char* kind, const std::string& level) {
      std::string who = sg.name.empty() || sg.name == kDefaultSubGroup ? std::string("workload")
                                                                       : "sub-group " + sg.name;
      return InvalidArgumentError("topology constraint error: " + who + " specified '" + level +
                                  "' as the " + kind +
                                  " topology constraint level, but the topology tree '" +
                                  tree.name + "' does not contain a level with this name");
    };
    if (constraint.required_level.empty() && constraint.preferred_level.empty()) {
      return InvalidArgumentError("no topology constraints were found for subgroup " + sg.name +
                                  ", with topology name " + tree.name);
    }
    if (!constraint.required_level.empty() && !found_required) {
      Status s = config_error("required", constraint.required_level);
      job.AddJobFitError(std::string(kReasonPodSchedulingErrors), std::string(s.message()));
      return s;
    }
    if (!constraint.preferred_level.empty() && !found_preferred) {
      Status s = config_error("preferred", constraint.preferred_level);
      job.AddJobFitError(std::string(kReasonPodSchedulingErrors), std::string(s.message()));
      return s;
    }

    // Domains at the required level that already hold active pods of the job (and their
    // subtrees) are the only candidates when the job has running pods.
    std::set<const Domain*> allowed;
    bool restrict = false;
    if (!constraint.required_level.empty()) {
      bool active = false;
      for (const PodSet* ps : pod_sets) {
        if (ps->NumActiveAllocated() > 0) active = true;
      }
      if (active) {
        restrict = true;
        auto& req_level = tree.by_level[constraint.required_level];
        for (auto& [id, d] : req_level) {
          bool has = false;
          for (const PodSet* ps : pod_sets) {
            for (const PodInfo* t : ps->tasks()) {
              if (IsActiveAllocatedStatus(t->status) && d->nodes.count(t->node_name) > 0)
                has = true;
            }
          }
          if (has) AddSubtree(d.get(), &allowed);
        }
      }
    }
    std::vector<Domain*> candidates;
    std::vector<std::string> top_errors;
    for (size_t li = 0; li < relevant.size(); ++li) {
      auto lit = tree.by_level.find(relevant[li]);
      if (lit == tree.by_level.end()) continue;
      for (auto& [id, d] : lit->second) {
        if (restrict && allowed.count(d.get()) == 0) continue;
        bool ok = false;
        std::string e = FitError(*d, req, count, &ok);
        if (!ok) {
          if (li == relevant.size() - 1) top_errors.push_back(e);
          continue;
        }
        candidates.push_back(d.get());
      }
    }
    if (candidates.empty()) {
      for (const auto& e : top_errors) {
        job.AddJobFitError(std::string(kReasonPodSchedulingErrors), e);
      }
      job.AddJobFitError(std::string(kReasonPodSchedulingErrors), NoMatchError(job, sg, tree, ""));
      return Subsets(std::vector<NodeSet>{});
    }
    // Reverse level order of the (sorted) tree: deepest level first.
    std::vector<std::vector<Domain*>> by_depth;
    std::vector<Domain*> frontier{tree.root};
    while (!frontier.empty()) {
      by_depth.push_back(frontier);
      std::vector<Domain*> next;
      for (Domain* d : frontier) next.insert(next.end(), d->children.begin(), d->children.end());
      frontier = std::move(next);
    }
    std::set<const Domain*> candidate_set(candidates.begin(), candidates.end());
    std::vector<NodeSet> out;
    for (auto it = by_depth.rbegin(); it != by_depth.rend(); ++it) {
      for (Domain* d : *it) {
        if (candidate_set.count(d) == 0) continue;
        NodeSet ns;
        for (auto& [n, node] : d->nodes) {
          if (valid.count(n) > 0) ns.push_back(node);
        }
        out.push_back(std::move(ns));
      }
    }
    return Subsets(std::move(out));
  }

  static void AddSubtree(Domain* d, std::set<const Domain*>* out) {
    out->insert(d);
    for (Domain* c : d->children) AddSubtree(c, out);
  }

  void NodeOrder(const PodInfo& task, std::span<const NodeInfo* const> nodes, std::span<double> out,
                 std::span<uint8_t> failed) {
    if (node_scores_.empty()) return;
    const PodGroupInfo* job = ssn_->cluster().JobOf(task);
    const PodSet* ps = job == nullptr ? nullptr : job->PodSetOf(task);
    if (ps == nullptr) {
      std::fill(failed.begin(), failed.end(), 1);
      return;
    }
    const std::map<std::string, double>* scores = ScoresFor(*ps);
    if (scores == nullptr) return;
    for (size_t i = 0; i < nodes.size(); ++i) {
      auto nit = scores->find(nodes[i]->name());
      if (nit == scores->end()) {
        failed[i] = 1;  // outside the preferred domains
      } else {
        out[i] += nit->second;
      }
    }
  }

  // The preferred-level node scores of the PodSet or of its nearest ancestor that has them;
  // nullptr when none has.
  const std::map<std::string, double>* ScoresFor(const PodSet& ps) const {
    if (auto it = node_scores_.find(ps.name()); it != node_scores_.end()) return &it->second;
    for (const SubGroupSet* s = ps.parent(); s != nullptr; s = s->parent()) {
      if (auto it = node_scores_.find(s->name()); it != node_scores_.end()) return &it->second;
    }
    return nullptr;
  }

  Session* ssn_ = nullptr;
  std::map<std::string, std::unique_ptr<Tree>> trees_;
  std::map<std::string, std::map<std::string, double>> node_scores_;
};

}  // namespace

std::unique_ptr<Plugin> NewTopologyPlugin(const PluginArguments&) {
  return std::make_unique<TopologyPlugin>();
}

}  // namespace kai::scheduler
