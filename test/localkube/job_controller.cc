#include "test/localkube/job_controller.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/controller_util.h"
#include "test/localkube/mutable_object.h"

namespace kai::localkube {
namespace {

constexpr char kTrackingFinalizer[] = "batch.kubernetes.io/job-tracking";
constexpr char kCompletionIndex[] = "batch.kubernetes.io/job-completion-index";
constexpr char kOrphanPrefix[] = "orphan:";
constexpr int64_t kBurst = 500;
constexpr int64_t kMaxUncounted = 500;

// "1,3-5,7" <-> {1,3,4,5,7} (status.completedIndexes).
std::set<int64_t> ParseIndexes(const std::string& s) {
  std::set<int64_t> out;
  for (const std::string& part : StrSplit(s, ',')) {
    if (part.empty()) continue;
    try {
      const size_t dash = part.find('-');
      if (dash == std::string::npos) {
        out.insert(std::stoll(part));
      } else {
        for (int64_t i = std::stoll(part.substr(0, dash)); i <= std::stoll(part.substr(dash + 1));
             ++i) {
          out.insert(i);
        }
      }
    } catch (...) {
    }
  }
  return out;
}

std::string FormatIndexes(const std::set<int64_t>& s) {
  std::string out;
  for (auto it = s.begin(); it != s.end();) {
    int64_t first = *it, last = *it;
    for (++it; it != s.end() && *it == last + 1; ++it) last = *it;
    if (!out.empty()) out += ",";
    out += std::to_string(first);
    if (last != first) out += "-" + std::to_string(last);
  }
  return out;
}

std::vector<std::string> StringList(const Json* v) {
  std::vector<std::string> out;
  if (v == nullptr || !v->IsArray()) return out;
  for (const Json& x : v->GetArray()) out.emplace_back(View(x));
  return out;
}

// Pod re-creation back-off after failures (the job controller's: 10 s doubling, max 6 min).
Duration FailureBackoff(int64_t failures) {
  if (failures <= 0) return Duration::zero();
  const int64_t shift = std::min<int64_t>(failures - 1, 6);
  return std::min<Duration>(std::chrono::seconds(10) * (int64_t{1} << shift),
                            std::chrono::minutes(6));
}

Status RemoveTrackingFinalizer(Store* store, const ObjectPtr& pod) {
  auto r = store->Mutate(
      kPodsResource, pod->namespace_(), pod->name(),
      [&](MutableObject& m) -> Status {
        if (GetStr(m.doc(), {"metadata", "uid"}) != pod->uid()) return CancelledError("replaced");
        Json* f = Path(m.doc(), {"metadata", "finalizers"});
        if (f == nullptr || !f->IsArray()) return Status::OK();
        for (auto it = f->Begin(); it != f->End();) {
          it = View(*it) == kTrackingFinalizer ? f->Erase(it) : it + 1;
        }
        if (f->Empty()) RemoveMember(m.metadata(), "finalizers");
        return Status::OK();
      },
      ControllerWrite("job-controller"));
  if (!r.ok() && r.status().reason() != "NotFound" && r.status().code() != StatusCode::kCancelled) {
    return r.status();
  }
  return Status::OK();
}

}  // namespace

JobController::JobController(ControllerContext ctx, Duration pod_batch_period)
    : ctx_(ctx),
      pod_batch_period_(pod_batch_period),
      pods_(std::make_unique<PodSummaries>()),
      loop_("job-controller", ctx.clock,
            [this](const std::string& key) { return Reconcile(key); }) {}

JobController::~JobController() { Stop(); }

void JobController::OnJob(const ObjectPtr& old, const ObjectPtr& now) {
  const ObjectPtr& j = now ? now : old;
  // As the real controller: a spec change syncs at once, a status-only change (typically this
  // controller's own write) is batched like pod changes.
  if (old && now && old->generation() == now->generation() &&
      pod_batch_period_ > Duration::zero()) {
    loop_.AddAfter(j->Key(), pod_batch_period_);
  } else {
    loop_.Add(j->Key());
  }
  if (!now) {
    for (const ObjectPtr& p : ctx_.pods->ByIndex("controller", old->uid())) {
      if (p->HasFinalizer(kTrackingFinalizer)) loop_.Add(kOrphanPrefix + p->Key());
    }
  }
}

void JobController::OnPod(const ObjectPtr& old, const ObjectPtr& now) {
  const ObjectPtr& p = now ? now : old;
  const std::string key = ControllerKey(*p, "Job");
  if (key.empty()) return;
  if (pod_batch_period_ > Duration::zero()) {
    loop_.AddAfter(key, pod_batch_period_);
  } else {
    loop_.Add(key);
  }
  if (now && now->HasFinalizer(kTrackingFinalizer)) {
    ObjectPtr job = ctx_.jobs->Get(key);
    bool owned = false;
    for (const OwnerReference& r : now->owner_references()) {
      if (r.controller && job && r.uid == job->uid()) owned = true;
    }
    if (!owned) loop_.Add(kOrphanPrefix + now->Key());
  }
}

Status JobController::Reconcile(const std::string& key) {
  if (key.rfind(kOrphanPrefix, 0) == 0) return ReleaseOrphan(key.substr(sizeof(kOrphanPrefix) - 1));
  pods_->MaybePrune(*ctx_.pods);
  return ReconcileJob(key);
}

Status JobController::ReleaseOrphan(const std::string& pod_key) {
  ObjectPtr pod = ctx_.pods->Get(pod_key);
  if (!pod || !pod->HasFinalizer(kTrackingFinalizer)) return Status::OK();
  const std::string job_key = ControllerKey(*pod, "Job");
  ObjectPtr job = job_key.empty() ? nullptr : ctx_.jobs->Get(job_key);
  for (const OwnerReference& r : pod->owner_references()) {
    if (r.controller && job && r.uid == job->uid()) return Status::OK();  // the job tracks it
  }
  return RemoveTrackingFinalizer(ctx_.store, pod);
}

Status JobController::ReconcileJob(const std::string& key) {
  ObjectPtr job = ctx_.jobs->Get(key);
  if (!job) {
    backoff_.erase(key);
    return Status::OK();
  }
  KAI_ASSIGN_OR_RETURN(JsonDoc doc, Parse(job->json()));
  const std::string ns = job->namespace_();
  const std::string name = job->name();
  const std::string uid = job->uid();
  const WallTime now = ctx_.clock->Now();
  const std::string now_s = FormatRfc3339(now);
  const std::optional<int64_t> completions = GetInt(doc, {"spec", "completions"});
  const int64_t parallelism = GetInt(doc, {"spec", "parallelism"}).value_or(1);
  const int64_t backoff_limit = GetInt(doc, {"spec", "backoffLimit"}).value_or(6);
  const bool indexed = GetStr(doc, {"spec", "completionMode"}) == "Indexed";
  const bool suspend = GetBool(doc, {"spec", "suspend"}, false);
  const std::optional<int64_t> deadline = GetInt(doc, {"spec", "activeDeadlineSeconds"});
  const std::optional<int64_t> ttl = GetInt(doc, {"spec", "ttlSecondsAfterFinished"});
  auto cond_true = [&](const char* type) {
    const Json* c = FindCondition(doc, type);
    return c != nullptr && GetStr(*c, {"status"}) == "True";
  };
  const bool was_finished = cond_true("Complete") || cond_true("Failed");
  const int64_t succeeded0 = GetInt(doc, {"status", "succeeded"}).value_or(0);
  const int64_t failed0 = GetInt(doc, {"status", "failed"}).value_or(0);
  std::vector<std::string> unc_succeeded =
      StringList(Path(doc, {"status", "uncountedTerminatedPods", "succeeded"}));
  std::vector<std::string> unc_failed =
      StringList(Path(doc, {"status", "uncountedTerminatedPods", "failed"}));
  std::set<int64_t> completed = ParseIndexes(GetStr(doc, {"status", "completedIndexes"}));
  std::optional<WallTime> start;
  if (auto t = ParseRfc3339(GetStr(doc, {"status", "startTime"})); t.ok()) start = *t;

  auto owned = [&] {
    std::vector<ObjectPtr> out;
    for (const ObjectPtr& p : ctx_.pods->ByIndex("controller", uid)) {
      if (p->namespace_() == ns) out.push_back(p);
    }
    return out;
  };

  // Finished pods: record them as uncounted (then their finalizer goes), and count the
  // uncounted ones whose finalizer is gone. At most kMaxUncounted new ones per sync, as the
  // real controller does, so the status stays small.
  std::vector<ObjectPtr> pods = owned();
  const std::vector<std::string> stored_s = unc_succeeded;
  const std::vector<std::string> stored_f = unc_failed;
  std::unordered_set<std::string> known(stored_s.begin(), stored_s.end());
  known.insert(stored_f.begin(), stored_f.end());
  std::unordered_set<std::string> with_finalizer;
  std::vector<std::string> fresh_s, fresh_f;
  std::vector<ObjectPtr> to_release;
  int64_t new_failures = 0;
  // Finished pods beyond the cap: recorded by a later sync, but counted for every decision
  // now (else they would be neither active nor finished and be replaced).
  int64_t over_s = 0, over_f = 0;
  for (const ObjectPtr& p : pods) {
    const PodSummary& s = pods_->Get(p);
    const bool succeeded = s.phase == "Succeeded";
    // Deleted (e.g. evicted) pods count as failed, except those a suspension deletes.
    const bool suspended_away = suspend && s.deleting && !s.Terminal();
    const bool failed =
        s.phase == "Failed" || (s.deleting && s.phase != "Succeeded" && !suspended_away);
    if (indexed && succeeded && !s.completion_index.empty()) {
      try {
        completed.insert(std::stoll(s.completion_index));
      } catch (...) {
      }
    }
    if (!p->HasFinalizer(kTrackingFinalizer)) continue;
    if (suspended_away) {
      to_release.push_back(p);
      continue;
    }
    with_finalizer.insert(p->uid());
    if (!succeeded && !failed) continue;
    if (!known.count(p->uid())) {
      if (fresh_s.size() + fresh_f.size() >= static_cast<size_t>(kMaxUncounted)) {
        ++(succeeded ? over_s : over_f);
        continue;
      }
      (succeeded ? fresh_s : fresh_f).push_back(p->uid());
      if (failed) ++new_failures;
    }
    to_release.push_back(p);
  }
  const bool more = over_s + over_f > 0;
  if (more) loop_.Add(key);
  // Recorded uids whose finalizer is gone move to the counters.
  int64_t succeeded = succeeded0, failed = failed0;
  auto settle = [&](const std::vector<std::string>& stored, const std::vector<std::string>& fresh,
                    int64_t* count) {
    std::vector<std::string> out;
    for (const std::string& u : stored) {
      if (with_finalizer.count(u)) {
        out.push_back(u);
      } else {
        ++*count;
      }
    }
    out.insert(out.end(), fresh.begin(), fresh.end());
    return out;
  };
  unc_succeeded = settle(stored_s, fresh_s, &succeeded);
  unc_failed = settle(stored_f, fresh_f, &failed);
  const int64_t succeeded_total = succeeded + static_cast<int64_t>(unc_succeeded.size()) + over_s;
  const int64_t failed_total = failed + static_cast<int64_t>(unc_failed.size()) + over_f;
  Backoff& bo = backoff_[key];
  if (bo.uid != uid) bo = Backoff{.uid = uid};
  if (new_failures > 0) {
    bo.failures = failed_total;
    bo.last = now;
  }

  int64_t active = 0;
  for (const ObjectPtr& p : pods) active += pods_->Get(p).Active();

  // Finished? As the real controller (1.31+): when the success or failure criteria are met,
  // SuccessCriteriaMet / FailureTarget is added first; the terminal Complete / Failed condition
  // follows once every finished pod is counted (no uncounted pods, no tracking finalizers left)
  // and no pod is active, so a client that sees Complete reads the final counters.
  std::string finish_type, finish_reason, finish_message;
  if (!was_finished) {
    const Json* target = FindCondition(doc, "FailureTarget");
    if (target != nullptr && GetStr(*target, {"status"}) == "True") {
      finish_type = "Failed";
      finish_reason = GetStr(*target, {"reason"});
      finish_message = GetStr(*target, {"message"});
    } else if (cond_true("SuccessCriteriaMet")) {
      finish_type = "Complete";
    } else if (failed_total > backoff_limit) {
      finish_type = "Failed";
      finish_reason = "BackoffLimitExceeded";
      finish_message = "Job has reached the specified backoff limit";
    } else if (deadline && start && !suspend && now >= *start + std::chrono::seconds(*deadline)) {
      finish_type = "Failed";
      finish_reason = "DeadlineExceeded";
      finish_message = "Job was active longer than specified deadline";
    } else {
      bool complete = false;
      if (indexed && completions) {
        complete = static_cast<int64_t>(completed.size()) >= *completions;
      } else if (completions) {
        complete = succeeded_total >= *completions;
      } else {
        complete = succeeded_total > 0 && active == 0;
      }
      if (complete) finish_type = "Complete";
    }
  }
  const bool finished = was_finished || !finish_type.empty();

  auto delete_pod = [&](const ObjectPtr& p) -> Status {
    DeleteOptions d;
    d.precondition_uid = p->uid();
    d.user = ControllerWrite("job-controller").user;
    auto r = ctx_.store->Delete(kPodsResource, ns, p->name(), d);
    if (!r.ok() && r.status().reason() != "NotFound" && r.status().reason() != "Conflict") {
      return r.status();
    }
    return Status::OK();
  };

  Status manage_error;
  bool start_now = false;
  bool deleted_active = false;
  if (finished || suspend || job->deleting()) {
    // A finished or suspended job's running pods are deleted (a complete one rarely has any).
    if (finished || suspend) {
      for (const ObjectPtr& p : pods) {
        if (!pods_->Get(p).Active()) continue;
        deleted_active = true;
        // Pods a suspension removes are not failures: stop tracking them first.
        if (suspend && !finished) KAI_RETURN_IF_ERROR(RemoveTrackingFinalizer(ctx_.store, p));
        KAI_RETURN_IF_ERROR(delete_pod(p));
      }
    }
  } else {
    start_now = !start.has_value();
    if (start_now) start = now;
    if (deadline) {
      loop_.AddAfter(key, *start + std::chrono::seconds(*deadline) - now);
    }
    // How many should run.
    std::vector<int64_t> pending_indexes;
    int64_t want;
    std::set<int64_t> running_indexes;
    if (indexed && completions) {
      for (const ObjectPtr& p : pods) {
        const PodSummary& s = pods_->Get(p);
        if (!s.Active()) continue;
        try {
          running_indexes.insert(std::stoll(s.completion_index));
        } catch (...) {
        }
      }
      for (int64_t i = 0; i < *completions; ++i) {
        if (!completed.count(i) && !running_indexes.count(i)) pending_indexes.push_back(i);
      }
      want = std::min<int64_t>(parallelism, *completions - static_cast<int64_t>(completed.size()));
    } else if (completions) {
      want = std::min(parallelism, *completions - succeeded_total);
    } else {
      want = succeeded_total > 0 ? 0 : parallelism;
    }
    want = std::max<int64_t>(want, 0);
    if (active < want) {
      const WallTime retry_at = bo.last + FailureBackoff(bo.failures);
      if (bo.failures > 0 && now < retry_at) {
        loop_.AddAfter(key, retry_at - now);
      } else {
        const Json* tmpl = Path(doc, {"spec", "template"});
        const int64_t n = std::min(want - active, kBurst);
        for (int64_t i = 0; i < n && tmpl != nullptr; ++i) {
          std::string gen = name + "-";
          std::optional<int64_t> index;
          if (indexed) {
            if (static_cast<size_t>(i) >= pending_indexes.size()) break;
            index = pending_indexes[static_cast<size_t>(i)];
            gen = name + "-" + std::to_string(*index) + "-";
          }
          JsonAlloc scratch;
          JsonDoc pod =
              PodFromTemplate(*tmpl, gen, ControllerRef("batch/v1", "Job", *job, scratch));
          JsonAlloc& a = pod.GetAllocator();
          Json& meta = pod["metadata"];
          Json* fin = Member(meta, "finalizers");
          if (fin == nullptr || !fin->IsArray()) {
            SetMember(meta, "finalizers", Json(rapidjson::kArrayType), a);
            fin = Member(meta, "finalizers");
          }
          fin->PushBack(Json(kTrackingFinalizer, a), a);
          if (index) {
            const std::string idx = std::to_string(*index);
            SetString(EnsureObject(meta, "annotations", a), kCompletionIndex, idx, a);
            SetString(EnsureObject(meta, "labels", a), kCompletionIndex, idx, a);
            Json& spec = pod["spec"];
            SetString(spec, "hostname", StrCat(name, "-", idx), a);
            for (const char* field : {"initContainers", "containers"}) {
              Json* cs = Member(spec, field);
              if (cs == nullptr || !cs->IsArray()) continue;
              for (Json& c : cs->GetArray()) {
                Json* env = Member(c, "env");
                if (env == nullptr || !env->IsArray()) {
                  SetMember(c, "env", Json(rapidjson::kArrayType), a);
                  env = Member(c, "env");
                }
                Json e(rapidjson::kObjectType);
                e.AddMember("name", "JOB_COMPLETION_INDEX", a);
                Json ref(rapidjson::kObjectType);
                ref.AddMember(
                    "fieldPath",
                    Str(std::string("metadata.annotations['") + kCompletionIndex + "']", a), a);
                Json vf(rapidjson::kObjectType);
                vf.AddMember("fieldRef", ref, a);
                e.AddMember("valueFrom", vf, a);
                env->PushBack(e, a);
              }
            }
          }
          auto r = ctx_.store->Create(kPodsResource, ns, Serialize(pod),
                                      ControllerWrite("job-controller"));
          if (!r.ok()) {
            manage_error = r.status();
            break;
          }
        }
      }
    } else if (active > want) {
      std::vector<std::pair<ObjectPtr, PodSummary>> ranked;
      for (const ObjectPtr& p : pods) {
        if (pods_->Get(p).Active()) ranked.emplace_back(p, pods_->Get(p));
      }
      std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        return DeleteFirst(x.first, x.second, y.first, y.second);
      });
      for (int64_t i = 0; i < active - want && i < static_cast<int64_t>(ranked.size()); ++i) {
        KAI_RETURN_IF_ERROR(delete_pod(ranked[static_cast<size_t>(i)].first));
      }
    }
  }

  // Status.
  int64_t n_active = 0, n_ready = 0, n_terminating = 0;
  for (const ObjectPtr& p : owned()) {
    const PodSummary& s = pods_->Get(p);
    if (s.Active()) {
      ++n_active;
      n_ready += s.ready;
    } else if (s.deleting && !s.Terminal()) {
      ++n_terminating;
    }
  }
  // The terminal condition waits for the pods recorded now (their finalizers go below) and for
  // pods deleted now to be counted.
  const bool terminal_now = !was_finished && !finish_type.empty() && unc_succeeded.empty() &&
                            unc_failed.empty() && to_release.empty() && !more && !deleted_active &&
                            n_active == 0;
  auto r = ctx_.store->Mutate(
      kJobsResource, ns, name,
      [&](MutableObject& m) -> Status {
        if (GetStr(m.doc(), {"metadata", "uid"}) != uid) return CancelledError("replaced");
        JsonAlloc& a = m.alloc();
        Json& st = EnsureObject(m.doc(), "status", a);
        SetCount(st, "active", n_active, a, true);
        SetCount(st, "ready", n_ready, a, false);
        SetCount(st, "terminating", n_terminating, a, false);
        SetCount(st, "succeeded", succeeded, a, true);
        SetCount(st, "failed", failed, a, true);
        Json unc(rapidjson::kObjectType);
        for (auto [field, list] :
             {std::pair{"succeeded", &unc_succeeded}, std::pair{"failed", &unc_failed}}) {
          if (list->empty()) continue;
          Json arr(rapidjson::kArrayType);
          for (const std::string& u : *list) arr.PushBack(Str(u, a), a);
          unc.AddMember(Str(field, a), arr, a);
        }
        SetMember(st, "uncountedTerminatedPods", std::move(unc), a);
        if (indexed) {
          if (completed.empty()) {
            RemoveMember(st, "completedIndexes");
          } else {
            SetString(st, "completedIndexes", FormatIndexes(completed), a);
          }
        }
        if (start_now) SetString(st, "startTime", now_s, a);
        if (suspend && !finished) {
          SetStatusCondition(st, "Suspended", "True", "JobSuspended", "Job suspended", now_s, a,
                             "lastProbeTime");
          RemoveMember(st, "startTime");
        } else if (FindCondition(m.doc(), "Suspended") != nullptr && !finished) {
          SetStatusCondition(st, "Suspended", "False", "JobResumed", "Job resumed", now_s, a,
                             "lastProbeTime");
        }
        if (!finish_type.empty()) {
          if (finish_type == "Failed") {
            SetStatusCondition(st, "FailureTarget", "True", finish_reason, finish_message, now_s, a,
                               "lastProbeTime");
          } else {
            SetStatusCondition(st, "SuccessCriteriaMet", "True", "CompletionsReached",
                               "Reached expected number of succeeded pods", now_s, a,
                               "lastProbeTime");
          }
        }
        if (terminal_now) {
          if (finish_type == "Complete") SetString(st, "completionTime", now_s, a);
          SetStatusCondition(st, finish_type, "True",
                             finish_type == "Failed" ? finish_reason : "CompletionsReached",
                             finish_type == "Failed" ? finish_message
                                                     : "Reached expected number of succeeded pods",
                             now_s, a, "lastProbeTime");
        }
        return Status::OK();
      },
      ControllerWrite("job-controller", "status"));
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kCancelled || r.status().reason() == "NotFound") {
      return Status::OK();
    }
    return r.status();
  }
  // The status now records these pods: their tracking finalizer can go.
  for (const ObjectPtr& p : to_release) KAI_RETURN_IF_ERROR(RemoveTrackingFinalizer(ctx_.store, p));
  // Criteria met, terminal condition pending: count what was just released at once (pod
  // changes would only sync after the batch period).
  const bool terminal = was_finished || terminal_now;
  if (!finish_type.empty() && !terminal && !to_release.empty()) loop_.Add(key);

  // The TTL-after-finished controller.
  if (terminal && ttl) {
    auto fd = Parse((*r)->json());
    WallTime done = now;
    if (fd.ok()) {
      if (auto t = ParseRfc3339(GetStr(*fd, {"status", "completionTime"})); t.ok()) {
        done = *t;
      } else if (const Json* c = FindCondition(*fd, "Failed"); c != nullptr) {
        if (auto ft = ParseRfc3339(GetStr(*c, {"lastTransitionTime"})); ft.ok()) done = *ft;
      }
    }
    const WallTime expire = done + std::chrono::seconds(*ttl);
    if (now >= expire) {
      DeleteOptions d;
      d.precondition_uid = uid;
      d.propagation_policy = "Foreground";
      d.user = ControllerWrite("ttl-after-finished-controller").user;
      auto del = ctx_.store->Delete(kJobsResource, ns, name, d);
      if (!del.ok() && del.status().reason() != "NotFound" && del.status().reason() != "Conflict") {
        return del.status();
      }
    } else {
      loop_.AddAfter(key, expire - now);
    }
  }
  if (terminal) backoff_.erase(key);
  return manage_error;
}

}  // namespace kai::localkube
