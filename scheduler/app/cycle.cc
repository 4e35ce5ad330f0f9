#include "scheduler/app/cycle.h"

#include <glog/logging.h>

#include "scheduler/actions/actions.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler {

namespace {

double MillisSince(const Clock* clock, MonoTime start) {
  return std::chrono::duration<double, std::milli>(clock->NowMonotonic() - start).count();
}

}  // namespace

SchedulingCycle::SchedulingCycle(SchedulerConfiguration conf, SchedulerParams params,
                                 OutputSink* sink, Clock* clock, Random* random)
    : conf_(std::move(conf)),
      params_(std::move(params)),
      sink_(sink),
      clock_(clock),
      random_(random) {
  RegisterDefaultPlugins(&plugins_);
  RegisterDefaultActions(&actions_);
}

CycleResult SchedulingCycle::Run(std::unique_ptr<ClusterInfo> snapshot) {
  CycleResult r;
  MonoTime start = clock_->NowMonotonic();
  r.session_id = random_->AlphaNumeric(6);
  r.clean_stale_bind_requests = sink_->CleanStaleBindRequests(*snapshot);

  MonoTime open_start = clock_->NowMonotonic();
  Session ssn(r.session_id, std::move(snapshot), conf_, params_, sink_, clock_, random_);
  failed_search_backoff_.Retain(
      [&ssn](const std::string& uid) { return ssn.cluster().FindJob(uid) != nullptr; });
  ssn.set_failed_search_backoff(&failed_search_backoff_);
  sink_->BeginSession(&ssn.cluster());
  ssn.Open(plugins_);
  r.timings.open_session_ms = MillisSince(clock_, open_start);

  auto unwritten = [this] {
    return sink_->counters().bind_request_failures + sink_->counters().bind_requests_in_doubt;
  };
  const int unwritten_before = unwritten();
  for (const std::string& name : conf_.actions) {
    const ActionRegistry::Builder* b = actions_.Find(name);
    if (b == nullptr) {
      r.warnings.push_back("action \"" + name + "\" is not known; skipped");
      continue;
    }
    // A refused BindRequest or one in doubt (API server unavailable, 500, a conflict) means the
    // session may not match the cluster: a gang may be partly written, its other pods pending
    // again. The actions after it evict, and would take that state for the cluster's (e.g.
    // consolidation moving the written half of the gang to make room for a pod that fits on idle
    // GPUs). They wait for the next cycle's fresh snapshot. (KAI runs them: a deliberate
    // difference.)
    if (unwritten() != unwritten_before) {
      LOG(WARNING) << "session " << r.session_id << ": action " << name
                   << " skipped: a BindRequest was not written (or may not be) in this cycle";
      r.skipped_actions.push_back(name);
      continue;
    }
    MonoTime action_start = clock_->NowMonotonic();
    // Allocate never evicts: its BindRequests may be created concurrently, all answered before
    // the next action (which may evict) and before the session closes. A refused one undoes its
    // allocation then, and the evicting actions after it are skipped (above).
    sink_->set_defer_binds(name == "allocate");
    (*b)()->Execute(&ssn);
    sink_->set_defer_binds(false);
    ssn.JoinBinds();
    r.timings.action_ms.emplace_back(name, MillisSince(clock_, action_start));
  }

  MonoTime close_start = clock_->NowMonotonic();
  ssn.Close();
  for (const Session::PluginLatency& l : ssn.plugin_latencies()) {
    r.timings.plugin_ms.push_back({l.plugin, std::string(l.on_session),
                                   std::chrono::duration<double, std::milli>(l.took).count()});
  }
  r.action_counts = ssn.action_counts();
  if (const auto* p = dynamic_cast<const ProportionPlugin*>(ssn.FindPlugin("proportion"))) {
    r.queues = p->Metrics();
  }
  sink_->RecordJobStatuses(ssn.cluster());
  sink_->BeginSession(nullptr);
  r.used_snapshot = ssn.TakeCluster();
  r.timings.close_session_ms = MillisSince(clock_, close_start);
  r.timings.e2e_ms = MillisSince(clock_, start);
  return r;
}

}  // namespace kai::scheduler
