#include "scheduler/app/simulate.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>

#include "api/json_quote.h"
#include "api/well_known.h"
#include "kube/base/command_line.h"
#include "kube/base/file.h"
#include "kube/base/random.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "kube/base/zip_reader.h"
#include "scheduler/actions/actions.h"
#include "scheduler/app/cluster_response.h"
#include "scheduler/app/debug_snapshot_load.h"
#include "scheduler/app/snapshot_references.h"
#include "scheduler/cache/cluster_model.h"
#include "scheduler/framework/job_status.h"
#include "scheduler/framework/session.h"
#include "scheduler/framework/statement.h"
#include "scheduler/plugins/plugins.h"

namespace kai::scheduler {

namespace {

constexpr const char* kUsage =
    "usage: kai-scheduler simulate --snapshot FILE [--actions LIST] [--cycles N] "
    "[-o json|yaml|table] [--strict] [--seed S]";

constexpr const char* kHelp =
    "\n\nPrints the decisions of scheduling cycles on a snapshot, without an API server.\n\n"
    "  --snapshot FILE   objects as `kubectl get -o yaml` prints them (multi-document YAML or a\n"
    "                    List: Node, Pod, PodGroup, Queue, PriorityClass, SchedulingShard, "
    "Config,\n"
    "                    Topology, ConfigMap, BindRequest), or a scheduler's /get-snapshot zip or\n"
    "                    its snapshot.json\n"
    "  --actions LIST    comma-separated actions (default: the configuration's, KAI's order\n"
    "                    allocate,consolidation,reclaim,preempt,stalegangeviction)\n"
    "  --cycles N        run N cycles, applying each one's decisions as the cluster would before\n"
    "                    the next (bound pods run, evicted pods come back pending); default 1\n"
    "  -o FORMAT         json (default; ../shared/scenarios/FORMAT.md), yaml, or table (for "
    "people)\n"
    "  --strict          dangling references (a pod naming a missing PodGroup, ...) are errors\n"
    "  --seed S          seed of the ids of newly shared GPU groups\n\n"
    "Exit status: 0 decisions printed, 1 bad snapshot (the message names the object and field),\n"
    "2 bad arguments.\n";

std::string BeforeState(PodStatus s) {
  switch (s) {
    case PodStatus::kReleasing:
      return "Releasing";
    case PodStatus::kRunning:
    case PodStatus::kBound:
    case PodStatus::kBinding:
      return "Running";
    case PodStatus::kSucceeded:
      return "Succeeded";
    case PodStatus::kFailed:
      return "Failed";
    case PodStatus::kUnknown:
      return "Unknown";
    case PodStatus::kGated:
      return "Gated";
    default:
      return "Pending";
  }
}

Status Configure(const LoadedObjects& objects, const DebugSnapshot* debug,
                 const SimulateOptions& opts, SchedulerConfiguration* conf,
                 SchedulerParams* params) {
  *conf = DefaultSchedulerConfiguration();
  const api::SchedulingShard* shard = nullptr;
  for (const auto& s : objects.shards) {
    if (s->metadata.name == "default" || shard == nullptr) shard = s.get();
  }
  if (shard != nullptr) KAI_RETURN_IF_ERROR(ConfigFromSchedulingShard(*shard, conf, params));
  // A debug snapshot carries the live scheduler's effective configuration and flags.
  if (debug != nullptr && debug->conf) *conf = *debug->conf;
  if (debug != nullptr && debug->params) *params = *debug->params;
  if (opts.actions) conf->actions = *opts.actions;
  return Status::OK();
}

QueueQuantities ToQueueQuantities(const ResourceVector& v) {
  return {v.gpu(), v.milli_cpu(), v.memory()};
}

// What the pods of each queue and of its descendants hold (allocated) and ask for (requested)
// after the cycle: a pipelined pod still asks for its resources, an evicted (releasing) one no
// longer. Used when no plugin reports the queues' numbers. One pass over the jobs: each job's sums
// go to its queue and to every ancestor (a parent cycle is walked once); a job of an unknown queue
// counts nowhere.
std::map<std::string, std::pair<ResourceVector, ResourceVector>> SubtreeUsages(
    const ClusterInfo& c) {
  std::map<std::string, std::pair<ResourceVector, ResourceVector>> out;
  for (const auto& [name, q] : c.queues) {
    out.emplace(name, std::make_pair(ResourceVector(c.vector_map->size()),
                                     ResourceVector(c.vector_map->size())));
  }
  std::set<std::string> seen;
  for (const auto& [id, job] : c.jobs) {
    if (c.queues.count(job->queue()) == 0) continue;
    ResourceVector alloc(c.vector_map->size()), req(c.vector_map->size());
    for (const PodInfo* t : job->tasks()) {
      if (IsAllocatedStatus(t->status)) {
        alloc.Add(t->accepted.size() > 0 && !t->accepted.IsZero() ? t->accepted : t->res_req);
      }
      if (IsActiveAllocatedStatus(t->status) || t->status == PodStatus::kPending) {
        req.Add(t->res_req);
      }
    }
    seen.clear();
    for (auto it = out.find(job->queue()); it != out.end() && seen.insert(it->first).second;
         it = out.find(c.queues.at(it->first)->parent())) {
      it->second.first.Add(alloc);
      it->second.second.Add(req);
    }
  }
  return out;
}

}  // namespace

StatusOr<SimulateOptions> ParseSimulateArgs(const std::vector<std::string>& args) {
  SimulateOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool has_value = false;
    if (auto eq = a.find('='); a.starts_with("--") && eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_value = true;
    }
    auto next = [&]() -> StatusOr<std::string> {
      if (has_value) return value;
      if (i + 1 >= args.size()) return InvalidArgumentError(a + ": missing value\n" + kUsage);
      return args[++i];
    };
    if (a == "--snapshot" || a == "-f") {
      KAI_ASSIGN_OR_RETURN(o.snapshot_path, next());
    } else if (a == "--actions") {
      KAI_ASSIGN_OR_RETURN(std::string list, next());
      std::vector<std::string> actions;
      for (const auto& part : StrSplit(list, ',')) {
        std::string name(StripWhitespace(part));
        if (name.empty()) continue;
        KAI_RETURN_IF_ERROR(CheckActionName(name).WithPrefix("--actions"));
        actions.push_back(name);
      }
      o.actions = actions;
    } else if (a == "--cycles") {
      KAI_ASSIGN_OR_RETURN(std::string v, next());
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > 100000) {
        return InvalidArgumentError("--cycles: expected a positive integer, got \"" + v + "\"");
      }
      o.cycles = static_cast<int>(n);
    } else if (a == "-o" || a == "--output") {
      KAI_ASSIGN_OR_RETURN(o.output, next());
      if (o.output != "json" && o.output != "yaml" && o.output != "table") {
        return InvalidArgumentError("-o: expected json, yaml or table, got \"" + o.output + "\"");
      }
    } else if (a == "--strict") {
      o.strict = true;
    } else if (a == "--seed") {
      KAI_ASSIGN_OR_RETURN(std::string v, next());
      o.seed = std::strtoull(v.c_str(), nullptr, 10);
    } else {
      return InvalidArgumentError("unknown argument \"" + a + "\"\n" + kUsage);
    }
  }
  if (o.snapshot_path.empty())
    return InvalidArgumentError(std::string("--snapshot is required\n") + kUsage);
  return o;
}

StatusOr<SimulationResult> RunSimulation(const SimulateOptions& opts, Clock* clock) {
  std::string text = opts.snapshot_text;
  if (!opts.snapshot_path.empty()) {
    auto read = ReadFile(opts.snapshot_path);
    if (!read.ok()) return read.status().WithPrefix("--snapshot " + opts.snapshot_path);
    text = *read;
  }
  // The debug endpoint's zip or its extracted snapshot.json, else a stream of objects.
  std::optional<DebugSnapshot> debug;
  const std::string source = opts.snapshot_path.empty() ? "snapshot" : opts.snapshot_path;
  if (LooksLikeZip(text)) {
    auto d = LoadSnapshotZip(text);
    if (!d.ok()) return d.status().WithPrefix(source);
    debug = std::move(*d);
  } else if (LooksLikeSnapshotJson(text)) {
    auto d = LoadSnapshotJson(text);
    if (!d.ok()) return d.status().WithPrefix(source);
    debug = std::move(*d);
  }
  LoadedObjects objects;
  if (debug) {
    objects = std::move(debug->objects);
  } else {
    KAI_ASSIGN_OR_RETURN(objects, LoadObjects(text));
  }
  SchedulerConfiguration conf;
  SchedulerParams params;
  KAI_RETURN_IF_ERROR(Configure(objects, debug ? &*debug : nullptr, opts, &conf, &params));
  const std::vector<std::string> references =
      CheckSnapshotReferences(objects, params, /*include_model_warnings=*/opts.strict);
  if (opts.strict && !references.empty()) {
    std::string msg = "dangling references (--strict):";
    for (const auto& d : references) msg += "\n  " + d;
    return InvalidArgumentError(msg);
  }
  std::vector<std::string> dangling = debug ? debug->warnings : std::vector<std::string>{};
  dangling.insert(dangling.end(), references.begin(), references.end());

  ClusterModel model;
  model.AddAll(objects);

  PluginRegistry plugins;
  RegisterDefaultPlugins(&plugins);
  ActionRegistry actions;
  RegisterDefaultActions(&actions);
  SeededRandom random(opts.seed);

  SimulationResult result;
  FailedSearchBackoff failed_search_backoff;  // across the cycles, as the live scheduler keeps it
  for (int cycle = 1; cycle <= opts.cycles; ++cycle) {
    std::vector<std::string> warnings = dangling;
    std::unique_ptr<ClusterInfo> snapshot = model.Snapshot(params, &warnings);
    std::map<std::string, std::string> before;
    for (const auto& t : snapshot->tasks) before[t->key()] = BeforeState(t->status);

    DecisionRecorder sink;
    Session ssn("sim-" + std::to_string(cycle), std::move(snapshot), conf, params, &sink, clock,
                &random);
    ssn.set_failed_search_backoff(&failed_search_backoff);
    ssn.Open(plugins);
    for (const std::string& name : conf.actions) {
      const ActionRegistry::Builder* b = actions.Find(name);
      if (b == nullptr) {
        warnings.push_back("action \"" + name + "\" is not known; skipped");
        continue;
      }
      (*b)()->Execute(&ssn);
    }
    for (const auto& [action, n] : ssn.action_counts()) {
      if (n.action_budget_stops + n.job_budget_stops == 0) continue;
      warnings.push_back(
          "cycle " + std::to_string(cycle) + ": " + action + ": scenario search budget ran out (" +
          std::to_string(n.job_budget_stops) + " job search(es) stopped" +
          (n.action_budget_stops > 0 ? ", jobs after them not tried" : "") +
          "); decisions may differ from an exhaustive search (spec.scenarioSearchBudgets)");
    }
    ssn.Close();
    ClusterInfo& c = ssn.cluster();

    if (cycle < opts.cycles) {
      ApplyDecisionsToModel(c, sink, clock->Now(), &model);
      continue;
    }

    // Report the last cycle.
    result.cycle = cycle;
    result.cycles = opts.cycles;
    result.warnings = warnings;
    for (const auto& t : c.tasks) {
      SimPod p;
      p.namespace_ = t->namespace_();
      p.name = t->name();
      const auto& ann = t->pod().metadata.annotations;
      auto pg = ann.find(std::string(api::kPodGroupNameAnnotation));
      if (pg != ann.end()) p.podgroup = pg->second;
      if (const PodGroupInfo* job = c.FindJob(t->job())) p.queue = job->queue();
      p.before = before[t->key()];
      auto d = sink.decisions().find(t->key());
      if (d != sink.decisions().end()) {
        p.after = d->second.kind;
        p.node = d->second.kind == "Evicted" ? t->pod().spec.node_name : d->second.node;
      } else {
        p.after = p.before;
        p.node = t->node_name;
        if (p.after == "Pending") p.node.clear();
      }
      p.gpu_groups = t->gpu_groups;
      if (t->IsFractionRequest()) p.gpu_fraction = t->gpu_req.Portion();
      result.pods.push_back(std::move(p));
    }
    std::map<std::string, std::string> pod_messages;
    for (const auto& [id, job] : c.jobs) {
      SimPodGroup g;
      g.namespace_ = job->namespace_();
      g.name = job->name();
      // What KAI reports at session close (§21.2): the NotReady event text for incomplete
      // gangs, else the PodGroup's Unschedulable message with its reasons.
      JobStatusReport report =
          BuildJobStatusReport(*job, NodePoolOf(*job, params.node_pool_label_key));
      g.unschedulable_reason = report.Explanation();
      for (const auto& e : report.reasons) g.reasons.emplace_back(e.reason, e.message);
      for (const auto& pm : report.pod_messages) pod_messages[pm.task->key()] = pm.message;
      result.podgroups.push_back(std::move(g));
    }
    for (auto& p : result.pods) {
      if (p.after != "Pending") continue;
      auto it = pod_messages.find(p.namespace_ + "/" + p.name);
      if (it != pod_messages.end()) p.unschedulable_message = it->second;
    }
    std::optional<std::map<std::string, std::pair<ResourceVector, ResourceVector>>> usages;
    for (const auto& [name, q] : c.queues) {
      SimQueue sq;
      sq.name = name;
      sq.parent = q->parent();
      if (auto fs = ssn.QueueFairShare(*q)) sq.fair_share = fs->ToMap();
      // The proportion plugin's numbers; without the plugin, sums over the queue's subtree.
      std::optional<QueueQuantities> allocated = ssn.QueueAllocated(*q);
      std::optional<QueueQuantities> requested = ssn.QueueRequested(*q);
      if (!allocated || !requested) {
        if (!usages) usages = SubtreeUsages(c);
        const auto& [alloc, req] = usages->at(name);
        if (!allocated) allocated = ToQueueQuantities(alloc);
        if (!requested) requested = ToQueueQuantities(req);
      }
      sq.allocated = allocated->ToMap();
      sq.requested = requested->ToMap();
      result.queues.push_back(std::move(sq));
    }
    // Nothing points into the snapshot any more: the next cycle's snapshot reuses its objects.
    model.Recycle(ssn.TakeCluster());
  }
  return result;
}

std::string FormatJson(const SimulationResult& r) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.SetIndent(' ', 2);
  auto resources = [&](const std::map<std::string, double>& m) {
    w.StartObject();
    for (const auto& [k, v] : m) {
      w.Key(k.c_str());
      w.Double(v);
    }
    w.EndObject();
  };
  w.StartObject();
  w.Key("pods");
  w.StartArray();
  for (const auto& p : r.pods) {
    w.StartObject();
    w.Key("namespace");
    w.String(p.namespace_.c_str());
    w.Key("name");
    w.String(p.name.c_str());
    w.Key("podGroup");
    w.String(p.podgroup.c_str());
    w.Key("queue");
    w.String(p.queue.c_str());
    w.Key("before");
    w.String(p.before.c_str());
    w.Key("after");
    w.String(p.after.c_str());
    w.Key("node");
    w.String(p.node.c_str());
    w.Key("gpuGroups");
    w.StartArray();
    for (const auto& g : p.gpu_groups) w.String(g.c_str());
    w.EndArray();
    w.Key("gpuFraction");
    w.Double(p.gpu_fraction);
    if (!p.unschedulable_message.empty()) {
      w.Key("unschedulableMessage");
      w.String(p.unschedulable_message.c_str());
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("podGroups");
  w.StartArray();
  for (const auto& g : r.podgroups) {
    w.StartObject();
    w.Key("namespace");
    w.String(g.namespace_.c_str());
    w.Key("name");
    w.String(g.name.c_str());
    w.Key("unschedulableReason");
    w.String(g.unschedulable_reason.c_str());
    w.Key("reasons");
    w.StartArray();
    for (const auto& [reason, message] : g.reasons) {
      w.StartObject();
      w.Key("reason");
      w.String(reason.c_str());
      w.Key("message");
      w.String(message.c_str());
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("queues");
  w.StartArray();
  for (const auto& q : r.queues) {
    w.StartObject();
    w.Key("name");
    w.String(q.name.c_str());
    w.Key("parent");
    w.String(q.parent.c_str());
    w.Key("fairShare");
    resources(q.fair_share);
    w.Key("allocated");
    resources(q.allocated);
    w.Key("requested");
    resources(q.requested);
    w.EndObject();
  }
  w.EndArray();
  w.Key("warnings");
  w.StartArray();
  for (const auto& s : r.warnings) w.String(s.c_str());
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString()) + "\n";
}

namespace {

// A JSON string is a YAML double-quoted scalar, with every character escaped that needs it.
std::string YamlString(const std::string& s) { return api::JsonQuote(s); }

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.10g", v);
  return buf;
}

std::string YamlResources(const std::map<std::string, double>& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    out += (first ? "" : ", ") + k + ": " + Num(v);
    first = false;
  }
  return out + "}";
}

}  // namespace

std::string FormatYaml(const SimulationResult& r) {
  std::string o = "pods:\n";
  for (const auto& p : r.pods) {
    o += "- namespace: " + YamlString(p.namespace_) + "\n  name: " + YamlString(p.name) +
         "\n  podGroup: " + YamlString(p.podgroup) + "\n  queue: " + YamlString(p.queue) +
         "\n  before: " + p.before + "\n  after: " + p.after + "\n  node: " + YamlString(p.node) +
         "\n  gpuGroups: [";
    for (size_t i = 0; i < p.gpu_groups.size(); ++i) {
      o += (i ? ", " : "") + YamlString(p.gpu_groups[i]);
    }
    o += "]\n  gpuFraction: " + Num(p.gpu_fraction) + "\n";
  }
  o += "podGroups:\n";
  for (const auto& g : r.podgroups) {
    o += "- namespace: " + YamlString(g.namespace_) + "\n  name: " + YamlString(g.name) +
         "\n  unschedulableReason: " + YamlString(g.unschedulable_reason) + "\n";
  }
  o += "queues:\n";
  for (const auto& q : r.queues) {
    o += "- name: " + YamlString(q.name) + "\n  parent: " + YamlString(q.parent) +
         "\n  fairShare: " + YamlResources(q.fair_share) +
         "\n  allocated: " + YamlResources(q.allocated) +
         "\n  requested: " + YamlResources(q.requested) + "\n";
  }
  if (!r.warnings.empty()) {
    o += "warnings:\n";
    for (const auto& w : r.warnings) o += "- " + YamlString(w) + "\n";
  }
  return o;
}

int SimulateMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::cout << kUsage << kHelp;
    return 0;
  }
  auto opts = ParseSimulateArgs(args);
  if (!opts.ok()) {
    std::cerr << "kai-scheduler simulate: " << opts.status().message() << "\n";
    return 2;
  }
  auto result = RunSimulation(*opts, RealClock::Get());
  if (!result.ok()) {
    std::cerr << "kai-scheduler simulate: " << result.status().message() << "\n";
    return 1;
  }
  for (const auto& w : result->warnings) std::cerr << "warning: " << w << "\n";
  if (opts->output == "yaml") {
    std::cout << FormatYaml(*result);
  } else if (opts->output == "table") {
    std::cout << FormatTable(*result);
  } else {
    std::cout << FormatJson(*result);
  }
  return 0;
}

}  // namespace kai::scheduler
