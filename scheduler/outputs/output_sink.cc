#include "scheduler/outputs/output_sink.h"

#include <glog/logging.h>

#include <algorithm>

#include "api/pod_condition.h"
#include "api/well_known.h"
#include "scheduler/outputs/bind_request_builder.h"
#include "scheduler/outputs/job_status.h"

namespace kai::scheduler {

OutputSink::OutputSink(SchedulerParams params, SchedulerWriter* writer, StatusUpdateQueue* updates,
                       Clock* clock)
    : params_(std::move(params)), writer_(writer), updates_(updates), clock_(clock) {}

const PodInfo* OutputSink::FindTask(const std::string& key, const PodInfo* hint) const {
  if (hint != nullptr) return hint;
  return cluster_ != nullptr ? cluster_->FindTask(key) : nullptr;
}

OutputSink::~OutputSink() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void OutputSink::SetBindRequestWorkers(int n) {
  if (n <= 1 || !workers_.empty()) return;
  for (int i = 0; i < n; ++i) workers_.emplace_back([this] { CreateWorker(); });
}

void OutputSink::CreateWorker() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing
    PendingCreate* p = queue_.front();
    queue_.pop_front();
    lock.unlock();
    StatusOr<api::BindRequest> result = writer_->CreateBindRequest(p->attempted);
    const MonoTime answered = clock_->NowMonotonic();
    const WallTime answered_wall = clock_->Now();
    lock.lock();
    p->result = std::move(result);
    p->times.answered = answered;
    p->times.answered_wall = answered_wall;
    ++answered_;
    done_cv_.notify_all();
  }
}

Status OutputSink::Bind(const BindDecision& d) {
  const PodInfo* task = FindTask(d.pod_key, d.task);
  if (task == nullptr) return NotFoundError("bind: task " + d.pod_key + " is not in the session");
  BindTimes times;
  times.started = clock_->NowMonotonic();
  const api::Pod& pod = task->pod();
  updates_->PreBind(pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid);

  api::BindRequest attempted = BuildBindRequest(d, pod, params_);
  if (defer_binds_) {
    auto p = std::make_unique<PendingCreate>();
    p->task = task;
    p->node = d.node;
    p->attempted = std::move(attempted);
    p->times = times;
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(p.get());
    }
    work_cv_.notify_one();
    issued_.push_back(std::move(p));
    return Status::OK();
  }
  StatusOr<api::BindRequest> created = writer_->CreateBindRequest(attempted);
  times.answered = clock_->NowMonotonic();
  times.answered_wall = clock_->Now();
  return FinishBind(*task, d.node, attempted, std::move(created), times);
}

std::vector<std::string> OutputSink::JoinBinds() {
  std::vector<std::string> refused;
  if (issued_.empty()) return refused;
  {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [this] { return answered_ == issued_.size(); });
    answered_ = 0;
  }
  for (auto& p : issued_) {
    if (!FinishBind(*p->task, p->node, p->attempted, std::move(p->result), p->times).ok()) {
      refused.push_back(p->task->key());
    }
  }
  issued_.clear();
  return refused;
}

Status OutputSink::FinishBind(const PodInfo& task, const std::string& node,
                              const api::BindRequest& attempted, StatusOr<api::BindRequest> created,
                              const BindTimes& times) {
  const MonoTime handling = clock_->NowMonotonic();
  const bool written = created.ok();
  Status s = HandleBindAnswer(task, node, attempted, std::move(created));
  if (on_bind_timed_) {
    BindTiming t;
    t.bind = (times.answered - times.started) + (clock_->NowMonotonic() - handling);
    const std::optional<WallTime>& pod_created = task.pod().metadata.creation_timestamp;
    if (written && pod_created) t.since_pod_creation = times.answered_wall - *pod_created;
    on_bind_timed_(t);
  }
  return s;
}

Status OutputSink::HandleBindAnswer(const PodInfo& task, const std::string& node,
                                    const api::BindRequest& attempted,
                                    StatusOr<api::BindRequest> created) {
  const api::Pod& pod = task.pod();
  if (!created.ok() && OutcomeUnknown(created.status())) {
    // The server may have stored it: hold the decision (and the pod's resources) until the
    // object is read back, rather than placing other pods on GPUs it may hold.
    ++counters_.bind_requests_in_doubt;
    LOG(WARNING) << "BindRequest " << pod.metadata.namespace_ << "/" << pod.metadata.name
                 << " for node " << node << " may or may not exist (" << created.status()
                 << "); held until it can be read back";
    in_doubt_[pod.metadata.namespace_ + "/" + pod.metadata.name] = attempted;
    if (on_bind_request_created_) on_bind_request_created_(attempted);
    return Status::OK();
  }
  if (!created.ok() && IsAlreadyExists(created.status())) {
    // The model missed it (an earlier attempt's answer was lost, the informer is behind).
    auto existing = writer_->GetBindRequest(pod.metadata.namespace_, pod.metadata.name);
    if (existing.ok() && on_bind_request_created_) on_bind_request_created_(*existing);
  }
  if (!created.ok()) {
    ++counters_.bind_request_failures;
    std::string message = "Failed to bind pod " + pod.metadata.namespace_ + "/" +
                          pod.metadata.name + " to node " + node + ". " +
                          std::string(created.status().message());
    LOG(ERROR) << message;
    writer_->RecordEvent(EventRecord{PodTarget(pod), "Warning", "FailedBinding", message, {}});
    api::PodCondition c;
    c.type = "PodScheduled";
    c.status = "False";
    c.reason = "BindingError";
    c.message = message;
    if (auto patch = api::PodConditionPatch(pod, c, clock_->Now())) {
      StatusUpdate u;
      u.kind = StatusUpdate::Kind::kPodStatus;
      u.namespace_ = pod.metadata.namespace_;
      u.name = pod.metadata.name;
      u.uid = pod.metadata.uid;
      u.patch = *patch;
      updates_->Push(std::move(u));
    }
    return created.status();
  }
  ++counters_.bind_requests_created;
  if (on_bind_request_created_) on_bind_request_created_(*created);
  if (auto patch = NodePoolLabelPatch(pod, params_)) {
    StatusUpdate u;
    u.kind = StatusUpdate::Kind::kPodLabels;
    u.namespace_ = pod.metadata.namespace_;
    u.name = pod.metadata.name;
    u.uid = pod.metadata.uid;
    u.patch = *patch;
    updates_->Push(std::move(u));
  }
  writer_->RecordEvent(EventRecord{PodTarget(pod),
                                   "Normal",
                                   "Scheduled",
                                   "Successfully assigned pod " + pod.metadata.namespace_ + "/" +
                                       pod.metadata.name + " to node " + node + " at node-pool " +
                                       NodePoolName(params_),
                                   {}});
  return Status::OK();
}

bool OutputSink::OutcomeUnknown(const Status& s) {
  // An HTTP answer below 500 says what happened (4xx: refused, and nothing was stored). No
  // answer (connection reset, timeout: http_code 0) or a server error does not.
  const int code = s.http_code();
  return code == 0 || code >= 500;
}

int OutputSink::ResolveInDoubtBindRequests() {
  for (auto it = in_doubt_.begin(); it != in_doubt_.end();) {
    const api::BindRequest& br = it->second;
    auto got = writer_->GetBindRequest(br.metadata.namespace_, br.metadata.name);
    if (got.ok()) {
      LOG(INFO) << "BindRequest " << it->first << " in doubt exists";
      if (on_bind_request_created_) on_bind_request_created_(*got);
      it = in_doubt_.erase(it);
    } else if (IsNotFound(got.status())) {
      LOG(INFO) << "BindRequest " << it->first << " in doubt was not created; its pod is pending";
      if (on_bind_request_dropped_) on_bind_request_dropped_(it->first);
      it = in_doubt_.erase(it);
    } else {
      ++it;
    }
  }
  return static_cast<int>(in_doubt_.size());
}

Status OutputSink::Evict(const EvictDecision& d) {
  const PodInfo* task = FindTask(d.pod_key, d.task);
  if (task == nullptr) return NotFoundError("evict: task " + d.pod_key + " is not in the session");
  const api::Pod& pod = task->pod();
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") {
    return FailedPreconditionError("received an eviction attempt for a terminated task: <" +
                                   pod.metadata.namespace_ + "/" + pod.metadata.name + ">");
  }
  const PodGroupInfo* job = cluster_ != nullptr ? cluster_->FindJob(d.podgroup) : nullptr;
  if (job == nullptr && cluster_ != nullptr) {
    return NotFoundError("evict: podgroup " + d.podgroup + " of " + d.pod_key +
                         " is not in the session");
  }
  if (job != nullptr && !d.message.empty()) {
    std::map<std::string, std::string> annotations;
    annotations[std::string(api::kNumEvictedPodsAnnotation)] = std::to_string(d.metadata.gang_size);
    annotations[std::string(api::kEvictorActionTypeAnnotation)] = d.metadata.action;
    if (d.metadata.preemptor) {
      std::string ns, name = *d.metadata.preemptor;
      if (const PodGroupInfo* p = cluster_->FindJob(*d.metadata.preemptor)) {
        ns = p->namespace_();
        name = p->name();
      } else if (auto slash = name.find('/'); slash != std::string::npos) {
        ns = name.substr(0, slash);
        name = name.substr(slash + 1);
      }
      annotations[std::string(api::kEvictorPodGroupNameAnnotation)] = name;
      annotations[std::string(api::kEvictorPodGroupNamespaceAnnotation)] = ns;
    }
    // A job of one without a PodGroup object (implicit): the event goes to its pod.
    EventTarget target = job->implicit ? PodTarget(pod) : PodGroupTarget(job->podgroup());
    writer_->RecordEvent(EventRecord{target, "Normal", "Evict", d.message, std::move(annotations)});
  }
  if (params_.update_pod_eviction_condition) {
    api::PodCondition c;
    c.type = "DisruptionTarget";
    c.status = "True";
    c.reason = "PreemptionByScheduler";
    c.message = d.message;
    if (auto patch = api::PodConditionPatch(pod, c, clock_->Now())) {
      KAI_RETURN_IF_ERROR(
          writer_->PatchPodStatus(pod.metadata.namespace_, pod.metadata.name, *patch));
    }
  }
  LOG(INFO) << "Evicting pod " << d.pod_key << " (" << d.metadata.action
            << (d.metadata.preemptor ? " for " + *d.metadata.preemptor : std::string())
            << "): " << d.message;
  Status s = writer_->DeletePod(pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid);
  if (IsAborted(s)) {
    // The victim is gone and another pod has its name (created since the snapshot): that one
    // was not chosen, so it stays; the victim's resources are free all the same.
    LOG(INFO) << "Pod " << d.pod_key << " was replaced by a new pod of its name before its "
              << "eviction; the new pod is not evicted";
    return Status::OK();
  }
  if (!s.ok() && !IsNotFound(s)) {
    LOG(ERROR) << "Failed to evict pod: " << d.pod_key << ", error: " << s;
    return s;
  }
  ++counters_.pods_evicted;
  if (on_pod_evicted_ && job != nullptr) on_pod_evicted_(*job, d.metadata);
  return Status::OK();
}

void OutputSink::Pipelined(const PipelineDecision& d) {
  const PodInfo* task = FindTask(d.pod_key, d.task);
  if (task == nullptr) return;
  writer_->RecordEvent(EventRecord{PodTarget(task->pod()), "Normal", "Pipelined", d.message, {}});
}

void OutputSink::RecordJobStatuses(const ClusterInfo& cluster) {
  JobStatusOptions o;
  o.node_pool_label_key = params_.node_pool_label_key;
  o.detailed_fit_errors = params_.detailed_fit_errors;
  WallTime now = clock_->Now();
  for (const auto& [id, job] : cluster.jobs) {
    JobStatusWrites w = ComputeJobStatusWrites(*job, o, now);
    for (const auto& e : w.events) writer_->RecordEvent(e);
    for (auto& p : w.pod_status_patches) {
      StatusUpdate u;
      u.kind = StatusUpdate::Kind::kPodStatus;
      u.namespace_ = p.namespace_;
      u.name = p.name;
      u.uid = p.uid;
      u.patch = std::move(p.patch);
      updates_->Push(std::move(u));
    }
    if (w.desired) {
      StatusUpdate u;
      u.kind = StatusUpdate::Kind::kPodGroup;
      u.namespace_ = job->namespace_();
      u.name = job->name();
      u.uid = job->podgroup().metadata.uid;
      u.patch = std::move(w.podgroup_patch);
      u.status_patch = std::move(w.podgroup_status_patch);
      u.desired = std::move(w.desired);
      updates_->Push(std::move(u));
    }
  }
}

Status OutputSink::CleanStaleBindRequests(const ClusterInfo& cluster) {
  std::vector<ClusterInfo::StaleBindRequest> stale = cluster.stale_bind_requests;
  std::sort(stale.begin(), stale.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  Status first;
  for (const auto& [key, uid] : stale) {
    auto slash = key.find('/');
    std::string ns = slash == std::string::npos ? "" : key.substr(0, slash);
    std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
    Status s = writer_->DeleteBindRequest(ns, name, uid);
    // 409: the uid precondition failed, the name holds a newer BindRequest (this scheduler's own
    // since the snapshot, or a new leader's), which is not stale. The stale one is gone in all
    // three cases.
    if (s.ok() || IsNotFound(s) || IsAborted(s)) {
      if (on_bind_request_deleted_) on_bind_request_deleted_(key, uid);
      if (IsAborted(s)) {
        VLOG(2) << "stale bind request <" << key << "> was already replaced: " << s;
      } else {
        ++counters_.stale_bind_requests_deleted;
      }
      continue;
    }
    LOG(WARNING) << "failed to delete stale bind request <" << key << ">: " << s;
    if (first.ok()) first = s.WithPrefix("failed to delete stale bind request <" + key + ">");
  }
  return first;
}

}  // namespace kai::scheduler
