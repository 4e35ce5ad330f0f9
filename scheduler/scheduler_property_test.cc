// Property tests of the scheduling core (issue 5): on random clusters (whole, fractional, GPU
// memory and multi-device GPU requests, CPU-only pods, pod limits, two-level queues, running,
// releasing and binding pods, gangs and elastic jobs) a full cycle of all five actions must
//   * never over-commit a node: CPU, memory, pod slots (a shared GPU group also holds its
//     reservation pod), whole GPUs plus shared groups, and the memory of every shared GPU, both
//     for the pods holding resources now and for those that will hold them once releasing pods
//     are gone;
//   * keep the node accounting equal to what the pods on the node add up to;
//   * place every gang to its minimum or not at all, and leave every victim job at its minimum
//     or without active pods;
//   * decide the same whatever the order of the input objects, and the same when run twice;
//   * leave no trace of a discarded statement.
// Everything is seeded (kai::SeededRandom); a failure prints the seed and the cluster.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "kube/base/random.h"
#include "kube/base/strings.h"
#include "scheduler/framework/statement.h"
#include "scheduler/testing/test_cluster.h"

namespace kai::scheduler {
namespace {

using testing::JobSpec;
using testing::NodeSpec;
using testing::QueueSpec;
using testing::TaskSpec;
using testing::TaskState;
using testing::TestCluster;
using testing::TestSession;

// ------------------------------------------------------------------ random clusters

template <typename T>
const T& Pick(Random* r, const std::vector<T>& v) {
  return v[r->Uniform(v.size())];
}

bool Chance(Random* r, double p) { return r->UniformDouble() < p; }

struct Capacity {
  double cpu_milli = 0, memory = 0;
  int pods = 0;
  int whole_gpus = 0;  // free whole GPUs
  int64_t gpu_memory = 0;
  std::map<std::string, int64_t> group_free;  // shared group -> free MiB
};

double ParseCores(const std::string& q) { return std::stod(q) * 1000; }
double ParseBytes(const std::string& q) { return std::stod(q) * 1e9; }  // "<n>G" only

// The GPU memory a fractional task takes on a node (KAI ResourceGpuMemory).
int64_t TaskGpuMemory(const JobSpec& j, int64_t node_gpu_memory) {
  if (j.gpu_memory_mib > 0) return j.gpu_memory_mib;
  return static_cast<int64_t>(j.gpus * static_cast<double>(node_gpu_memory));
}

bool IsShared(const JobSpec& j) { return (j.gpus > 0 && j.gpus < 1) || j.gpu_memory_mib > 0; }

// Places a task of `j` on some node that still has room (tracking `caps`), as a running or
// releasing pod; false when no node has room.
bool PlaceRunning(Random* r, const std::vector<NodeSpec>& nodes, std::vector<Capacity>* caps,
                  const JobSpec& j, TaskSpec* task, int* group_seq) {
  const double cpu = j.cpu.empty() ? 0 : ParseCores(j.cpu);
  const double mem = j.memory.empty() ? 0 : ParseBytes(j.memory);
  const int64_t devices = std::max<int64_t>(j.num_devices, 1);
  std::vector<size_t> order(nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[r->Uniform(i)]);
  for (size_t ni : order) {
    Capacity& c = (*caps)[ni];
    if (c.cpu_milli < cpu || c.memory < mem || c.pods < 1) continue;
    if (IsShared(j)) {
      const int64_t need = TaskGpuMemory(j, c.gpu_memory);
      if (need <= 0 || need > c.gpu_memory) continue;
      std::vector<std::string> groups;
      int new_groups = 0;
      for (auto& [g, free] : c.group_free) {
        if (static_cast<int64_t>(groups.size()) == devices) break;
        if (free >= need) groups.push_back(g);
      }
      while (static_cast<int64_t>(groups.size()) < devices && new_groups < c.whole_gpus) {
        groups.push_back("");
        ++new_groups;
      }
      // A new group also needs a slot for its reservation pod.
      if (static_cast<int64_t>(groups.size()) < devices || c.pods < 1 + new_groups) continue;
      for (auto& g : groups) {
        if (g.empty()) {
          g = nodes[ni].name + "-g" + std::to_string((*group_seq)++);
          c.group_free[g] = c.gpu_memory;
          c.whole_gpus -= 1;
          c.pods -= 1;
        }
        c.group_free[g] -= need;
      }
      task->gpu_groups = groups;
    } else {
      if (c.whole_gpus < static_cast<int>(j.gpus)) continue;
      c.whole_gpus -= static_cast<int>(j.gpus);
    }
    c.cpu_milli -= cpu;
    c.memory -= mem;
    c.pods -= 1;
    task->node = nodes[ni].name;
    task->state = Chance(r, 0.12) ? TaskState::kReleasing : TaskState::kRunning;
    return true;
  }
  return false;
}

TestCluster RandomCluster(uint64_t seed) {
  SeededRandom rnd(seed);
  Random* r = &rnd;
  TestCluster c;
  c.SetReservationPods(true);
  std::vector<NodeSpec> nodes;
  const int num_nodes = 2 + static_cast<int>(r->Uniform(5));
  for (int i = 0; i < num_nodes; ++i) {
    NodeSpec n;
    n.name = "node" + std::to_string(i);
    n.gpus = Pick<double>(r, {0, 1, 2, 4, 8});
    n.cpu = Pick<std::string>(r, {"4", "8", "16"});
    n.memory = Pick<std::string>(r, {"16G", "32G", "64G"});
    n.pods = Pick<int>(r, {3, 6, 110});
    n.gpu_memory_mib = Pick<int64_t>(r, {1000, 4000, 8000});
    nodes.push_back(n);
  }

  // Queues: top-level departments, each with one to three leaf queues.
  std::vector<std::string> leaves;
  const int num_departments = 1 + static_cast<int>(r->Uniform(2));
  for (int d = 0; d < num_departments; ++d) {
    QueueSpec dep;
    dep.name = "dep" + std::to_string(d);
    dep.gpu_quota = Pick<double>(r, {-1, 2, 4, 8});
    dep.gpu_limit = Chance(r, 0.2) ? dep.gpu_quota + 2 : -1;
    dep.creation_offset_min = d;
    c.AddQueue(dep);
    const int num_leaves = 1 + static_cast<int>(r->Uniform(3));
    for (int l = 0; l < num_leaves; ++l) {
      QueueSpec q;
      q.name = dep.name + "-q" + std::to_string(l);
      q.parent = dep.name;
      q.gpu_quota = Pick<double>(r, {0, 1, 2, 3});
      q.gpu_weight = Pick<double>(r, {0, 1, 2});
      q.gpu_limit = Chance(r, 0.2) ? q.gpu_quota + 1 : -1;
      if (Chance(r, 0.2)) q.priority = Pick<int>(r, {50, 150});
      q.creation_offset_min = 10 + l;
      c.AddQueue(q);
      leaves.push_back(q.name);
    }
  }

  std::vector<Capacity> caps;
  for (const NodeSpec& n : nodes) {
    Capacity cap;
    cap.cpu_milli = ParseCores(n.cpu);
    cap.memory = ParseBytes(n.memory);
    cap.pods = n.pods;
    cap.whole_gpus = static_cast<int>(n.gpus);
    cap.gpu_memory = *n.gpu_memory_mib;
    caps.push_back(cap);
  }
  int group_seq = 0;
  const int num_jobs = 3 + static_cast<int>(r->Uniform(10));
  for (int ji = 0; ji < num_jobs; ++ji) {
    JobSpec j;
    j.name = "job" + std::to_string(ji);
    j.queue = Pick(r, leaves);
    j.priority = Pick<int>(r, {50, 50, 75, 100, 125});
    if (Chance(r, 0.1)) j.preemptibility = Pick<std::string>(r, {"preemptible", "non-preemptible"});
    switch (r->Uniform(7)) {
      case 0:
        j.gpus = 0;  // CPU only
        break;
      case 1:
        j.gpus = 2;
        break;
      case 2:
        j.gpus = Pick<double>(r, {0.25, 0.5, 0.75});
        break;
      case 3:
        j.gpu_memory_mib = Pick<int64_t>(r, {500, 2000});
        break;
      case 4:
        j.gpus = 0.5;
        j.num_devices = 2;
        break;
      default:
        j.gpus = 1;
        break;
    }
    j.cpu = Pick<std::string>(r, {"1", "2"});
    j.memory = Pick<std::string>(r, {"1G", "4G"});
    const int num_tasks = 1 + static_cast<int>(r->Uniform(4));
    j.min_member = 1 + static_cast<int>(r->Uniform(num_tasks));
    j.tasks.assign(num_tasks, TaskSpec{});
    // Some jobs already run (all their pods or a part of them); the rest are pending.
    const double running_share = Pick<double>(r, {0, 0, 0.5, 1});
    bool any_running = false;
    for (TaskSpec& t : j.tasks) {
      if (r->UniformDouble() < running_share && PlaceRunning(r, nodes, &caps, j, &t, &group_seq)) {
        any_running = true;
      } else if (Chance(r, 0.05)) {
        t.state = TaskState::kGated;
      }
    }
    if (any_running) j.last_start_min = Pick<int>(r, {1, 30});
    if (any_running && Chance(r, 0.3)) j.stale_sec = Pick<int>(r, {10, 120});
    c.AddJob(j);
  }
  for (NodeSpec& n : nodes) c.AddNode(n);
  if (Chance(r, 0.3)) c.SetArg("default-staleness-grace-period", "60s");
  return c;
}

// ------------------------------------------------------------------ invariants

struct NodeUse {
  double cpu = 0, memory = 0;
  int pods = 0;  // scheduled pods (reservation pods apart)
  double whole_gpus = 0;
  std::map<std::string, int64_t> group_memory;  // shared groups in use
  std::set<std::string> reservations;           // groups with a reservation pod on the node
  std::map<std::string, double> mig;
  std::string pods_list;  // for failure reports
};

bool HoldsNow(PodStatus s) {
  return s == PodStatus::kRunning || s == PodStatus::kBound || s == PodStatus::kBinding ||
         s == PodStatus::kAllocated || s == PodStatus::kReleasing;
}

bool HoldsLater(PodStatus s) {
  return s == PodStatus::kRunning || s == PodStatus::kBound || s == PodStatus::kBinding ||
         s == PodStatus::kAllocated || s == PodStatus::kPipelined;
}

// Pods that physically hold resources on a node at the end of the cycle: a pod pipelined in this
// session (to another node, or from pending) and then evicted becomes Releasing there without
// ever having run (KAI's model keeps it as releasing capacity of that node); it holds nothing.
std::set<std::string> PhantomReleasing(const ClusterInfo& c,
                                       const std::map<std::string, PodStatus>& before,
                                       const std::map<std::string, std::string>& before_node,
                                       const testing::RecordingSink& sink) {
  std::set<std::string> bound;
  for (const auto& b : sink.binds) bound.insert(b.pod_key);
  std::set<std::string> out;
  for (const auto& t : c.tasks) {
    if (t->status != PodStatus::kReleasing) continue;
    const bool was_here = HoldsNow(before.at(t->key())) && before_node.at(t->key()) == t->node_name;
    if (!was_here && bound.count(t->key()) == 0) out.insert(t->key());
  }
  return out;
}

// What the pods on each node add up to, computed from their requests (not from NodeInfo).
std::map<std::string, NodeUse> UseByNode(const ClusterInfo& c, bool (*holds)(PodStatus),
                                         const std::set<std::string>& ignore) {
  std::map<std::string, NodeUse> out;
  for (const auto& t : c.tasks) {
    if (!holds(t->status) || t->node_name.empty() || ignore.count(t->key()) > 0) continue;
    const NodeInfo* node = c.FindNode(t->node_name);
    if (node == nullptr) continue;
    NodeUse& u = out[t->node_name];
    u.pods_list += " " + t->name() + "(" + std::string(PodStatusName(t->status));
    for (const auto& g : t->gpu_groups) u.pods_list += " " + g;
    u.pods_list += ")";
    if (t->is_reservation) {
      for (const auto& g : t->gpu_groups) u.reservations.insert(g);
      continue;
    }
    u.cpu += t->res_req.milli_cpu();
    u.memory += t->res_req.memory();
    u.pods += 1;
    if (t->IsSharedGpuRequest()) {
      const int64_t mem = node->ResourceGpuMemory(t->gpu_req);
      for (const auto& g : t->gpu_groups) u.group_memory[g] += mem;
    } else {
      u.whole_gpus += t->gpu_req.Gpus();
    }
    for (const auto& [profile, count] : t->gpu_req.MigResources()) u.mig[profile] += count;
  }
  return out;
}

// `now`: pods holding resources at this moment (reservation pods stay until garbage-collected);
// otherwise the pods that hold them once releasing pods are gone (every group in use then has
// exactly one reservation pod).
std::string CheckCapacity(const ClusterInfo& c, bool now,
                          const std::set<std::string>& ignore = {}) {
  std::ostringstream err;
  const char* what = now ? "now" : "after releases";
  for (const auto& [name, u] : UseByNode(c, now ? HoldsNow : HoldsLater, ignore)) {
    const NodeInfo& n = *c.FindNode(name);
    std::set<std::string> groups;
    for (const auto& [g, mem] : u.group_memory) groups.insert(g);
    if (now) groups.insert(u.reservations.begin(), u.reservations.end());
    const double num_groups = static_cast<double>(groups.size());
    if (u.cpu > n.allocatable.milli_cpu() + 1e-6) {
      err << name << " " << what << ": cpu " << u.cpu << "\n";
    }
    if (u.memory > n.allocatable.memory() + 1e-6) {
      err << name << " " << what << ": memory " << u.memory << "\n";
    }
    if (u.pods + num_groups > n.allocatable.pods()) {
      err << name << " " << what << ": pods " << u.pods << " + " << num_groups
          << " reservation pods > " << n.allocatable.pods() << ":" << u.pods_list << "\n";
    }
    if (u.whole_gpus + num_groups > static_cast<double>(n.NumberOfGpusInNode()) + 1e-9) {
      err << name << " " << what << ": GPUs " << u.whole_gpus << " whole + " << num_groups
          << " shared > " << n.NumberOfGpusInNode() << ":" << u.pods_list << "\n";
    }
    for (const auto& [g, mem] : u.group_memory) {
      if (mem > n.memory_of_every_gpu) {
        err << name << " " << what << ": group " << g << " holds " << mem << " MiB > "
            << n.memory_of_every_gpu << "\n";
      }
    }
    for (const auto& [profile, count] : u.mig) {
      const int idx = c.vector_map->Index(profile);
      if (count > n.allocatable.Get(idx)) err << name << " " << what << ": " << profile << "\n";
    }
  }
  return err.str();
}

// The incremental node accounting (used and releasing CPU, memory and pod slots) equals the sum
// over the entries the node holds, and every entry is a task placed on that node.
std::string CheckAccounting(const ClusterInfo& c) {
  std::ostringstream err;
  const int idx[3] = {kCpuIndex, kMemoryIndex, kPodsIndex};
  for (const auto& [name, n] : c.nodes) {
    double used[3] = {0, 0, 0}, releasing[3] = {0, 0, 0}, holding[3] = {0, 0, 0};
    for (const auto& [key, e] : n->tasks()) {
      // An entry is a task placed on this node, or a task evicted from it (still releasing
      // here) and pipelined to another node or GPU group.
      const bool here = e.task->node_name == name && IsActiveUsedStatus(e.task->status);
      // A pod evicted from this node keeps releasing here whatever happened to it afterwards.
      const bool moved_away = e.status == PodStatus::kReleasing && e.task->node_name != name;
      if (!here && !moved_away) {
        err << name << ": holds " << key << " (" << PodStatusName(e.status) << ") which is "
            << PodStatusName(e.task->status) << " on '" << e.task->node_name << "'\n";
      }
      for (int i = 0; i < 3; ++i) {
        const double v = e.tracked.Get(idx[i]);
        used[i] += v;
        if (e.status == PodStatus::kReleasing) releasing[i] += v;
        if (e.status == PodStatus::kPipelined) releasing[i] -= v;
        if (e.status != PodStatus::kPipelined) holding[i] += v;
      }
    }
    for (int i = 0; i < 3; ++i) {
      if (std::abs(n->used.Get(idx[i]) - used[i]) > 1e-3 ||
          std::abs(n->releasing.Get(idx[i]) - releasing[i]) > 1e-3 ||
          std::abs(n->idle.Get(idx[i]) - (n->allocatable.Get(idx[i]) - holding[i])) > 1e-3) {
        err << name << ": resource " << idx[i] << " used " << n->used.Get(idx[i]) << " vs "
            << used[i] << ", releasing " << n->releasing.Get(idx[i]) << " vs " << releasing[i]
            << ", idle " << n->idle.Get(idx[i]) << " vs " << n->allocatable.Get(idx[i]) - holding[i]
            << "\n";
      }
    }
  }
  for (const auto& t : c.tasks) {
    if (!IsActiveUsedStatus(t->status) || t->node_name.empty()) continue;
    const NodeInfo* n = c.FindNode(t->node_name);
    if (n != nullptr && !n->HasTask(t->key())) {
      err << t->key() << " is " << PodStatusName(t->status) << " on " << t->node_name
          << " but the node does not hold it\n";
    }
  }
  return err.str();
}

// Gangs: a job that was ready for scheduling and got new pods placed this cycle (Pending ->
// Binding / Allocated / Pipelined) has every PodSet at its minimum; a job that lost active pods
// to evictions is left at its minimum or without active pods (victims that are merely moved keep
// their count). A job that was not ready (an incomplete gang) can still see a pending pod
// pipelined when it is a victim that the simulation re-places with its pending pods, as KAI does.
std::string CheckGangs(const ClusterInfo& c, const std::map<std::string, PodStatus>& before,
                       const std::set<std::string>& ready_before) {
  std::ostringstream err;
  for (const auto& [id, job] : c.jobs) {
    if (ready_before.count(id) == 0) continue;
    bool placed = false;
    for (const PodInfo* t : job->tasks()) {
      const PodStatus was = before.at(t->key());
      const PodStatus now = t->status;
      placed = placed || ((was == PodStatus::kPending) &&
                          (now == PodStatus::kBinding || now == PodStatus::kAllocated ||
                           now == PodStatus::kPipelined));
    }
    for (const auto& [name, ps] : job->pod_sets()) {
      const int active = ps->NumActiveAllocated();
      int active_before = 0;
      for (const PodInfo* t : ps->tasks()) {
        if (IsActiveAllocatedStatus(before.at(t->key()))) ++active_before;
      }
      if (placed && active < ps->min_available()) {
        err << id << "/" << name << ": placed this cycle with " << active << " of minimum "
            << ps->min_available() << "\n";
      }
      if (active < active_before && active > 0 && active < ps->min_available()) {
        // (only reached for ready jobs; unready ones are skipped above)
        err << id << "/" << name << ": victim left with " << active << " of minimum "
            << ps->min_available() << " (had " << active_before << ")\n";
      }
    }
  }
  return err.str();
}

std::string Decisions(const testing::RecordingSink& sink) {
  std::string out;
  if (std::getenv("KAI_PROPERTY_DEBUG")) {
    for (const auto& l : sink.log) out += "  " + l + "\n";
  }
  for (const auto& b : sink.binds) {
    out += "bind " + b.pod_key + " " + b.node + " " + b.received_resource_type + " " +
           b.gpu_portion + " " + std::to_string(b.gpu_groups.size()) + "\n";
  }
  for (const auto& e : sink.evictions) out += "evict " + e.pod_key + " " + e.message + "\n";
  for (const auto& p : sink.pipelined) out += "pipeline " + p.pod_key + " " + p.node + "\n";
  return out;
}

constexpr int kClusters = 150;

// KAI_PROPERTY_SEED=<n> runs a single seed and writes its cluster to /tmp (debugging aid).
std::pair<uint64_t, uint64_t> SeedRange(uint64_t last) {
  if (const char* env = std::getenv("KAI_PROPERTY_SEED")) {
    uint64_t seed = std::strtoull(env, nullptr, 10);
    std::string path = "/tmp/kai-property-" + std::to_string(seed) + ".json";
    if (FILE* f = std::fopen(path.c_str(), "w")) {
      std::fputs(RandomCluster(seed).ToJson().c_str(), f);
      std::fclose(f);
    }
    return {seed, seed};
  }
  // KAI_PROPERTY_SEEDS=<n> explores more clusters than the default.
  if (const char* env = std::getenv("KAI_PROPERTY_SEEDS"))
    return {1, std::strtoull(env, nullptr, 10)};
  return {1, last};
}

TEST(SchedulerPropertyTest, FullCyclesNeverOverCommitAndKeepGangsWhole) {
  auto [first_seed, last_seed] = SeedRange(kClusters);
  for (uint64_t seed = first_seed; seed <= last_seed; ++seed) {
    TestCluster cluster = RandomCluster(seed);
    TestSession s(cluster);
    std::map<std::string, PodStatus> before;
    std::map<std::string, std::string> before_node;
    std::set<std::string> ready_before;
    for (const auto& [id, job] : s.cluster().jobs) {
      if (job->IsReadyForScheduling()) ready_before.insert(id);
    }
    for (const auto& t : s.cluster().tasks) {
      before[t->key()] = t->status;
      before_node[t->key()] = t->node_name;
    }
    const std::string initial = CheckCapacity(s.cluster(), /*now=*/true);
    ASSERT_EQ(initial, "") << "generator bug, seed " << seed;
    s.RunAll();
    const std::string now = CheckCapacity(
        s.cluster(), /*now=*/true, PhantomReleasing(s.cluster(), before, before_node, s.sink()));
    const std::string later = CheckCapacity(s.cluster(), /*now=*/false);
    const std::string accounting = CheckAccounting(s.cluster());
    const std::string gangs = CheckGangs(s.cluster(), before, ready_before);
    if (std::getenv("KAI_PROPERTY_DEBUG")) {
      std::fprintf(stderr, "%s\n", testing::ModelFingerprint(s.ssn()).c_str());
    }
    EXPECT_EQ(StrCat(now, later, accounting, gangs), "") << "seed " << seed << "\ndecisions:\n"
                                                         << Decisions(s.sink()) << "cluster:\n"
                                                         << cluster.ToJson();
  }
}

TEST(SchedulerPropertyTest, DecisionsDoNotDependOnInputOrderOrRepetition) {
  auto [first_seed, last_seed] = SeedRange(kClusters / 3);
  for (uint64_t seed = first_seed; seed <= last_seed; ++seed) {
    TestCluster cluster = RandomCluster(seed);
    std::string first;
    {
      TestSession s(cluster);
      s.RunAll();
      first = Decisions(s.sink());
    }
    {
      TestSession s(cluster);
      s.RunAll();
      EXPECT_EQ(Decisions(s.sink()), first) << "seed " << seed << " (repeated run)";
    }
    SeededRandom shuffle(seed * 7919);
    std::vector<size_t> order(cluster.NumObjects());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuffle.Uniform(i)]);
    TestSession s(cluster, order);
    s.RunAll();
    EXPECT_EQ(Decisions(s.sink()), first) << "seed " << seed << " (shuffled input)";
  }
}

// One operation of the discard test: the kind, the task, the node and the GPU groups chosen for
// a shared-GPU task.
struct StmtOp {
  char kind;  // 'a' allocate, 'p' pipeline, 'e' evict
  std::string task, node;
  std::vector<std::string> groups;
};

// GPU groups for a shared-GPU task on a node, chosen as the fractional allocator does (existing
// groups with room first, then fresh ids for whole free GPUs); empty when the node has too few.
std::vector<std::string> ChooseGroups(const Session& ssn, const NodeInfo& node, const PodInfo& t,
                                      int op) {
  std::vector<std::string> out;
  const auto devices = static_cast<size_t>(std::max<int64_t>(t.gpu_req.NumDevices(), 1));
  for (const std::string& g : ssn.FittingGpus(node, t)) {
    if (out.size() == devices) break;
    out.push_back(g == kWholeGpuIndicator
                      ? "stmt-" + std::to_string(op) + "-" + std::to_string(out.size())
                      : g);
  }
  if (out.size() < devices) out.clear();
  return out;
}

// Applies one operation if the node can take it (as the actions only try fitting placements).
bool ApplyOp(Statement* stmt, Session& ssn, const StmtOp& op) {
  PodInfo* t = ssn.cluster().FindTask(op.task);
  if (op.kind == 'e') return stmt->Evict(t, "x", {}).ok();
  if (!op.groups.empty()) t->gpu_groups = op.groups;
  Status s = op.kind == 'a' ? stmt->Allocate(t, op.node) : stmt->Pipeline(t, op.node, false);
  return s.ok();
}

std::vector<StmtOp> RandomOps(TestSession& s, uint64_t seed) {
  SeededRandom r(seed);
  std::vector<PodInfo*> tasks;
  for (const auto& t : s.cluster().tasks) {
    if (!t->job().empty()) tasks.push_back(t.get());
  }
  const NodeSet& nodes = s.cluster().node_list;
  auto stmt = s.ssn().NewStatement();
  std::vector<StmtOp> ops;
  for (int i = 0; i < 16 && !tasks.empty(); ++i) {
    PodInfo* t = tasks[r.Uniform(tasks.size())];
    NodeInfo* n = nodes[r.Uniform(nodes.size())];
    StmtOp op;
    op.task = t->key();
    op.node = n->name();
    if (t->status == PodStatus::kRunning || t->status == PodStatus::kPipelined ||
        t->status == PodStatus::kAllocated) {
      op.kind = 'e';
      op.node.clear();
      if (ApplyOp(stmt.get(), s.ssn(), op)) ops.push_back(op);
      continue;
    }
    const bool releasing = t->status == PodStatus::kReleasing && t->is_virtual_status;
    if (t->status != PodStatus::kPending && !releasing) continue;
    const bool fits_idle = n->IsTaskAllocatable(*t);
    if (!n->IsTaskAllocatableOnReleasingOrIdle(*t)) continue;
    op.kind = !releasing && fits_idle && Chance(&r, 0.6) ? 'a' : 'p';
    if (t->IsSharedGpuRequest()) {
      op.groups = ChooseGroups(s.ssn(), *n, *t, i);
      if (op.groups.empty()) continue;
    }
    if (ApplyOp(stmt.get(), s.ssn(), op)) ops.push_back(op);
  }
  stmt->Discard();
  for (const auto& t : s.cluster().tasks) {
    if (t->status == PodStatus::kPending) t->gpu_groups.clear();
  }
  return ops;
}

// Applies `ops` in one statement and discards it; returns the fingerprint afterwards.
std::string ApplyAndDiscard(TestSession& s, const std::vector<StmtOp>& ops) {
  auto stmt = s.ssn().NewStatement();
  for (const StmtOp& op : ops) {
    ApplyOp(stmt.get(), s.ssn(), op);
    if (std::getenv("KAI_PROPERTY_DEBUG")) {
      std::fprintf(stderr, "after %c %s %s:\n%s\n", op.kind, op.task.c_str(), op.node.c_str(),
                   testing::ModelFingerprint(s.ssn()).c_str());
    }
  }
  stmt->Discard();
  for (const auto& t : s.cluster().tasks) {
    if (t->status == PodStatus::kPending) t->gpu_groups.clear();
  }
  return testing::ModelFingerprint(s.ssn());
}

TEST(SchedulerPropertyTest, DiscardedStatementsLeaveNoTrace) {
  auto [first_seed, last_seed] = SeedRange(kClusters);
  for (uint64_t seed = first_seed; seed <= last_seed; ++seed) {
    TestCluster cluster = RandomCluster(seed);
    std::vector<StmtOp> ops;
    std::string before;
    {
      TestSession s(cluster);
      before = testing::ModelFingerprint(s.ssn());
      ops = RandomOps(s, seed);
      if (testing::ModelFingerprint(s.ssn()) == before) continue;
    }
    // Shortest failing prefix, for the report.
    size_t k = 1;
    for (; k <= ops.size(); ++k) {
      TestSession s(cluster);
      std::vector<StmtOp> prefix(ops.begin(), ops.begin() + k);
      if (ApplyAndDiscard(s, prefix) != before) break;
    }
    std::string log;
    for (size_t i = 0; i < k && i < ops.size(); ++i) {
      log += std::string(1, ops[i].kind) + " " + ops[i].task + " " + ops[i].node;
      for (const auto& g : ops[i].groups) log += " " + g;
      log += "\n";
    }
    TestSession s(cluster);
    std::vector<StmtOp> prefix(ops.begin(), ops.begin() + std::min(k, ops.size()));
    EXPECT_EQ(ApplyAndDiscard(s, prefix), before) << "seed " << seed << ", operations:\n" << log;
  }
}

}  // namespace
}  // namespace kai::scheduler
