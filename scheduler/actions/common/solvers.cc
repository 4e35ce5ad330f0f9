#include "scheduler/actions/common/solvers.h"

#include <glog/logging.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string_view>
#include <unordered_set>

#include "scheduler/actions/common/allocation.h"
#include "scheduler/actions/common/idle_gpus_filter.h"
#include "scheduler/actions/common/victims.h"

namespace kai::scheduler {

namespace {

// Owns the job clones (partial preemptors, victim representatives) of one Solve call.
using Arena = std::deque<std::unique_ptr<PodGroupInfo>>;

PodGroupInfo* CloneJob(Arena* arena, const PodGroupInfo& job, const std::vector<PodInfo*>& tasks) {
  arena->push_back(std::make_unique<PodGroupInfo>(job, tasks));
  return arena->back().get();
}

// KAI solvers/scenario ByNodeScenario.
class ByNodeScenario : public ScenarioInfo {
 public:
  ByNodeScenario(const Session* ssn, PodGroupInfo* preemptor,
                 const std::vector<const PodGroupInfo*>& recorded_jobs, Arena* arena)
      : ssn_(ssn), preemptor_(preemptor), arena_(arena) {
    pending_tasks_ = preemptor->tasks();
    for (const PodGroupInfo* job : recorded_jobs) {
      recorded_jobs_.push_back(job);
      if (job->tasks().empty()) continue;
      AppendTasksAsVictimJob(job->tasks());
      for (PodInfo* t : job->tasks()) {
        recorded_tasks_.push_back(t);
        recorded_uids_.insert(t->uid());
      }
    }
  }

  const PodGroupInfo& GetPreemptor() const override { return *preemptor_; }
  const std::map<PodGroupId, VictimInfo>& GetVictims() const override { return victims_; }
  const std::vector<PodInfo*>& PendingTasks() const override { return pending_tasks_; }
  uint64_t Serial() const override { return serial_; }
  std::span<const VictimInfo* const> VictimUpdates() const override { return updates_; }
  const std::vector<const VictimInfo*>* SimulationTouchedVictims() const override {
    return touched_valid_ ? &touched_ : nullptr;
  }

  // The victims holding one of `tasks` (a simulation's victims) and those added with a task that
  // was not active-allocated, in victims_ order; valid until EndSimulation().
  void BeginSimulation(const std::vector<PodInfo*>& tasks) {
    std::vector<std::map<PodGroupId, VictimInfo>::const_iterator> found;
    found.reserve(tasks.size() + not_all_active_.size());
    for (const PodInfo* t : tasks) {
      auto it = victims_.find(t->job());
      if (it != victims_.end()) found.push_back(it);
    }
    for (const PodGroupId* id : not_all_active_) found.push_back(victims_.find(*id));
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a->first < b->first; });
    found.erase(std::unique(found.begin(), found.end()), found.end());
    touched_.clear();
    for (const auto& it : found) touched_.push_back(&it->second);
    touched_valid_ = true;
  }
  void EndSimulation() { touched_valid_ = false; }
  PodGroupInfo* preemptor() const { return preemptor_; }
  const std::vector<PodInfo*>& RecordedVictimsTasks() const { return recorded_tasks_; }
  const std::vector<PodInfo*>& PotentialVictimsTasks() const { return potential_tasks_; }
  bool IsRecordedUid(std::string_view uid) const {
    return !recorded_uids_.empty() && recorded_uids_.count(uid) != 0;
  }

  void AddPotentialVictimsTasks(const std::vector<PodInfo*>& tasks) {
    if (tasks.empty()) return;
    AppendTasksAsVictimJob(tasks);
    for (PodInfo* t : tasks) {
      if (!potential_uids_.insert(t->uid()).second) potential_uid_repeats_ = true;
      const uint32_t job =
          job_index_.try_emplace(t->job(), static_cast<uint32_t>(job_index_.size())).first->second;
      if (job == potential_of_job_.size()) potential_of_job_.emplace_back();
      potential_of_job_[job].push_back(static_cast<uint32_t>(potential_tasks_.size()));
      potential_tasks_.push_back(t);
      auto& jobs = potential_jobs_by_node_[t->node_name];
      if (std::find(jobs.begin(), jobs.end(), job) == jobs.end()) jobs.push_back(job);
    }
  }

  const PodGroupInfo* LatestPotentialVictim() const {
    if (potential_tasks_.empty()) return nullptr;
    return ssn_->cluster().JobOf(*potential_tasks_.back());
  }

  // The potential victim tasks, on any node, of the jobs that have a potential victim on one of
  // the nodes (§7.6 "evict the potential victims on that node"). Recorded victims are left out:
  // the scenario already evicted them, and evicting a task twice would release its resources
  // twice in the queue accounting.
  // Each uid once (the first task with it): jobs are compared by their index in job_index_, and
  // uids hashed only when some uid was added twice (tree sets of every potential victim's uid per
  // simulated node were a tenth of M reclaim, hash sets still 2% of L reclaim).
  // The wanted jobs' tasks are gathered by job and put back in potential order: a long search's
  // scenario holds hundreds of potential victims, a node a few.
  std::vector<PodInfo*> VictimsTasksFromNodes(const std::vector<std::string>& nodes) const {
    std::vector<uint32_t> jobs;
    for (const auto& n : nodes) {
      auto it = potential_jobs_by_node_.find(n);
      if (it != potential_jobs_by_node_.end()) {
        jobs.insert(jobs.end(), it->second.begin(), it->second.end());
      }
    }
    std::sort(jobs.begin(), jobs.end());
    jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
    std::vector<uint32_t> at;
    for (uint32_t job : jobs) {
      at.insert(at.end(), potential_of_job_[job].begin(), potential_of_job_[job].end());
    }
    std::sort(at.begin(), at.end());
    std::vector<PodInfo*> out;
    out.reserve(at.size());
    std::unordered_set<std::string_view> seen;
    for (uint32_t i : at) {
      PodInfo* t = potential_tasks_[i];
      if (!potential_uid_repeats_ || seen.insert(t->uid()).second) out.push_back(t);
    }
    return out;
  }

  const PodGroupInfo* RepresentativeOf(const PodInfo& task) const {
    auto it = groups_.find(task.job());
    if (it == groups_.end()) return nullptr;
    for (const PodGroupInfo* g : it->second) {
      for (const PodInfo* t : g->tasks()) {
        if (t->uid() == task.uid()) return g;
      }
    }
    return nullptr;
  }

 private:
  void AppendTasksAsVictimJob(const std::vector<PodInfo*>& tasks) {
    const PodGroupInfo* original = ssn_->cluster().JobOf(*tasks.front());
    if (original == nullptr) return;
    PodGroupInfo* clone = CloneJob(arena_, *original, tasks);
    groups_[clone->uid()].push_back(clone);
    VictimInfo& v = victims_[clone->uid()];
    v.job = clone;
    v.representative = original;
    v.tasks.insert(v.tasks.end(), tasks.begin(), tasks.end());
    updates_.push_back(&v);
    // Added between simulations (the session as the search found it): a task that is not
    // active-allocated now stays so in every simulation that does not touch it.
    const bool all_active = std::all_of(tasks.begin(), tasks.end(), [](const PodInfo* t) {
      return IsActiveAllocatedStatus(t->status);
    });
    if (!all_active) not_all_active_.push_back(&victims_.find(clone->uid())->first);
  }

  static uint64_t NextSerial() {
    static std::atomic<uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  const Session* ssn_;
  PodGroupInfo* preemptor_;
  Arena* arena_;
  std::vector<PodInfo*> pending_tasks_;
  std::vector<const PodGroupInfo*> recorded_jobs_;
  std::vector<PodInfo*> recorded_tasks_;
  std::vector<PodInfo*> potential_tasks_;
  std::unordered_set<std::string_view> recorded_uids_;   // the pods outlive the scenario
  std::unordered_set<std::string_view> potential_uids_;  // of every potential task
  bool potential_uid_repeats_ = false;                   // a uid was added twice
  const uint64_t serial_ = NextSerial();
  std::map<PodGroupId, VictimInfo> victims_;
  std::vector<const VictimInfo*> updates_;         // map nodes: stable addresses
  std::vector<const PodGroupId*> not_all_active_;  // keys of victims_ (may repeat)
  std::vector<const VictimInfo*> touched_;
  bool touched_valid_ = false;
  std::map<PodGroupId, std::vector<const PodGroupInfo*>> groups_;
  // The jobs of the potential victims, numbered as they come; per job number, its potential
  // tasks' indices in potential_tasks_.
  std::map<PodGroupId, uint32_t> job_index_;
  std::vector<std::vector<uint32_t>> potential_of_job_;
  std::map<std::string, std::vector<uint32_t>> potential_jobs_by_node_;
};

// PodAccumulatedScenarioBuilder.
class ScenarioBuilder {
 public:
  ScenarioBuilder(Session* ssn, PodGroupInfo* pending_job,
                  const std::vector<const PodGroupInfo*>& recorded_jobs,
                  std::unique_ptr<JobsOrderByQueues> victims_queue,
                  std::shared_ptr<const NodeGpuCapacities> capacities, Arena* arena,
                  std::string_view action)
      : ssn_(ssn), victims_queue_(std::move(victims_queue)), arena_(arena), action_(action) {
    if (!GetTasksToAllocate(*ssn, *pending_job, false).empty()) {
      scenario_ = std::make_unique<ByNodeScenario>(ssn, pending_job, recorded_jobs, arena);
      for (const PodGroupInfo* j : recorded_jobs) {
        for (const PodInfo* t : j->tasks()) recorded_.insert(t->uid());
      }
      idle_gpus_ =
          std::make_unique<IdleGpusFilter>(std::move(capacities), scenario_->PendingTasks().size());
    }
  }

  ByNodeScenario* GetValidScenario() {
    for (;;) {
      if (scenario_ == nullptr) return nullptr;
      if (IsValid()) return scenario_.get();
      if (!Advance()) return nullptr;
    }
  }

  ByNodeScenario* GetNextScenario() {
    if (!Advance()) return nullptr;
    return GetValidScenario();
  }

 private:
  // Adds the next victims from the queue; false when the queue is exhausted.
  bool Advance() {
    for (;;) {
      if (victims_queue_->empty()) return false;
      if (AddNextPotentialVictims()) return true;
    }
  }

  bool AddNextPotentialVictims() {
    PodGroupInfo* job = victims_queue_->PopNextJob();
    if (job == nullptr) return false;
    auto [tasks, more] = GetTasksToEvict(*ssn_, *job);
    for (const PodInfo* t : tasks) {
      if (recorded_.count(t->uid()) == 0) continue;
      // Already a recorded victim: re-offer the job's other tasks later.
      std::vector<PodInfo*> remaining;
      for (PodInfo* o : job->tasks()) {
        if (recorded_.count(o->uid()) == 0) remaining.push_back(o);
      }
      if (!remaining.empty()) victims_queue_->PushJob(CloneJob(arena_, *job, remaining));
      return false;
    }
    if (more) {
      std::vector<PodInfo*> remaining;
      for (PodInfo* o : job->tasks()) {
        if (std::find(tasks.begin(), tasks.end(), o) == tasks.end()) remaining.push_back(o);
      }
      victims_queue_->PushJob(CloneJob(arena_, *job, remaining));
    }
    if (scenario_) scenario_->AddPotentialVictimsTasks(tasks);
    return true;
  }

  bool IsValid() {
    if (idle_gpus_ &&
        !idle_gpus_->Filter(scenario_->PendingTasks(), scenario_->RecordedVictimsTasks(),
                            scenario_->PotentialVictimsTasks())) {
      ssn_->CountScenario(action_, /*simulated=*/false);
      return false;
    }
    return true;
  }

  Session* ssn_;
  std::unique_ptr<JobsOrderByQueues> victims_queue_;
  Arena* arena_;
  std::string_view action_;
  std::unique_ptr<ByNodeScenario> scenario_;
  std::unordered_set<std::string_view> recorded_;  // uids (the pods outlive the builder)
  std::unique_ptr<IdleGpusFilter> idle_gpus_;
};

// The nodes a partial job's simulations may use, in name order (the order KAI's map of them
// yields). Kept as a vector sorted by the session's name rank: a victim search builds one per
// partial job from every candidate node, and a string-keyed map of 4,000 nodes per job was a
// tenth of L preempt.
class FeasibleNodes {
 public:
  explicit FeasibleNodes(NodeSet nodes) : nodes_(std::move(nodes)) {
    for (const NodeInfo* n : nodes_) DCHECK_GT(n->name_rank(), 0) << n->name() << " is unranked";
    if (!std::is_sorted(nodes_.begin(), nodes_.end(), RankLess)) {
      std::sort(nodes_.begin(), nodes_.end(), RankLess);
    }
    nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
  }

  const NodeSet& nodes() const { return nodes_; }

  // False when the node was already in.
  bool Add(NodeInfo* n) {
    auto it = std::lower_bound(nodes_.begin(), nodes_.end(), n, RankLess);
    if (it != nodes_.end() && *it == n) return false;
    nodes_.insert(it, n);
    return true;
  }

  void Remove(NodeInfo* n) {
    auto it = std::lower_bound(nodes_.begin(), nodes_.end(), n, RankLess);
    if (it != nodes_.end() && *it == n) nodes_.erase(it);
  }

 private:
  static bool RankLess(const NodeInfo* a, const NodeInfo* b) {
    return a->name_rank() < b->name_rank();
  }

  NodeSet nodes_;
};

struct SolveResult {
  bool solved = false;
  std::vector<PodInfo*> victim_tasks;
  std::vector<const PodGroupInfo*> victim_jobs;
  std::unique_ptr<Statement> statement;
};

class ByPodSolver {
 public:
  ByPodSolver(FeasibleNodes* feasible, const SolutionValidator& validator,
              bool allow_victim_consolidation, std::string_view action, SimulationOrder* scratch)
      : feasible_(feasible),
        validator_(validator),
        allow_consolidation_(allow_victim_consolidation),
        action_(action),
        scratch_(scratch) {}

  // nullopt: no solution; a result with solved=false: the validator rejected the solution.
  std::optional<SolveResult> Solve(Session* ssn, ByNodeScenario* scenario) {
    PodGroupInfo* pending = scenario->preemptor();
    const PodGroupInfo* latest = scenario->LatestPotentialVictim();
    if (scratch_ != nullptr) {
      // Before the first eviction: the base is the session as the search found it.
      std::vector<PodInfo*> victims = scenario->RecordedVictimsTasks();
      if (latest != nullptr)
        victims.insert(victims.end(), latest->tasks().begin(), latest->tasks().end());
      PrepareSimulationOrder(*ssn, *pending, victims, scratch_);
    }
    auto stmt = ssn->NewStatement();
    Status s =
        EvictAllPreemptees(ssn, scenario->RecordedVictimsTasks(), *pending, stmt.get(), action_);
    if (!s.ok()) {
      stmt->Discard();
      return std::nullopt;
    }
    if (latest == nullptr) {
      if (!scenario->RecordedVictimsTasks().empty()) {
        if (auto r = RunSimulation(ssn, scenario, &stmt, scenario->RecordedVictimsTasks()))
          return r;
      }
    } else {
      std::set<std::string> nodes;
      for (const PodInfo* t : latest->tasks()) {
        if (!t->node_name.empty()) nodes.insert(t->node_name);
      }
      for (const std::string& node : nodes) {
        Statement::Checkpoint cp = stmt->MakeCheckpoint();
        std::vector<PodInfo*> potential = scenario->VictimsTasksFromNodes({node});
        if (!EvictAllPreemptees(ssn, potential, *pending, stmt.get(), action_).ok()) {
          stmt->Discard();
          return std::nullopt;
        }
        std::vector<NodeInfo*> added;
        for (const PodInfo* t : potential) {
          NodeInfo* n = ssn->cluster().FindNode(t->node_name);
          if (n != nullptr && feasible_->Add(n)) added.push_back(n);
        }
        // The recorded victims, then the potential ones not recorded (by uid, once each:
        // VictimsTasksFromNodes returns each uid once).
        std::vector<PodInfo*> victims = scenario->RecordedVictimsTasks();
        for (PodInfo* t : potential) {
          if (!scenario->IsRecordedUid(t->uid())) victims.push_back(t);
        }
        if (auto r = RunSimulation(ssn, scenario, &stmt, victims)) return r;
        for (NodeInfo* n : added) feasible_->Remove(n);
        stmt->Rollback(cp).IgnoreError();
      }
    }
    stmt->Discard();
    return std::nullopt;
  }

 private:
  std::optional<SolveResult> RunSimulation(Session* ssn, ByNodeScenario* scenario,
                                           std::unique_ptr<Statement>* stmt,
                                           const std::vector<PodInfo*>& victims) {
    if (!TryToVirtuallyAllocatePreemptor(ssn, stmt->get(), feasible_->nodes(),
                                         scenario->preemptor(), victims, scratch_)) {
      return std::nullopt;
    }
    std::vector<PodInfo*> preempted, pipelined;
    for (PodInfo* v : victims) {
      if (v->status == PodStatus::kReleasing) preempted.push_back(v);
      if (v->status == PodStatus::kPipelined) pipelined.push_back(v);
    }
    SolveResult result;
    result.victim_tasks = preempted;
    if (!allow_consolidation_) {
      result.victim_tasks.insert(result.victim_tasks.end(), pipelined.begin(), pipelined.end());
    }
    if (validator_) {
      scenario->BeginSimulation(victims);
      const bool valid = validator_(*scenario);
      scenario->EndSimulation();
      if (!valid) {
        (*stmt)->Discard();
        return SolveResult{};
      }
    }
    if (allow_consolidation_) {
      result.victim_tasks.insert(result.victim_tasks.end(), pipelined.begin(), pipelined.end());
    }
    std::set<const PodGroupInfo*> seen;
    for (const PodInfo* t : result.victim_tasks) {
      const PodGroupInfo* rep = scenario->RepresentativeOf(*t);
      if (rep != nullptr && seen.insert(rep).second) result.victim_jobs.push_back(rep);
    }
    result.solved = true;
    result.statement = std::move(*stmt);
    return result;
  }

  FeasibleNodes* feasible_;
  const SolutionValidator& validator_;
  bool allow_consolidation_;
  std::string action_;
  SimulationOrder* scratch_;  // what the simulations of this search share
};

}  // namespace

JobSolution JobSolver::Solve(Session* ssn, PodGroupInfo* pending_job,
                             const JobSearchBudget& budget) {
  bool budget_exhausted = false;
  Arena arena;
  std::vector<const PodGroupInfo*> recorded_jobs;
  std::vector<PodInfo*> recorded_tasks;
  int original_active = pending_job->NumActiveUsed();
  std::unique_ptr<Statement> statement;

  std::vector<PodInfo*> tasks = GetTasksToAllocate(*ssn, *pending_job, false);
  // Whether a final rejection may end a partial job's search: skipping the remaining simulations
  // must leave nothing they would have left (victims' fit errors are never kept).
  const bool may_stop = rejected_for_good_ != nullptr && PreemptorLeavesNoTrace(*ssn, tasks);
  // Every partial job starts from the session as it was (the previous one's statement is
  // discarded), so its victim queue is the same: built once, copied per partial job.
  std::unique_ptr<JobsOrderByQueues> victims;
  std::shared_ptr<const NodeGpuCapacities> capacities;  // the same for every partial job, too
  std::vector<PodInfo*> pending_tasks;
  SimulationOrder simulation_order(ssn, pending_job->uid());
  const FeasibleNodes sorted_feasible(feasible_nodes_);  // sorted once, copied per partial job
  for (PodInfo* next : tasks) {
    pending_tasks.push_back(next);
    bool satisfactory = pending_tasks.size() == tasks.size();
    // A partial job: the tasks so far, each PodSet's minimum set to its share of them.
    PodGroupInfo* partial = CloneJob(&arena, *pending_job, pending_tasks);
    std::map<std::string, int> per_set;
    for (const PodInfo* t : pending_tasks) {
      std::string name =
          t->subgroup_name().empty() ? std::string(kDefaultSubGroup) : t->subgroup_name();
      if (partial->FindPodSet(name) == nullptr) name = std::string(kDefaultSubGroup);
      per_set[name]++;
    }
    for (const auto& [name, n] : per_set) {
      if (PodSet* ps = partial->FindPodSet(name)) ps->set_min_available(n);
    }
    // The minimums are an input of per-job memos, but only of this copy's, which start empty
    // (a copy's memos are its own, stamped with generations that never go back): every other
    // job's memos stay good. (Moving the structure generation here, as before, dropped every
    // session job's job-order ranks and tasks to allocate once per partial job.)

    // solvePartialJob.
    FeasibleNodes feasible(sorted_feasible);
    for (const PodInfo* t : recorded_tasks) {
      if (NodeInfo* n = ssn->cluster().FindNode(t->node_name)) feasible.Add(n);
    }
    if (victims == nullptr) victims = victims_queue_();
    if (capacities == nullptr) {
      capacities = std::make_shared<NodeGpuCapacities>(ssn->cluster(), tasks.size());
    }
#ifndef NDEBUG
    CHECK(*capacities == NodeGpuCapacities(ssn->cluster(), tasks.size()))
        << "a partial job of " << pending_job->uid() << " started from another state";
#endif
    ScenarioBuilder builder(ssn, partial, recorded_jobs, victims->Clone(), capacities, &arena,
                            action_);
    std::optional<SolveResult> result;
    for (ByNodeScenario* scenario = builder.GetValidScenario(); scenario != nullptr;
         scenario = builder.GetNextScenario()) {
      if (budget.Exhausted()) {
        budget_exhausted = true;
        break;
      }
      if (may_stop && rejected_for_good_(*scenario)) {
        // No scenario from here on can be solved, and skipping their simulations changes nothing
        // outside them (see the constructor).
        ssn->CountFinalRejection(action_);
#ifndef NDEBUG
        ByPodSolver check(&feasible, validator_, ssn->params().allow_consolidating_reclaim, action_,
                          &simulation_order);
        std::optional<SolveResult> r = check.Solve(ssn, scenario);
        CHECK(!(r && r->solved)) << "a scenario a final rejection holds for was solved for "
                                 << pending_job->uid();
#endif
        break;
      }
      ssn->CountScenario(action_, /*simulated=*/true);
      ByPodSolver solver(&feasible, validator_, ssn->params().allow_consolidating_reclaim, action_,
                         &simulation_order);
      std::optional<SolveResult> r = solver.Solve(ssn, scenario);
      if (r && r->solved) {
        result = std::move(r);
        break;
      }
    }
    if (!result) break;
    if (!satisfactory) result->statement->Discard();
    statement = std::move(result->statement);
    recorded_tasks = result->victim_tasks;
    recorded_jobs = result->victim_jobs;
  }

  JobSolution out;
  out.searched = true;
  out.solved = pending_job->IsGangSatisfied() && pending_job->NumActiveUsed() > original_active;
  out.budget_exhausted = budget_exhausted && !out.solved;
  out.statement = std::move(statement);
  for (const PodInfo* t : recorded_tasks) out.victim_names.push_back("<" + t->key() + ">");
  return out;
}

}  // namespace kai::scheduler
