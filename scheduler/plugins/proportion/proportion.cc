#include "scheduler/plugins/proportion/proportion.h"

#include <glog/logging.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "scheduler/actions/common/allocation.h"
#include "scheduler/framework/job_state_generation.h"
#include "scheduler/plugins/proportion/messages/format.h"
#include "scheduler/plugins/proportion/queue_order/queue_order.h"
#include "scheduler/plugins/proportion/reclaimable/victim_chunks.h"

namespace kai::scheduler {

namespace p = ::kai::proportion;

namespace {

constexpr char kScalingPodAppLabelValue[] = "scaling-pod";

std::optional<double> ParseDouble(const PluginArguments& args, const std::string& key) {
  auto it = args.find(key);
  if (it == args.end()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0') {
    LOG(WARNING) << "proportion: failed to parse " << key << "=\"" << it->second
                 << "\", using the default";
    return std::nullopt;
  }
  return v;
}

QueueQuantities ToQueueQuantities(const p::ResourceQuantities& q) {
  return {q.gpu(), q.cpu(), q.memory()};
}

std::map<std::string, double> ToMap(const p::ResourceQuantities& q) {
  return ToQueueQuantities(q).ToMap();
}

bool IsKaiUtilityPod(const PodInfo& task, const SchedulerParams& params) {
  if (task.is_reservation) return true;
  const auto& labels = task.pod().metadata.labels;
  auto it = labels.find("app");
  return it != labels.end() && (it->second == params.resource_reservation_app_label ||
                                it->second == kScalingPodAppLabelValue);
}

}  // namespace

p::ResourceQuantities Quantify(const ResourceVector& v, const ResourceVectorMap& map) {
  return p::ResourceQuantities::Of(v.milli_cpu(), v.memory(), v.TotalGpus(map));
}

p::ResourceMask InvolvedResources(const ResourceVector& v) {
  p::ResourceMask mask = 0;
  if (v.milli_cpu() > 0) mask |= p::Bit(p::ResourceName::kCpu);
  if (v.memory() > 0) mask |= p::Bit(p::ResourceName::kMemory);
  if (v.gpu() > 0) mask |= p::Bit(p::ResourceName::kGpu);
  return mask;
}

ProportionPlugin::ProportionPlugin(const PluginArguments& args) {
  // KAI reads the misspelled key; its docs name it reclaimerUtilizationMultiplier.
  std::optional<double> multiplier = ParseDouble(args, "relcaimerSaturationMultiplier");
  if (!multiplier && !args.count("relcaimerSaturationMultiplier")) {
    multiplier = ParseDouble(args, "reclaimerUtilizationMultiplier");
  }
  double m = multiplier.value_or(p::kDefaultSaturationMultiplier);
  if (m < 1.0) {
    LOG(WARNING) << "proportion: relcaimerSaturationMultiplier must be >= 1.0, got " << m
                 << ". Using default value of 1.0";
    m = 1.0;
  }
  reclaimable_ = p::Reclaimable(m);

  double k = ParseDouble(args, "kValue").value_or(1.0);
  if (k <= 0.0) {
    LOG(WARNING) << "proportion: kValue must be > 0.0, got " << k << ". Setting as 0";
    k = 0.0;
  }
  division_.k_value = k;
  if (auto it = args.find("queuePriorityInQuotaReclaim");
      it != args.end() && (it->second == "true" || it->second == "True" || it->second == "1")) {
    LOG(WARNING) << "proportion: queuePriorityInQuotaReclaim is not supported and is ignored";
  }
}

void ProportionPlugin::OnSessionOpen(Session* ssn) {
  queues_ = p::QueueTable();
  simulation_queues_ = p::QueueTable();
  index_by_queue_.clear();
  allow_consolidating_reclaim_ = ssn->params().allow_consolidating_reclaim;

  BuildTotals(*ssn);
  if (Status s = BuildQueues(*ssn); !s.ok()) {
    LOG(ERROR) << "proportion: " << s;
  }
  AccumulateJobs(*ssn);
  p::SetFairShare(queues_, total_, division_);
  order_key_memo_.assign(queues_.size(), OrderKeyMemo{});
  job_key_memo_.assign(ssn->cluster().jobs.size(), JobKeyMemo{});
  allocated_memo_.assign(ssn->cluster().jobs.size(), AllocatedMemo{});
  queue_generation_.assign(queues_.size(), 1);
  capacity_ = std::make_unique<p::CapacityPolicy>(&queues_);
  RegisterHooks(ssn);
  VLOG(3) << "proportion: total " << total_.ToString() << ", " << ssn->cluster().nodes.size()
          << " nodes, " << queues_.size() << " queues";
}

void ProportionPlugin::OnSessionClose(Session* ssn) {
  // Hooks hold `this`; the session dies with them. The numbers stay readable for reports.
  simulation_queues_ = p::QueueTable();
}

void ProportionPlugin::BuildTotals(const Session& ssn) {
  const SchedulerParams& params = ssn.params();
  const ResourceVectorMap& map = *ssn.cluster().vector_map;
  total_ = p::ResourceQuantities{};
  for (const NodeInfo* node : ssn.cluster().node_list) {
    if (!node->facts().ready) continue;
    p::ResourceQuantities node_total = Quantify(node->allocatable, map);
    const auto& labels = node->node().metadata.labels;
    if (params.restrict_node_scheduling && !labels.count(params.gpu_worker_node_label_key)) {
      node_total[p::ResourceName::kGpu] = 0;
    }
    // Pods of other schedulers hold resources this scheduler cannot divide.
    DCHECK_EQ(node->HasOtherSchedulerTasks(),
              std::any_of(node->tasks().begin(), node->tasks().end(),
                          [](const auto& kv) { return kv.second.other_scheduler; }))
        << node->name();
    if (!node->HasOtherSchedulerTasks()) {
      total_.Add(node_total);
      continue;
    }
    for (const auto& [key, entry] : node->tasks()) {
      DCHECK_EQ(entry.other_scheduler,
                entry.task->pod().spec.scheduler_name != params.scheduler_name)
          << key;
      if (!entry.other_scheduler) continue;  // the common case, without reading the task
      const PodInfo& task = *entry.task;
      if (!IsActiveUsedStatus(entry.status) || IsKaiUtilityPod(task, params)) continue;
      node_total.Sub(Quantify(task.res_req, map));
    }
    total_.Add(node_total);
  }
}

Status ProportionPlugin::BuildQueues(const Session& ssn) {
  std::vector<p::QueueAttributes> attrs;
  attrs.reserve(ssn.cluster().queues.size());
  for (const auto& [uid, queue] : ssn.cluster().queues) {
    p::QueueAttributes a;
    a.uid = queue->uid();
    a.name = queue->name();
    a.display_name = queue->queue() != nullptr ? queue->queue()->spec.display_name : "";
    a.parent = queue->parent();
    a.creation_time = queue->creation_time();
    a.priority = queue->priority();
    const QueueQuota& quota = queue->quota();
    a.SetQuotaResources(p::ResourceName::kCpu, quota.cpu.quota, quota.cpu.limit,
                        quota.cpu.over_quota_weight);
    a.SetQuotaResources(p::ResourceName::kMemory, quota.memory.quota, quota.memory.limit,
                        quota.memory.over_quota_weight);
    a.SetQuotaResources(p::ResourceName::kGpu, quota.gpu.quota, quota.gpu.limit,
                        quota.gpu.over_quota_weight);
    if (auto u = ssn.cluster().queue_usage.find(a.uid); u != ssn.cluster().queue_usage.end()) {
      auto get = [&](const char* k) {
        auto it = u->second.find(k);
        return it == u->second.end() ? 0.0 : it->second;
      };
      a.share(p::ResourceName::kGpu).usage = get("gpu");
      a.share(p::ResourceName::kCpu).usage = get("cpu");
      a.share(p::ResourceName::kMemory).usage = get("memory");
    }
    attrs.push_back(std::move(a));
  }
  StatusOr<p::QueueTable> table = p::QueueTable::Build(std::move(attrs));
  if (!table.ok()) return table.status();
  queues_ = std::move(table).value();
  index_by_queue_.assign(ssn.cluster().queues.size(), {nullptr, p::kNoQueue});
  for (const auto& [uid, queue] : ssn.cluster().queues) {
    const int at = queue->session_index();
    if (at >= 0 && static_cast<size_t>(at) < index_by_queue_.size()) {
      index_by_queue_[at] = {queue.get(), queues_.Find(queue->uid())};
    }
  }
  return Status::OK();
}

void ProportionPlugin::AccumulateJobs(const Session& ssn) {
  const ClusterInfo& c = ssn.cluster();
  const ResourceVectorMap& map = *c.vector_map;
  for (const auto& [id, job] : c.jobs) {
    const p::QueueIndex q = queues_.Find(job->queue());
    if (q == p::kNoQueue) continue;
    const bool non_preemptible = !job->IsPreemptible();
    for (const PodInfo* t : job->tasks()) {
      if (IsAllocatedStatus(t->status)) {
        queues_.AddAllocatedTask(q, Quantify(t->accepted, map), non_preemptible);
      } else if (t->status == PodStatus::kPending) {
        p::ResourceQuantities requested = Quantify(t->res_req, map);
        if (t->IsGpuMemoryRequest() && c.min_node_gpu_memory) {
          requested[p::ResourceName::kGpu] +=
              t->gpu_req.GpuMemoryAsFraction(*c.min_node_gpu_memory);
        }
        queues_.AddPendingTask(q, requested);
      }
    }
  }
}

p::QueueIndex ProportionPlugin::IndexOf(const QueueInfo& q) const {
  const int at = q.session_index();
  if (at >= 0 && static_cast<size_t>(at) < index_by_queue_.size() &&
      index_by_queue_[at].first == &q) {
    return index_by_queue_[at].second;
  }
  return queues_.Find(q.uid());
}

p::QueueIndex ProportionPlugin::IndexOfJob(const Session& ssn, const PodGroupInfo& job) const {
  // Through the job's memoized queue: a lookup by name per allocation was visible in simulations.
  const QueueInfo* q = ssn.cluster().QueueOf(job);
  const p::QueueIndex i = q != nullptr ? IndexOf(*q) : queues_.Find(job.queue());
  DCHECK_EQ(i, queues_.Find(job.queue())) << "queue index of job " << job.uid();
  return i;
}

p::ResourceQuantities ProportionPlugin::JobInitResources(const Session& ssn,
                                                         const PodGroupInfo& job,
                                                         p::ResourceMask* involved) const {
  const ResourceVector& v = GetTasksToAllocateInitResource(ssn, job, /*real_allocation=*/false);
  if (involved != nullptr) *involved = InvolvedResources(v);
  return Quantify(v, *ssn.cluster().vector_map);
}

p::ReclaimerInfo ProportionPlugin::BuildReclaimerInfo(const Session& ssn,
                                                      const PodGroupInfo& job) const {
  p::ReclaimerInfo r;
  r.name = job.name();
  r.namespace_name = job.namespace_();
  r.queue = IndexOfJob(ssn, job);
  r.is_preemptible = job.IsPreemptible();
  r.required = JobInitResources(ssn, job, &r.involved);
  return r;
}

p::ResourceQuantities ProportionPlugin::RequiredQuota(const Session& ssn,
                                                      const std::vector<PodInfo*>& tasks) const {
  const ClusterInfo& c = ssn.cluster();
  p::ResourceQuantities quota;
  for (const PodInfo* t : tasks) {
    const p::ResourceQuantities q = Quantify(t->res_req, *c.vector_map);
    quota[p::ResourceName::kCpu] += q.cpu();
    quota[p::ResourceName::kMemory] += q.memory();
    if (t->IsGpuMemoryRequest()) {
      if (c.min_node_gpu_memory) {
        quota[p::ResourceName::kGpu] += t->gpu_req.GpuMemoryAsFraction(*c.min_node_gpu_memory);
      }
    } else {
      quota[p::ResourceName::kGpu] += q.gpu();
    }
  }
  return quota;
}

SchedulableResult ProportionPlugin::Convert(const p::SchedulableResult& r) const {
  SchedulableResult out;
  out.schedulable = r.schedulable;
  if (r.schedulable) return out;
  out.reason = std::string(p::UnschedulableReasonString(r.reason));
  out.message = r.message;
  if (r.details) {
    QueueDetails d;
    d.name = r.details->queue_uid;
    d.requested = ToMap(r.details->queue_requested);
    d.deserved = ToMap(r.details->queue_deserved);
    d.allocated = ToMap(r.details->queue_allocated);
    d.allocated_non_preemptible = ToMap(r.details->queue_allocated_non_preemptible);
    d.limits = ToMap(r.details->queue_limits);
    d.podgroup_requested = ToMap(r.details->podgroup_requested);
    d.podgroup_requested_non_preemptible = ToMap(r.details->podgroup_requested_non_preemptible);
    out.details = std::move(d);
  }
  return out;
}

bool ProportionPlugin::ValidateReclaimScenario(const Session& ssn,
                                               const ScenarioInfo& scenario) const {
  const p::QueueTable& queues = simulation_queues_.empty() ? queues_ : simulation_queues_;
  const ResourceVectorMap& map = *ssn.cluster().vector_map;
  p::ReclaimerInfo reclaimer = BuildReclaimerInfo(ssn, scenario.GetPreemptor());

  // Chunks grouped by victim queue, queues in order of first appearance.
  std::vector<p::VictimQueueChunks> by_queue;
  // Buffers reused from victim to victim (a long search's scenarios hold hundreds of victims).
  std::vector<p::VictimTask> tasks;
  std::vector<p::VictimChunk> chunks;
  auto add_victim = [&](const VictimInfo& victim) {
    const PodGroupInfo* job = victim.representative != nullptr ? victim.representative : victim.job;
    if (job == nullptr) return;
    // Moved tasks are left out of the chunks, so a victim job whose tasks all stay active-allocated
    // (most of a long search's potential victims: a simulation evicts those of one node) adds none.
    if (allow_consolidating_reclaim_ &&
        std::all_of(victim.tasks.begin(), victim.tasks.end(),
                    [](const PodInfo* t) { return IsActiveAllocatedStatus(t->status); })) {
      return;
    }
    tasks.clear();
    for (const PodInfo* t : victim.tasks) {
      p::VictimTask& vt = tasks.emplace_back();
      vt.subgroup = t->subgroup_name();
      vt.accepted = Quantify(t->accepted, map);
      vt.involved = InvolvedResources(t->accepted);
      vt.active_allocated = IsActiveAllocatedStatus(t->status);
    }
    chunks.clear();
    p::AppendVictimChunks(
        tasks,
        [job](std::string_view subgroup) {
          const PodSet* ps = job->FindPodSet(subgroup);
          return ps == nullptr ? -1 : static_cast<int>(ps->min_available());
        },
        allow_consolidating_reclaim_, &chunks);
    if (chunks.empty()) return;
    const p::QueueIndex q = queues.Find(job->queue());
    auto it = std::find_if(by_queue.begin(), by_queue.end(),
                           [q](const p::VictimQueueChunks& v) { return v.queue == q; });
    if (it == by_queue.end()) {
      by_queue.push_back({q, {}});
      it = by_queue.end() - 1;
    }
    it->chunks.insert(it->chunks.end(), chunks.begin(), chunks.end());
  };
  // With moved tasks left out, only the victims the simulation touched can add chunks.
  const std::vector<const VictimInfo*>* touched =
      allow_consolidating_reclaim_ ? scenario.SimulationTouchedVictims() : nullptr;
  if (touched != nullptr) {
    for (const VictimInfo* v : *touched) add_victim(*v);
  } else {
    for (const auto& [id, victim] : scenario.GetVictims()) add_victim(victim);
  }
  const bool valid = reclaimable_.IsReclaimable(queues, reclaimer, by_queue);
#ifndef NDEBUG
  if (touched != nullptr) {
    const size_t chunk_queues = by_queue.size();
    by_queue.clear();
    for (const auto& [id, victim] : scenario.GetVictims()) add_victim(victim);
    CHECK_EQ(by_queue.size(), chunk_queues) << "an untouched victim of the simulation adds chunks";
    CHECK_EQ(valid, reclaimable_.IsReclaimable(queues, reclaimer, by_queue))
        << "the touched victims validate otherwise than all of them";
  }
#endif
  return valid;
}

void ProportionPlugin::OnAllocate(const Session& ssn, const PodInfo& task, bool add) {
  const PodGroupInfo* job = ssn.cluster().JobOf(task);
  if (job == nullptr) return;
  const p::QueueIndex q = IndexOfJob(ssn, *job);
  if (q == p::kNoQueue) return;
  const p::ResourceQuantities resources = Quantify(task.accepted, *ssn.cluster().vector_map);
  // The queue and its ancestors change; every other queue keeps its order key.
  queues_.ForSelfAndAncestors(q, [this](p::QueueIndex a) { ++queue_generation_[a]; });
  if (add) {
    queues_.AddAllocated(q, resources, !job->IsPreemptible());
  } else {
    queues_.SubAllocated(q, resources, !job->IsPreemptible());
  }
}

const p::QueueOrderKey& ProportionPlugin::OrderKeyOf(p::QueueIndex q,
                                                     const p::ResourceQuantities* job) {
  OrderKeyMemo& m = order_key_memo_[q];
  const std::optional<p::ResourceQuantities> candidate =
      job != nullptr ? std::optional(*job) : std::nullopt;
  if (m.generation != queue_generation_[q] || m.job != candidate) {
    if (m.base_generation != queue_generation_[q]) {
      m.base = p::QueueOrderBaseOf(queues_[q], total_);
      m.base_generation = queue_generation_[q];
    }
    m.key = p::QueueOrderKeyOf({&queues_[q], job, {}}, total_, m.base);
    m.generation = queue_generation_[q];
    m.job = candidate;
  }
  DCHECK(m.key == p::QueueOrderKeyOf({&queues_[q], job, {}}, total_))
      << "stale queue-order key of queue " << q;
  return m.key;
}

const p::QueueOrderKey& ProportionPlugin::OrderKeyOfJob(const Session& ssn, p::QueueIndex q,
                                                        const PodGroupInfo* job) {
  // Only session jobs (status_version != 0) have a session index; copies made during the session
  // (partial jobs, victim representatives) take the per-queue memo.
  const bool session_job =
      job != nullptr && job->status_version != 0 && job->session_index < job_key_memo_.size();
  if (!session_job) {
    std::optional<p::ResourceQuantities> resources;
    if (job != nullptr) resources = JobInitResources(ssn, *job, nullptr);
    return OrderKeyOf(q, resources ? &*resources : nullptr);
  }
  JobKeyMemo& jm = job_key_memo_[job->session_index];
  if (!JobStateStampHolds(*job, jm.stamp)) {
    jm = JobKeyMemo{};
    jm.stamp = CurrentJobStateStamp(*job);
  }
  JobKeyMemo::Entry* slot = nullptr;
  for (JobKeyMemo::Entry& e : jm.entries) {
    if (e.queue != q) continue;
    if (e.generation == queue_generation_[q]) {
#ifndef NDEBUG
      const p::ResourceQuantities now = JobInitResources(ssn, *job, nullptr);
      CHECK(e.key == p::QueueOrderKeyOf({&queues_[q], &now, {}}, total_))
          << "stale queue-order key of queue " << q << " for job " << job->uid();
#endif
      return e.key;
    }
    slot = &e;
  }
  if (slot == nullptr) {
    slot = &jm.entries[jm.next];
    jm.next = static_cast<uint8_t>((jm.next + 1) % JobKeyMemo::kEntries);
  }
  const p::ResourceQuantities resources = JobInitResources(ssn, *job, nullptr);
  slot->queue = q;
  slot->generation = queue_generation_[q];
  slot->key = OrderKeyOf(q, &resources);
  return slot->key;
}

p::ResourceQuantities ProportionPlugin::AllocatedOfJob(const Session& ssn,
                                                       const PodGroupInfo& job) {
  const ResourceVectorMap& map = *ssn.cluster().vector_map;
  auto allocated = [&] { return Quantify(job.AllocatedResources(map.size()), map); };
  if (job.status_version == 0 || job.session_index >= allocated_memo_.size()) return allocated();
  AllocatedMemo& m = allocated_memo_[job.session_index];
  if (!JobStatusStampHolds(job, m.stamp)) {
    m.allocated = allocated();
    m.stamp = CurrentJobStateStamp(job);
  }
  DCHECK(m.allocated == allocated()) << "stale allocated resources of job " << job.uid();
  return m.allocated;
}

void ProportionPlugin::RegisterHooks(Session* ssn) {
  ssn->AddQueueOrderFn([this, ssn](const QueueInfo& l, const QueueInfo& r,
                                   const PodGroupInfo* l_job, const PodGroupInfo* r_job,
                                   const std::vector<const PodGroupInfo*>& l_victims,
                                   const std::vector<const PodGroupInfo*>& r_victims) {
    const p::QueueIndex li = IndexOf(l);
    if (li == p::kNoQueue) return p::kRightQueueFirst;
    const p::QueueIndex ri = IndexOf(r);
    if (ri == p::kNoQueue) return p::kLeftQueueFirst;
    auto victims = [&](const std::vector<const PodGroupInfo*>& jobs) {
      std::vector<p::ResourceQuantities> out;
      out.reserve(jobs.size());
      for (const PodGroupInfo* v : jobs) out.push_back(AllocatedOfJob(*ssn, *v));
      return out;
    };
    if (l_victims.empty() && r_victims.empty()) {
      // A copy: the second lookup may rewrite the first's memo (one queue on both sides).
      const p::QueueOrderKey l_key = OrderKeyOfJob(*ssn, li, l_job);
      return p::CompareQueueKeys(l_key, OrderKeyOfJob(*ssn, ri, r_job));
    }
    std::optional<p::ResourceQuantities> lj;
    std::optional<p::ResourceQuantities> rj;
    if (l_job != nullptr) lj = JobInitResources(*ssn, *l_job, nullptr);
    if (r_job != nullptr) rj = JobInitResources(*ssn, *r_job, nullptr);
    const std::vector<p::ResourceQuantities> lv = victims(l_victims);
    const std::vector<p::ResourceQuantities> rv = victims(r_victims);
    return p::CompareQueues({&queues_[li], lj ? &*lj : nullptr, lv},
                            {&queues_[ri], rj ? &*rj : nullptr, rv}, total_);
  });
  ssn->AddCanReclaimResourcesFn([this, ssn](const PodGroupInfo& reclaimer) {
    return reclaimable_.CanReclaimResources(queues_, BuildReclaimerInfo(*ssn, reclaimer));
  });
  ssn->AddReclaimScenarioValidatorFn([this, ssn](const ScenarioInfo& scenario) {
    return ValidateReclaimScenario(*ssn, scenario);
  });
  ssn->AddOnJobSolutionStartFn([this] { simulation_queues_ = queues_; });
  ssn->AddIsNonPreemptibleJobOverQueueQuotaFn(
      [this, ssn](const PodGroupInfo& job, const std::vector<PodInfo*>& tasks) {
        return Convert(capacity_->IsNonPreemptibleJobOverQuota(
            IndexOfJob(*ssn, job), job.IsPreemptible(), RequiredQuota(*ssn, tasks)));
      });
  ssn->AddIsJobOverCapacityFn(
      [this, ssn](const PodGroupInfo& job, const std::vector<PodInfo*>& tasks) {
        return Convert(capacity_->IsJobOverQueueCapacity(IndexOfJob(*ssn, job), job.IsPreemptible(),
                                                         RequiredQuota(*ssn, tasks)));
      });
  ssn->AddIsTaskAllocationOnNodeOverCapacityFn(
      [this, ssn](const PodInfo& task, const PodGroupInfo& job, const NodeInfo& node) {
        const ResourceVector quota = node.RequiredInitQuota(task);
        return Convert(capacity_->IsTaskAllocationOnNodeOverCapacity(
            IndexOfJob(*ssn, job), job.IsPreemptible(),
            p::ResourceQuantities::Of(quota.milli_cpu(), quota.memory(), quota.gpu())));
      });
  EventHandler handler;
  handler.allocate = [this, ssn](const PodInfo& task) { OnAllocate(*ssn, task, true); };
  handler.deallocate = [this, ssn](const PodInfo& task) { OnAllocate(*ssn, task, false); };
  ssn->AddEventHandler(std::move(handler));
  auto queue_numbers = [this](p::ResourceQuantities (p::QueueAttributes::*get)() const) {
    return [this, get](const QueueInfo& q) -> std::optional<QueueQuantities> {
      const p::QueueIndex i = IndexOf(q);
      if (i == p::kNoQueue) {
        LOG(ERROR) << "proportion: failed to find queue attributes for queue <" << q.name() << ">";
        return std::nullopt;
      }
      return ToQueueQuantities((queues_[i].*get)());
    };
  };
  ssn->AddGetQueueAllocatedResourcesFn(queue_numbers(&p::QueueAttributes::Allocated));
  ssn->AddGetQueueDeservedResourcesFn(queue_numbers(&p::QueueAttributes::Deserved));
  ssn->AddGetQueueFairShareFn(queue_numbers(&p::QueueAttributes::FairShare));
  ssn->AddGetQueueRequestedResourcesFn(queue_numbers(&p::QueueAttributes::Request));
}

std::vector<ProportionPlugin::QueueMetrics> ProportionPlugin::Metrics() const {
  std::vector<QueueMetrics> out;
  out.reserve(queues_.size());
  for (p::QueueIndex i = 0; i < queues_.size(); ++i) {
    const p::QueueAttributes& q = queues_[i];
    QueueMetrics m;
    m.queue_name = q.name;
    m.uid = q.uid;
    m.fair_share_cpu_cores = q.share(p::ResourceName::kCpu).fair_share / p::kMilliCpuToCores;
    m.fair_share_memory_gb = q.share(p::ResourceName::kMemory).fair_share / p::kMemoryToGb;
    m.fair_share_gpu = q.share(p::ResourceName::kGpu).fair_share;
    m.usage_cpu = q.share(p::ResourceName::kCpu).usage;
    m.usage_memory = q.share(p::ResourceName::kMemory).usage;
    m.usage_gpu = q.share(p::ResourceName::kGpu).usage;
    out.push_back(std::move(m));
  }
  return out;
}

void SetQueueUsage(const p::ClusterUsage& usage, ClusterInfo* cluster) {
  cluster->queue_usage.clear();
  for (const auto& [uid, q] : usage.queues) cluster->queue_usage[uid] = ToMap(q);
}

std::unique_ptr<Plugin> NewProportionPlugin(const PluginArguments& args) {
  return std::make_unique<ProportionPlugin>(args);
}

}  // namespace kai::scheduler
