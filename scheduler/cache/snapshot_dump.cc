#include "scheduler/cache/snapshot_dump.h"

#include <chrono>
#include <cstdio>
#include <sstream>

namespace kai::scheduler {

namespace {

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string Vec(const ResourceVector& v) {
  std::string s = "[";
  for (double x : v.values()) s += Num(x) + ",";
  return s + "]";
}

std::string Gpu(const GpuRequirement& g) {
  std::string s = "{" + std::to_string(g.NumDevices()) + "x" + Num(g.Portion()) + " mem " +
                  std::to_string(g.GpuMemory());
  for (const auto& [k, v] : g.MigResources()) s += " " + k + "=" + std::to_string(v);
  return s + "}";
}

std::string Time(WallTime t) {
  return std::to_string(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

template <typename T>
std::string OptTime(const std::optional<T>& t) {
  return t ? Time(*t) : "-";
}

// The key of a task pointer, marked when the pointer is not this snapshot's task of that key.
std::string TaskRef(const ClusterInfo& c, const PodInfo* t) {
  if (t == nullptr) return "<null>";
  return c.FindTask(t->key()) == t ? t->key() : "FOREIGN:" + t->key();
}

void DumpSubGroups(const ClusterInfo& c, const SubGroupSet& s, const std::string& indent,
                   std::ostringstream& o) {
  o << indent << "subgroupset " << s.name() << " topology "
    << (s.topology() ? s.topology()->topology + "/" + s.topology()->required_level + "/" +
                           s.topology()->preferred_level
                     : "-")
    << "\n";
  for (const auto& p : s.pod_sets()) {
    o << indent << "  podset " << p->name() << " min " << p->min_available() << " topology "
      << (p->topology() ? p->topology()->topology + "/" + p->topology()->required_level + "/" +
                              p->topology()->preferred_level
                        : "-")
      << " tasks";
    for (const PodInfo* t : p->tasks()) o << " " << TaskRef(c, t);
    o << "\n";
  }
  for (const auto& child : s.child_sets()) DumpSubGroups(c, *child, indent + "  ", o);
}

}  // namespace

std::string DumpSnapshot(const ClusterInfo& c) {
  std::ostringstream o;
  o << "resources";
  for (const auto& n : c.vector_map->names()) o << " " << n;
  o << "\n";
  for (const auto& t : c.tasks) {
    o << "task " << t->key() << " uid " << t->uid() << " job " << t->job() << " subgroup "
      << t->subgroup_name() << " pod " << t->pod_ptr().get() << " created "
      << Time(t->creation_time()) << " status " << PodStatusName(t->status) << " node "
      << t->node_name << " virtual " << t->is_virtual_status << " legacy_mig " << t->is_legacy_mig
      << " request_type " << static_cast<int>(t->request_type) << " received "
      << static_cast<int>(t->received_type) << " res_req " << Vec(t->res_req) << " accepted "
      << Vec(t->accepted) << " gpu_req " << Gpu(t->gpu_req) << " accepted_gpu "
      << Gpu(t->accepted_gpu) << " groups";
    for (const auto& g : t->gpu_groups) o << " " << g;
    o << " bind_request " << t->has_bind_request << " reservation " << t->is_reservation
      << " other_scheduler " << t->of_other_scheduler << "\n";
  }
  // FindTask's two key-ordered runs: every task must be found as itself.
  o << "reservation_tasks " << c.num_reservation_tasks << " not_found_by_key";
  for (const auto& t : c.tasks) {
    if (c.FindTask(t->key()) != t.get()) o << " " << t->key();
  }
  o << "\n";
  for (const auto& [name, n] : c.nodes) {
    o << "node " << name << " object " << n->node_ptr().get() << " rank " << n->name_rank()
      << " alloc " << Vec(n->allocatable) << " idle " << Vec(n->idle) << " used " << Vec(n->used)
      << " releasing " << Vec(n->releasing) << " max_tasks " << n->max_task_num << " gpu_mem "
      << n->memory_of_every_gpu << " synced " << n->gpu_memory_synced << " vector_map_ok "
      << (&n->vector_map() == c.vector_map.get()) << " missing_reservations "
      << n->NumGroupsWithoutReservationPod() << "\n  releasing_shared";
    for (const auto& g : n->releasing_shared_gpus) o << " " << g;
    o << "\n  used_shared";
    for (const auto& [g, m] : n->used_shared_gpus_memory) o << " " << g << "=" << m;
    o << "\n  releasing_shared_memory";
    for (const auto& [g, m] : n->releasing_shared_gpus_memory) o << " " << g << "=" << m;
    o << "\n  allocated_shared";
    for (const auto& [g, m] : n->allocated_shared_gpus_memory) o << " " << g << "=" << m;
    o << "\n  legacy_mig";
    for (const auto& [u, k] : n->legacy_mig_tasks) o << " " << u << "=" << k;
    o << "\n";
    for (const auto& [key, e] : n->tasks()) {
      o << "  entry " << key << " task " << TaskRef(c, e.task) << " status "
        << PodStatusName(e.status) << " virtual " << e.is_virtual_status << " shared "
        << e.shared_allocation << " reservation " << e.reservation << " other_scheduler "
        << e.other_scheduler << " tracked " << Vec(e.tracked) << " gpu_memory " << e.gpu_memory
        << " groups";
      for (const auto& g : e.groups) o << " " << g;
      o << "\n";
    }
  }
  o << "node_list";
  for (const NodeInfo* n : c.node_list) {
    o << " " << n->name() << (c.FindNode(n->name()) == n ? "" : "(FOREIGN)");
  }
  o << "\n";
  for (const auto& [id, j] : c.jobs) {
    // The PodGroup by version, not by pointer: the live scheduler's overlay makes a new merged
    // object per call.
    o << "job " << id << " uid " << j->uid() << " pg_version "
      << j->podgroup().metadata.resource_version << " queue " << j->queue() << " priority "
      << j->priority() << " preemptible " << j->IsPreemptible() << " created "
      << Time(j->creation_time()) << " last_start " << OptTime(j->last_start_timestamp)
      << " stale_ts " << OptTime(j->stale_timestamp) << " stale " << j->stale << " implicit "
      << j->implicit << " queue_memo " << j->queue_resolved << "\n  tasks";
    for (const PodInfo* t : j->tasks()) o << " " << TaskRef(c, t);
    o << "\n  invalid";
    for (const PodInfo* t : j->invalid_subgroup_tasks()) o << " " << TaskRef(c, t);
    o << "\n  podsets";
    for (const auto& [name, p] : j->pod_sets()) o << " " << name << "=" << p->name();
    o << "\n";
    DumpSubGroups(c, *j->root(), "  ", o);
    for (const auto& e : j->job_fit_errors) {
      o << "  job_error " << e.reason << ": " << e.message << " details " << e.details.has_value()
        << "\n";
    }
    for (const auto& [uid, e] : j->task_fit_errors)
      o << "  task_error " << uid << ": " << e.Message() << "\n";
  }
  for (const auto& [name, q] : c.queues) {
    const QueueQuota& qq = q->quota();
    o << "queue " << name << " uid " << q->uid() << " name " << q->name() << " parent "
      << q->parent() << " object " << q->queue() << " priority " << q->priority() << " created "
      << Time(q->creation_time()) << " quota";
    for (const QueueResourceQuota* r : {&qq.gpu, &qq.cpu, &qq.memory}) {
      o << " " << Num(r->quota) << "/" << Num(r->over_quota_weight) << "/" << Num(r->limit);
    }
    o << " preempt_min "
      << (q->preempt_min_runtime() ? std::to_string(q->preempt_min_runtime()->count()) : "-")
      << " reclaim_min "
      << (q->reclaim_min_runtime() ? std::to_string(q->reclaim_min_runtime()->count()) : "-")
      << " children";
    for (const auto& ch : q->children()) o << " " << ch;
    o << "\n";
  }
  o << "topologies";
  for (const auto& [name, t] : c.topologies) o << " " << name << "@" << t.get();
  o << "\nconfig_maps";
  for (const auto& k : c.config_maps) o << " " << k;
  o << "\nstale_bind_requests";
  for (const auto& b : c.stale_bind_requests) o << " " << b.key << "@" << b.uid;
  o << "\nmin_node_gpu_memory " << (c.min_node_gpu_memory ? *c.min_node_gpu_memory : -1)
    << "\njobs_pending_at_open " << c.jobs_pending_at_open.size() << " "
    << c.jobs_pending_at_open_set << " " << c.num_jobs_at_open << "\nqueue_usage";
  for (const auto& [q, m] : c.queue_usage) {
    for (const auto& [r, v] : m) o << " " << q << "/" << r << "=" << Num(v);
  }
  o << "\n";
  return o.str();
}

std::string FirstSnapshotDifference(const ClusterInfo& expected, const ClusterInfo& actual) {
  std::istringstream a(DumpSnapshot(expected));
  std::istringstream b(DumpSnapshot(actual));
  std::string la, lb;
  int line = 0;
  while (true) {
    bool ga = static_cast<bool>(std::getline(a, la));
    bool gb = static_cast<bool>(std::getline(b, lb));
    ++line;
    if (!ga && !gb) return "";
    if (!ga) la = "<end>";
    if (!gb) lb = "<end>";
    if (la != lb || !ga || !gb) {
      return std::string("line ")
          .append(std::to_string(line))
          .append(":\n  expected: ")
          .append(la)
          .append("\n  actual:   ")
          .append(lb);
    }
  }
}

}  // namespace kai::scheduler
