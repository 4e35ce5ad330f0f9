// The proportion plugin (KAI pkg/scheduler/plugins/proportion): fair-share division at session
// open, DRF queue order, queue capacity checks and the reclaim rules, wired into a Session.
//
// Arguments (SchedulingShard plugins.proportion.arguments):
//   kValue                          weight of historical usage (default 1; <= 0 -> 0, as KAI)
//   relcaimerSaturationMultiplier   reclaim saturation multiplier (default 1; < 1 -> 1). The
//   reclaimerUtilizationMultiplier  documented spelling is accepted too; the code spelling wins.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/session.h"
#include "scheduler/plugins/proportion/capacity_policy/capacity_policy.h"
#include "scheduler/plugins/proportion/queue_order/queue_order.h"
#include "scheduler/plugins/proportion/reclaimable/reclaimable.h"
#include "scheduler/plugins/proportion/resource_division/resource_division.h"
#include "scheduler/plugins/proportion/usage/cluster_usage.h"

namespace kai::scheduler {

inline constexpr std::string_view kProportionPluginName = "proportion";

class ProportionPlugin final : public Plugin {
 public:
  explicit ProportionPlugin(const PluginArguments& args);

  std::string_view Name() const override { return kProportionPluginName; }
  void OnSessionOpen(Session* ssn) override;
  void OnSessionClose(Session* ssn) override;

  // Read access for reports (simulate output, metrics). Valid after OnSessionOpen; kept after
  // OnSessionClose until the next session opens.
  const proportion::QueueTable& queues() const { return queues_; }
  // Cluster total the top-level queues divided: ready nodes' allocatable minus other
  // schedulers' pods.
  const proportion::ResourceQuantities& total_resources() const { return total_; }
  double k_value() const { return division_.k_value; }
  double saturation_multiplier() const { return reclaimable_.saturation_multiplier(); }

  // One row per queue for metrics: queue_fair_share_{cpu_cores,memory_gb,gpu} and
  // queue_{cpu,memory,gpu}_usage, labelled with the queue's name (display name when set).
  struct QueueMetrics {
    std::string queue_name;
    std::string uid;
    double fair_share_cpu_cores = 0;
    double fair_share_memory_gb = 0;
    double fair_share_gpu = 0;
    double usage_cpu = 0;
    double usage_memory = 0;
    double usage_gpu = 0;
  };
  std::vector<QueueMetrics> Metrics() const;

 private:
  void BuildTotals(const Session& ssn);
  Status BuildQueues(const Session& ssn);
  void AccumulateJobs(const Session& ssn);
  void RegisterHooks(Session* ssn);

  proportion::QueueIndex IndexOf(const QueueInfo& q) const;
  proportion::QueueIndex IndexOfJob(const Session& ssn, const PodGroupInfo& job) const;
  // Tasks-to-allocate resources of a job (GPU memory converted with the minimal node GPU memory).
  proportion::ResourceQuantities JobInitResources(const Session& ssn, const PodGroupInfo& job,
                                                  proportion::ResourceMask* involved) const;
  proportion::ReclaimerInfo BuildReclaimerInfo(const Session& ssn, const PodGroupInfo& job) const;
  // KAI's getRequiredQuota for the capacity checks.
  proportion::ResourceQuantities RequiredQuota(const Session& ssn,
                                               const std::vector<PodInfo*>& tasks) const;
  bool ValidateReclaimScenario(const Session& ssn, const ScenarioInfo& scenario) const;
  SchedulableResult Convert(const proportion::SchedulableResult& r) const;
  void OnAllocate(const Session& ssn, const PodInfo& task, bool add);
  // The queue order's key of queue `q` with candidate resources `job` (nullptr: none, no
  // victims), memoized per queue while the queue and the candidate stay as they were.
  const proportion::QueueOrderKey& OrderKeyOf(proportion::QueueIndex q,
                                              const proportion::ResourceQuantities* job);
  // OrderKeyOf(q, the resources of `job`'s tasks to allocate): a session job asked again before
  // its state stamp or the queue moves takes the key without recomputing its resources.
  const proportion::QueueOrderKey& OrderKeyOfJob(const Session& ssn, proportion::QueueIndex q,
                                                 const PodGroupInfo* job);

  proportion::DivisionOptions division_;
  proportion::Reclaimable reclaimable_;
  bool allow_consolidating_reclaim_ = true;

  proportion::ResourceQuantities total_;
  proportion::QueueTable queues_;
  // The reclaim validator's view: a copy taken when a job's solving starts (§9.6).
  proportion::QueueTable simulation_queues_;
  // By QueueInfo::session_index, with the queue it was made for.
  std::vector<std::pair<const QueueInfo*, proportion::QueueIndex>> index_by_queue_;
  // Job-order heaps compare the same queues with the same best jobs many times, within a victim
  // simulation (it orders every pending job) and across them (each touches a few queues). A key
  // reads only its own queue's attributes (and the session's totals), so it is kept until that
  // queue changes: queue_generation_[q] moves when an allocation changes q or a descendant.
  // The key's job-independent part is kept for the generation whatever the candidate.
  struct OrderKeyMemo {
    uint64_t generation = 0;       // of `key`; 0: never computed
    uint64_t base_generation = 0;  // of `base`
    std::optional<proportion::ResourceQuantities> job;
    proportion::QueueOrderKey key;
    proportion::QueueOrderBase base;
  };
  std::vector<OrderKeyMemo> order_key_memo_;
  // The same keys kept per session job (by PodGroupInfo::session_index) for the last few queues
  // it was a candidate of: a queue's candidate changes with every pop and with every child that
  // comes to the front of an inner queue, and the per-queue memo above then recomputed the key
  // (10 M of the 66 M lookups of an L consolidation). Valid while the job's stamp holds and each
  // entry's queue keeps its generation.
  struct JobKeyMemo {
    JobStateStamp stamp;  // of every entry
    struct Entry {
      proportion::QueueIndex queue = proportion::kNoQueue;
      uint64_t generation = 0;
      proportion::QueueOrderKey key;
    };
    static constexpr size_t kEntries = 3;  // a leaf queue and two ancestors
    std::array<Entry, kEntries> entries;
    uint8_t next = 0;  // the entry a miss replaces when none has the queue
  };
  std::vector<JobKeyMemo> job_key_memo_;
  // What a victim job holds, quantified (a victim queue's comparisons subtract every victim popped
  // from the queue so far, each time): per session job, valid while its status stamp holds.
  struct AllocatedMemo {
    JobStateStamp stamp;
    proportion::ResourceQuantities allocated;
  };
  std::vector<AllocatedMemo> allocated_memo_;
  proportion::ResourceQuantities AllocatedOfJob(const Session& ssn, const PodGroupInfo& job);
  std::vector<uint64_t> queue_generation_;  // by queue index, from 1 at session open
  std::unique_ptr<proportion::CapacityPolicy> capacity_;
};

std::unique_ptr<Plugin> NewProportionPlugin(const PluginArguments& args);

// Copies usage-database data (proportion::UsageLister::GetResourceUsage) into the snapshot, where
// the plugin reads it at session open.
void SetQueueUsage(const proportion::ClusterUsage& usage, ClusterInfo* cluster);

// Quantities the proportion plugin accounts for a scheduler resource vector: CPU, memory, and
// GPUs including MIG slices.
proportion::ResourceQuantities Quantify(const ResourceVector& v, const ResourceVectorMap& map);
// The resources KAI marks as "involved" for a vector: CPU, memory and the plain GPU entry (MIG
// instances do not mark GPUs as involved).
proportion::ResourceMask InvolvedResources(const ResourceVector& v);

}  // namespace kai::scheduler
