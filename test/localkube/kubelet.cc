#include "test/localkube/kubelet.h"

#include <glog/logging.h>

#include <algorithm>
#include <map>
#include <vector>

#include "api/codec.h"
#include "api/pod.h"
#include "api/pod_resources.h"
#include "api/quantity.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"
#include "test/localkube/mutable_object.h"
#include "test/localkube/node_pool.h"
#include "test/localkube/store.h"

namespace kai::localkube {
namespace {

const GroupVersionResource kPodsGvr{"", "v1", "pods"};
const GroupVersionResource kNodesGvr{"", "v1", "nodes"};
const GroupVersionResource kLeasesGvr{"coordination.k8s.io", "v1", "leases"};
const GroupVersionResource kEventsGvr{"", "v1", "events"};
constexpr std::string_view kGpuResource = "nvidia.com/gpu";
constexpr std::string_view kReserveForGpuIndexAnnotation = "run.ai/reserve_for_gpu_index";
constexpr char kPodPrefix[] = "p:";
constexpr char kNodePrefix[] = "n:";
constexpr char kResyncKey[] = "resync";

// A reconcile that found the object changed under it: the change re-queues the key.
Status Superseded() { return CancelledError("superseded"); }
bool IsSuperseded(const Status& s) { return s.code() == StatusCode::kCancelled; }

uint64_t Fnv64(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// 64 hex digits derived from `seed` (container and image IDs).
std::string Hex64(std::string_view seed) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  uint64_t h = Fnv64(seed);
  for (int i = 0; i < 4; ++i) {
    h = Fnv64(std::to_string(i), h);
    for (int b = 0; b < 16; ++b) out += kHex[(h >> (b * 4)) & 15];
  }
  return out;
}

uint32_t ParseIpv4(std::string_view s) {
  uint32_t out = 0;
  int parts = 0;
  uint32_t cur = 0;
  bool digit = false;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      cur = cur * 10 + static_cast<uint32_t>(c - '0');
      digit = true;
      if (cur > 255) return 0;
    } else if (c == '.' || c == '/') {
      if (!digit) return 0;
      out = (out << 8) | cur;
      cur = 0;
      digit = false;
      if (++parts == 4 || c == '/') break;
    } else {
      return 0;
    }
  }
  if (parts == 3 && digit) {
    out = (out << 8) | cur;
    parts = 4;
  }
  return parts == 4 ? out : 0;
}

// The device index of a GPU UUID of `node` ("GPU-<node>-<i>"), or -1.
int DeviceIndex(std::string_view uuid, std::string_view node) {
  const std::string prefix = "GPU-" + std::string(node) + "-";
  if (uuid.substr(0, prefix.size()) != prefix) return -1;
  std::string_view rest = uuid.substr(prefix.size());
  if (rest.empty() || rest.size() > 6) return -1;
  int v = 0;
  for (char c : rest) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

// CrashLoopBackOff delay before restart number `restarts` (kubelet: 10 s doubling, max 5 min).
Duration RestartBackoff(int64_t restarts) {
  const int64_t shift = std::clamp<int64_t>(restarts - 1, 0, 5);
  return std::min<Duration>(std::chrono::seconds(10) * (int64_t{1} << shift),
                            std::chrono::minutes(5));
}

std::string AnnotationOf(const Json& doc, std::string_view key) {
  const Json* ann = Path(doc, {"metadata", "annotations"});
  if (ann == nullptr || !ann->IsObject()) return "";
  const Json* v = Member(*ann, key);
  return v != nullptr && v->IsString() ? std::string(View(*v)) : "";
}

std::optional<WallTime> TimeAt(const Json& obj, std::initializer_list<std::string_view> path) {
  const std::string s = GetStr(obj, path);
  if (s.empty()) return std::nullopt;
  auto t = ParseRfc3339(s);
  if (!t.ok()) return std::nullopt;
  return *t;
}

// Sets condition `type` (keeping lastTransitionTime when the status does not change).
void SetCondition(Json& status, std::string_view type, std::string_view value,
                  std::string_view reason, std::string_view message, const std::string& now,
                  JsonAlloc& a, std::string_view heartbeat_field = "") {
  Json* found = &FindOrAddCondition(status, type, a);
  if (GetStr(*found, {"status"}) != value || Member(*found, "lastTransitionTime") == nullptr) {
    SetString(*found, "lastTransitionTime", now, a);
  }
  SetString(*found, "status", value, a);
  if (!heartbeat_field.empty()) {
    SetString(*found, heartbeat_field, now, a);
  } else if (Member(*found, "lastProbeTime") == nullptr) {
    SetMember(*found, "lastProbeTime", Json(rapidjson::kNullType), a);
  }
  if (reason.empty()) {
    RemoveMember(*found, "reason");
  } else {
    SetString(*found, "reason", reason, a);
  }
  if (message.empty()) {
    RemoveMember(*found, "message");
  } else {
    SetString(*found, "message", message, a);
  }
}

// Kubernetes orders pod conditions as the kubelet writes them.
void SortPodConditions(Json& status, JsonAlloc& a) {
  Json* conds = Member(status, "conditions");
  if (conds == nullptr || !conds->IsArray()) return;
  static const std::vector<std::string_view> kOrder = {"PodReadyToStartContainers", "Initialized",
                                                       "Ready", "ContainersReady", "PodScheduled"};
  auto rank = [](const Json& c) {
    const std::string_view t = View(*Member(c, "type"));
    auto it = std::find(kOrder.begin(), kOrder.end(), t);
    return it == kOrder.end() ? kOrder.size() : static_cast<size_t>(it - kOrder.begin());
  };
  std::vector<Json> items;
  for (Json& c : conds->GetArray()) items.emplace_back(std::move(c));
  std::stable_sort(items.begin(), items.end(),
                   [&](const Json& x, const Json& y) { return rank(x) < rank(y); });
  conds->Clear();
  for (Json& c : items) conds->PushBack(std::move(c), a);
}

WriteOptions KubeletWrite(std::string_view node, std::string_view subresource) {
  WriteOptions o;
  o.field_manager = "kubelet";
  o.subresource = std::string(subresource);
  o.user.username = "system:node:" + std::string(node);
  o.user.groups = {"system:nodes", "system:authenticated"};
  return o;
}

bool TerminalPhase(std::string_view p) { return p == "Succeeded" || p == "Failed"; }

}  // namespace

struct SimulatedKubelet::PodResources {
  std::string uid;
  std::map<std::string, int64_t> milli;  // effective requests
  std::vector<std::string> order;        // resource names as the kubelet checks them
  std::vector<int> devices;              // GPU indexes held
  uint32_t ip = 0;
  std::map<std::string, std::string> node_selector;
  std::vector<std::pair<std::string, int64_t>> container_gpus;  // regular containers
  bool parse_error = false;
};

struct SimulatedKubelet::NodeUsage {
  std::map<std::string, int64_t> milli;
  int64_t pods = 0;
  std::set<int> devices;
  std::set<uint32_t> ips;
};

SimulatedKubelet::SimulatedKubelet(Store* store, KubeletOptions options)
    : store_(store),
      clock_(store->clock()),
      options_(std::move(options)),
      nodes_(store, kNodesGvr),
      pods_(store, kPodsGvr),
      loop_("kubelet", store->clock(), [this](const std::string& key) { return Reconcile(key); }) {
  pods_.AddIndex("node", &ObjectCache::NodeNameIndex);
  nodes_.AddHandler([this](const ObjectPtr& old, const ObjectPtr& now) { OnNode(old, now); });
  pods_.AddHandler([this](const ObjectPtr& old, const ObjectPtr& now) { OnPod(old, now); });
}

SimulatedKubelet::~SimulatedKubelet() { Stop(); }

Status SimulatedKubelet::Start() {
  KAI_RETURN_IF_ERROR(nodes_.Start());
  KAI_RETURN_IF_ERROR(pods_.Start());
  loop_.Start();
  loop_.AddAfter(kResyncKey, options_.resync_period);
  return Status::OK();
}

void SimulatedKubelet::Stop() {
  nodes_.Stop();
  pods_.Stop();
  loop_.Stop();
}

void SimulatedKubelet::WaitIdle() { loop_.WaitIdle(); }

bool SimulatedKubelet::ManagesNode(std::string_view node) const {
  std::lock_guard l(managed_mu_);
  return managed_.find(node) != managed_.end();
}

void SimulatedKubelet::OnNode(const ObjectPtr& old, const ObjectPtr& now) {
  const ObjectPtr& any = now ? now : old;
  bool managed = false;
  if (now) {
    auto doc = Parse(now->json());
    managed = doc.ok() && AnnotationOf(*doc, kSimulatedNodeAnnotation) == "true";
  }
  bool changed;
  {
    std::lock_guard l(managed_mu_);
    changed = managed ? managed_.insert(any->name()).second : managed_.erase(any->name()) > 0;
  }
  if (managed || changed) loop_.Add(kNodePrefix + any->name());
  if (changed) {
    for (const ObjectPtr& p : pods_.ByIndex("node", any->name())) loop_.Add(kPodPrefix + p->Key());
  }
}

void SimulatedKubelet::OnPod(const ObjectPtr& old, const ObjectPtr& now) {
  const ObjectPtr& any = now ? now : old;
  std::string_view node = any->Field("spec.nodeName");
  if (node.empty() && old) node = old->Field("spec.nodeName");
  if (node.empty() || !ManagesNode(node)) return;
  loop_.Add(kPodPrefix + any->Key());
}

Status SimulatedKubelet::Reconcile(const std::string& key) {
  if (key == kResyncKey) {
    nodes_.Resync().IgnoreError();
    pods_.Resync().IgnoreError();
    loop_.AddAfter(kResyncKey, options_.resync_period);
    return Status::OK();
  }
  if (key.rfind(kNodePrefix, 0) == 0) return ReconcileNode(key.substr(2));
  if (key.rfind(kPodPrefix, 0) == 0) {
    Status s = ReconcilePod(key.substr(2));
    return IsSuperseded(s) ? Status::OK() : s;
  }
  return Status::OK();
}

// ---- nodes: Ready heartbeat and lease

Status SimulatedKubelet::ReconcileNode(const std::string& name) {
  ObjectPtr node = nodes_.Get(name);
  if (!node || !ManagesNode(name)) return Status::OK();
  auto doc = Parse(node->json());
  if (!doc.ok()) return doc.status();
  const WallTime now = clock_->Now();
  const MonoTime mono = clock_->NowMonotonic();
  MonoTime next = mono + options_.node_status_interval;

  // Lease: renewed every renew interval.
  auto lease = store_->Get(kLeasesGvr, "kube-node-lease", name);
  if (!lease.ok() && lease.status().reason() == "NotFound") {
    std::string n, u;
    AppendQuoted(&n, name);
    AppendQuoted(&u, node->uid());
    auto created = store_->Create(
        kLeasesGvr, "kube-node-lease",
        "{\"metadata\":{\"name\":" + n +
            ",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":" + n +
            ",\"uid\":" + u + "}]},\"spec\":{\"holderIdentity\":" + n +
            ",\"leaseDurationSeconds\":" + std::to_string(options_.lease_duration_seconds) +
            ",\"renewTime\":\"" + FormatRfc3339Micro(now) + "\"}}",
        KubeletWrite(name, ""));
    if (!created.ok() && created.status().reason() != "AlreadyExists") return created.status();
    next = std::min(next, mono + options_.lease_renew_interval);
  } else if (lease.ok()) {
    auto ld = Parse((*lease)->json());
    std::optional<WallTime> renew = ld.ok() ? TimeAt(*ld, {"spec", "renewTime"}) : std::nullopt;
    if (!renew || now - *renew >= options_.lease_renew_interval) {
      auto m = store_->Mutate(
          kLeasesGvr, "kube-node-lease", name,
          [&](MutableObject& o) {
            Json& spec = EnsureObject(o.doc(), "spec", o.alloc());
            SetString(spec, "holderIdentity", name, o.alloc());
            SetString(spec, "renewTime", FormatRfc3339Micro(now), o.alloc());
            return Status::OK();
          },
          KubeletWrite(name, ""));
      if (!m.ok()) return m.status();
      next = std::min(next, mono + options_.lease_renew_interval);
    } else {
      next = std::min(next, mono + (options_.lease_renew_interval - (now - *renew)));
    }
  } else {
    return lease.status();
  }

  // Ready condition: heartbeat every status interval, or at once when it is not what the node
  // should report.
  const bool want_ready = AnnotationOf(*doc, kNodeReadyAnnotation) != "false";
  const Json* conds = Path(*doc, {"status", "conditions"});
  std::optional<WallTime> heartbeat;
  std::string ready_status;
  if (conds != nullptr && conds->IsArray()) {
    for (const Json& c : conds->GetArray()) {
      if (GetStr(c, {"type"}) != "Ready") continue;
      ready_status = GetStr(c, {"status"});
      heartbeat = TimeAt(c, {"lastHeartbeatTime"});
    }
  }
  const bool stale = !heartbeat || now - *heartbeat >= options_.node_status_interval;
  if (stale || ready_status != (want_ready ? "True" : "False")) {
    const std::string ts = FormatRfc3339(now);
    auto m = store_->Mutate(
        kNodesGvr, "", name,
        [&](MutableObject& o) {
          JsonAlloc& a = o.alloc();
          Json& status = EnsureObject(o.doc(), "status", a);
          SetCondition(status, "MemoryPressure", "False", "KubeletHasSufficientMemory",
                       "kubelet has sufficient memory available", ts, a, "lastHeartbeatTime");
          SetCondition(status, "DiskPressure", "False", "KubeletHasNoDiskPressure",
                       "kubelet has no disk pressure", ts, a, "lastHeartbeatTime");
          SetCondition(status, "PIDPressure", "False", "KubeletHasSufficientPID",
                       "kubelet has sufficient PID available", ts, a, "lastHeartbeatTime");
          if (want_ready) {
            SetCondition(status, "Ready", "True", "KubeletReady", "kubelet is posting ready status",
                         ts, a, "lastHeartbeatTime");
          } else {
            SetCondition(status, "Ready", "False", "KubeletNotReady",
                         "container runtime network not ready: NetworkReady=false (simulated by " +
                             std::string(kNodeReadyAnnotation) + "=false)",
                         ts, a, "lastHeartbeatTime");
          }
          return Status::OK();
        },
        KubeletWrite(name, "status"));
    if (!m.ok()) return m.status();
  } else {
    next = std::min(next, mono + (options_.node_status_interval - (now - *heartbeat)));
  }
  loop_.AddAt(kNodePrefix + name, next);
  return Status::OK();
}

// ---- pods

const SimulatedKubelet::PodResources* SimulatedKubelet::Resources(const ObjectPtr& pod) {
  auto& slot = resources_[pod->Key()];
  if (slot && slot->uid == pod->uid()) return slot.get();
  slot = std::make_unique<PodResources>();
  PodResources& r = *slot;
  r.uid = pod->uid();
  auto typed = api::Decode<api::Pod>(pod->json());
  if (!typed.ok()) {
    r.parse_error = true;
    LOG(WARNING) << "kubelet: pod " << pod->Key() << ": " << typed.status();
    return slot.get();
  }
  const api::ResourceList req = api::PodRequests(typed->spec);
  for (const auto& [name, q] : req) {
    if (q.Sign() <= 0) continue;
    r.milli[name] = q.MilliValue();
  }
  // The kubelet's fit check order: pods, cpu, memory, ephemeral-storage, then the rest.
  for (const char* first : {"cpu", "memory", "ephemeral-storage"}) {
    if (r.milli.count(first)) r.order.push_back(first);
  }
  for (const auto& [name, v] : r.milli) {
    if (name != "cpu" && name != "memory" && name != "ephemeral-storage") r.order.push_back(name);
  }
  r.node_selector = typed->spec.node_selector;
  for (const api::Container& c : typed->spec.containers) {
    int64_t g = 0;
    auto it = c.resources.limits.find(std::string(kGpuResource));
    if (it != c.resources.limits.end()) {
      g = it->second.Value();
    } else if (auto rq = c.resources.requests.find(std::string(kGpuResource));
               rq != c.resources.requests.end()) {
      g = rq->second.Value();
    }
    r.container_gpus.emplace_back(c.name, g);
  }
  // What a previous incarnation of this kubelet assigned (from the stored status). A pod whose
  // text names neither a podIP nor allocatedResourcesStatus has nothing to read (a new pod:
  // skip the parse).
  if (pod->json().find("\"podIP\"") == std::string::npos &&
      pod->json().find("\"allocatedResourcesStatus\"") == std::string::npos) {
    return slot.get();
  }
  auto doc = Parse(pod->json());
  if (doc.ok()) {
    const std::string node(pod->Field("spec.nodeName"));
    r.ip = ParseIpv4(GetStr(*doc, {"status", "podIP"}));
    if (const Json* cs = Path(*doc, {"status", "containerStatuses"}); cs && cs->IsArray()) {
      for (const Json& c : cs->GetArray()) {
        const Json* ars = Member(c, "allocatedResourcesStatus");
        if (ars == nullptr || !ars->IsArray()) continue;
        for (const Json& rs : ars->GetArray()) {
          if (GetStr(rs, {"name"}) != kGpuResource) continue;
          const Json* list = Member(rs, "resources");
          if (list == nullptr || !list->IsArray()) continue;
          for (const Json& d : list->GetArray()) {
            const int idx = DeviceIndex(GetStr(d, {"resourceID"}), node);
            if (idx >= 0) r.devices.push_back(idx);
          }
        }
      }
    }
  }
  return slot.get();
}

StatusOr<const SimulatedKubelet::NodeFacts*> SimulatedKubelet::FactsOf(const ObjectPtr& node) {
  NodeFacts& f = node_facts_[node->name()];
  if (f.resource_version != 0 && f.resource_version == node->resource_version()) return &f;
  auto nd = Parse(node->json());
  if (!nd.ok()) return nd.status();
  NodeFacts fresh;
  fresh.resource_version = node->resource_version();
  if (const Json* al = Path(*nd, {"status", "allocatable"}); al && al->IsObject()) {
    for (auto it = al->MemberBegin(); it != al->MemberEnd(); ++it) {
      auto q = api::Quantity::Parse(View(it->value));
      if (q.ok()) fresh.allocatable_milli[std::string(View(it->name))] = q->MilliValue();
    }
  }
  if (const Json* addrs = Path(*nd, {"status", "addresses"}); addrs && addrs->IsArray()) {
    for (const Json& ad : addrs->GetArray()) {
      if (GetStr(ad, {"type"}) == "InternalIP" && fresh.host_ip.empty()) {
        fresh.host_ip = GetStr(ad, {"address"});
      }
    }
  }
  fresh.pod_cidr = GetStr(*nd, {"spec", "podCIDR"});
  f = std::move(fresh);
  return &f;
}

SimulatedKubelet::NodeUsage SimulatedKubelet::Usage(const std::string& node,
                                                    const std::string& exclude_key) {
  NodeUsage u;
  for (const ObjectPtr& q : pods_.ByIndex("node", node)) {
    if (q->Key() == exclude_key || q->Field("status.phase") != "Running") continue;
    const PodResources* r = Resources(q);
    ++u.pods;
    for (const auto& [name, v] : r->milli) u.milli[name] += v;
    u.devices.insert(r->devices.begin(), r->devices.end());
    if (r->ip != 0) u.ips.insert(r->ip);
  }
  return u;
}

Status SimulatedKubelet::ReconcilePod(const std::string& key) {
  ObjectPtr pod = pods_.Get(key);
  if (!pod) {
    resources_.erase(key);
    times_.erase(key);
    return Status::OK();
  }
  const std::string node_name(pod->Field("spec.nodeName"));
  if (node_name.empty() || !ManagesNode(node_name)) return Status::OK();
  const std::string phase(pod->Field("status.phase"));
  if (TerminalPhase(phase) && !pod->deleting()) return Status::OK();
  ObjectPtr node = nodes_.Get(node_name);
  if (!node) return Status::OK();
  // A running pod that is not being deleted, is no reservation pod and has no simulated
  // lifetime has nothing left to do (the "running" steps below): most events of a bound pod
  // (the kubelet's own Running write, the binder's PodBound condition, label patches) end here
  // without parsing the pod. The substring test can only be wrong in one direction (the text
  // appears elsewhere in the pod), which takes the full path below.
  if (phase == "Running" && !pod->deleting() &&
      pod->namespace_() != options_.reservation_namespace &&
      pod->json().find(kRunDurationAnnotation) == std::string::npos) {
    return Status::OK();
  }

  auto parsed = Parse(pod->json());
  if (!parsed.ok()) return parsed.status();
  const JsonDoc& doc = *parsed;
  const std::string uid = pod->uid();
  PodTimes& times = times_[key];
  if (times.uid != uid) times = PodTimes{.uid = uid};
  // A stored (whole-second) timestamp, or the precise instant it records.
  auto precise = [](const Json& obj, std::initializer_list<std::string_view> path,
                    const std::optional<WallTime>& mem) -> std::optional<WallTime> {
    const std::string stored = GetStr(obj, path);
    if (mem && !stored.empty() && FormatRfc3339(*mem) == stored) return mem;
    return TimeAt(obj, path);
  };
  const std::string ns = pod->namespace_();
  const std::string name = pod->name();
  const WallTime now = clock_->Now();
  const MonoTime mono_now = clock_->NowMonotonic();
  const std::string now_s = FormatRfc3339(now);
  auto at = [&](WallTime t) { return mono_now + (t - now); };
  const WriteOptions status_write = KubeletWrite(node_name, "status");

  // Writes status through the status subresource, only while the pod is the same pod in the
  // phase this decision was made for.
  auto write_status = [&](const std::function<void(Json & status, JsonAlloc & a)>& fn) -> Status {
    auto r = store_->Mutate(
        kPodsGvr, ns, name,
        [&](MutableObject& o) -> Status {
          if (GetStr(o.doc(), {"metadata", "uid"}) != uid ||
              GetStr(o.doc(), {"status", "phase"}) != phase) {
            return Superseded();
          }
          Json& status = EnsureObject(o.doc(), "status", o.alloc());
          fn(status, o.alloc());
          return Status::OK();
        },
        status_write);
    if (!r.ok() && r.status().reason() == "NotFound") return Status::OK();
    return r.status();
  };

  std::vector<std::string> containers;
  if (const Json* cs = Path(doc, {"spec", "containers"}); cs && cs->IsArray()) {
    for (const Json& c : cs->GetArray()) containers.push_back(GetStr(c, {"name"}));
  }
  const std::string restart_policy = GetStr(doc, {"spec", "restartPolicy"});
  const std::string exit_code_s = AnnotationOf(doc, kExitCodeAnnotation);
  int exit_code = 0;
  if (!exit_code_s.empty()) {
    try {
      exit_code = std::stoi(exit_code_s);
    } catch (...) {
      exit_code = 1;
    }
  }

  // Moves running/waiting containers to terminated; sets the terminal phase and conditions.
  auto terminate = [&](Json& status, JsonAlloc& a, int code, bool terminal) {
    Json* cs = Member(status, "containerStatuses");
    if (cs != nullptr && cs->IsArray()) {
      for (Json& c : cs->GetArray()) {
        Json& state = EnsureObject(c, "state", a);
        std::string started = GetStr(state, {"running", "startedAt"});
        if (Member(state, "terminated") != nullptr) continue;
        Json t(rapidjson::kObjectType);
        t.AddMember("exitCode", code, a);
        t.AddMember("reason", Str(code == 0 ? "Completed" : "Error", a), a);
        if (!started.empty()) t.AddMember("startedAt", Str(started, a), a);
        t.AddMember("finishedAt", Str(now_s, a), a);
        const std::string cid = GetStr(c, {"containerID"});
        if (!cid.empty()) t.AddMember("containerID", Str(cid, a), a);
        state.SetObject();
        state.AddMember("terminated", t, a);
        SetMember(c, "ready", Json(false), a);
        SetMember(c, "started", Json(false), a);
      }
    }
    if (!terminal) return;
    const bool ok = code == 0;
    SetString(status, "phase", ok ? "Succeeded" : "Failed", a);
    const char* reason = ok ? "PodCompleted" : "PodFailed";
    SetCondition(status, "PodReadyToStartContainers", "False", "", "", now_s, a);
    SetCondition(status, "Ready", "False", reason, "", now_s, a);
    SetCondition(status, "ContainersReady", "False", reason, "", now_s, a);
    SortPodConditions(status, a);
  };

  // ---- deleted: terminate after the grace period (or the termination duration).
  if (pod->deleting()) {
    auto del = [&]() -> Status {
      DeleteOptions d;
      d.grace_period_seconds = 0;
      d.precondition_uid = uid;
      d.user = status_write.user;
      auto r = store_->Delete(kPodsGvr, ns, name, d);
      if (!r.ok() && r.status().reason() != "NotFound" && r.status().reason() != "Conflict") {
        return r.status();
      }
      return Status::OK();
    };
    if (TerminalPhase(phase) || phase == "Pending") return del();
    std::optional<WallTime> deadline = TimeAt(doc, {"metadata", "deletionTimestamp"});
    const int64_t grace = GetInt(doc, {"metadata", "deletionGracePeriodSeconds"}).value_or(0);
    // The grace period as this kubelet observes it (a shorter one from a later delete wins).
    const WallTime by_grace = now + std::chrono::seconds(grace);
    times.kill_at = times.kill_at ? std::min(*times.kill_at, by_grace) : by_grace;
    if (deadline && *times.kill_at > *deadline) deadline = times.kill_at;
    WallTime exit_at = deadline.value_or(now);
    bool killed = true;
    const std::string td = AnnotationOf(doc, kTerminationDurationAnnotation);
    if (!td.empty() && deadline) {
      auto d = ParseGoDuration(td);
      if (d.ok()) {
        const WallTime by_itself = *deadline - std::chrono::seconds(grace) + *d;
        if (by_itself < exit_at) {
          exit_at = by_itself;
          killed = false;
        }
      }
    }
    if (now < exit_at) {
      loop_.AddAt(kPodPrefix + key, at(exit_at));
      return Status::OK();
    }
    Status s = write_status([&](Json& status, JsonAlloc& a) {
      terminate(status, a, killed ? 137 : 143, /*terminal=*/true);
    });
    if (!s.ok()) return s;
    return del();
  }

  // ---- admission and start.
  if (phase == "Pending" || phase.empty()) {
    const PodResources* res = Resources(pod);
    if (res->parse_error) return Status::OK();
    NodeUsage used = Usage(node_name, key);
    auto facts = FactsOf(node);
    if (!facts.ok()) return facts.status();
    std::map<std::string, int64_t> alloc = (*facts)->allocatable_milli;
    // GeneralPredicates: resources (pods first), then node selector.
    std::string reason, message;
    auto insufficient = [&](const std::string& r, int64_t requested, int64_t in_use,
                            int64_t capacity) {
      reason = "OutOf" + r;
      auto unit = [&](int64_t milli) { return r == "cpu" ? milli : (milli + 999) / 1000; };
      message = "Node didn't have enough resource: " + r +
                ", requested: " + std::to_string(unit(requested)) +
                ", used: " + std::to_string(unit(in_use)) +
                ", capacity: " + std::to_string(unit(capacity));
    };
    const int64_t max_pods = alloc.count("pods") ? alloc["pods"] / 1000 : 110;
    if (used.pods + 1 > max_pods) {
      insufficient("pods", 1000, used.pods * 1000, max_pods * 1000);
    }
    for (const std::string& r : res->order) {
      if (!reason.empty()) break;
      const int64_t want = res->milli.at(r);
      const int64_t have = alloc.count(r) ? alloc[r] : 0;
      if (used.milli[r] + want > have) insufficient(r, want, used.milli[r], have);
    }
    if (reason.empty() && !res->node_selector.empty()) {
      for (const auto& [k, v] : res->node_selector) {
        if (node->labels().end() ==
            std::find(node->labels().begin(), node->labels().end(), std::make_pair(k, v))) {
          reason = "NodeAffinity";
          message =
              "Predicate NodeAffinity failed: node(s) didn't match Pod's node "
              "affinity/selector";
        }
      }
    }
    if (!reason.empty()) {
      Status s = write_status([&](Json& status, JsonAlloc& a) {
        SetString(status, "phase", "Failed", a);
        SetString(status, "reason", reason, a);
        SetString(status, "message", "Pod was rejected: " + message, a);
        if (Member(status, "startTime") == nullptr) SetString(status, "startTime", now_s, a);
      });
      if (!s.ok()) return s;
      // The kubelet records a warning event for the rejection.
      std::string n, nm, u, m, host;
      AppendQuoted(&n, name + "." + Hex64(uid + reason).substr(0, 16));
      AppendQuoted(&nm, name);
      AppendQuoted(&u, uid);
      AppendQuoted(&m, message);
      AppendQuoted(&host, node_name);
      std::string ts;
      AppendQuoted(&ts, now_s);
      WriteOptions ew;
      ew.field_manager = "kubelet";
      store_
          ->Create(
              kEventsGvr, ns,
              "{\"metadata\":{\"name\":" + n +
                  "},\"involvedObject\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                  "\"namespace\":\"" +
                  ns + "\",\"name\":" + nm + ",\"uid\":" + u + "},\"reason\":\"" + reason +
                  "\",\"message\":" + m +
                  ",\"type\":\"Warning\",\"source\":{\"component\":\"kubelet\",\"host\":" + host +
                  "},\"firstTimestamp\":" + ts + ",\"lastTimestamp\":" + ts +
                  ",\"count\":1,\"reportingComponent\":\"kubelet\",\"reportingInstance\":" + host +
                  "}",
              ew)
          .status()
          .IgnoreError();
      return Status::OK();
    }

    // Admitted: GPU devices (lowest free indexes), pod IP, running containers.
    const int64_t gpu_count =
        alloc.count(std::string(kGpuResource)) ? alloc[std::string(kGpuResource)] / 1000 : 0;
    std::vector<int> devices;
    const auto g = res->milli.find(std::string(kGpuResource));
    const int64_t want_gpus = g == res->milli.end() ? 0 : (g->second + 999) / 1000;
    for (int i = 0; i < gpu_count && static_cast<int64_t>(devices.size()) < want_gpus; ++i) {
      if (!used.devices.count(i)) devices.push_back(i);
    }
    const std::string host_ip = (*facts)->host_ip;
    std::string pod_ip = host_ip;
    uint32_t ip = 0;
    if (!GetBool(doc, {"spec", "hostNetwork"}, false)) {
      const uint32_t base = ParseIpv4((*facts)->pod_cidr) & ~0xFFu;
      if (base != 0) {
        uint32_t candidate = base + 2;
        while (used.ips.count(candidate)) ++candidate;
        ip = candidate;
        pod_ip = FormatIpv4(ip);
      }
    }
    // Devices per container, in order of their nvidia.com/gpu limits.
    std::map<std::string, std::vector<int>> per_container;
    {
      size_t next = 0;
      for (const auto& [cname, n] : res->container_gpus) {
        for (int64_t i = 0; i < n && next < devices.size(); ++i) {
          per_container[cname].push_back(devices[next++]);
        }
      }
      while (next < devices.size() && !res->container_gpus.empty()) {
        per_container[res->container_gpus.front().first].push_back(devices[next++]);
      }
    }
    Status s = write_status([&](Json& status, JsonAlloc& a) {
      SetString(status, "phase", "Running", a);
      RemoveMember(status, "reason");
      RemoveMember(status, "message");
      if (!host_ip.empty()) {
        SetString(status, "hostIP", host_ip, a);
        Json ips(rapidjson::kArrayType);
        Json e(rapidjson::kObjectType);
        e.AddMember("ip", Str(host_ip, a), a);
        ips.PushBack(e, a);
        SetMember(status, "hostIPs", std::move(ips), a);
      }
      if (!pod_ip.empty()) {
        SetString(status, "podIP", pod_ip, a);
        Json ips(rapidjson::kArrayType);
        Json e(rapidjson::kObjectType);
        e.AddMember("ip", Str(pod_ip, a), a);
        ips.PushBack(e, a);
        SetMember(status, "podIPs", std::move(ips), a);
      }
      if (Member(status, "startTime") == nullptr) SetString(status, "startTime", now_s, a);
      SetCondition(status, "PodReadyToStartContainers", "True", "", "", now_s, a);
      SetCondition(status, "Initialized", "True", "", "", now_s, a);
      SetCondition(status, "Ready", "True", "", "", now_s, a);
      SetCondition(status, "ContainersReady", "True", "", "", now_s, a);
      bool scheduled = false;
      if (const Json* c = Member(status, "conditions"); c && c->IsArray()) {
        for (const Json& x : c->GetArray()) scheduled |= GetStr(x, {"type"}) == "PodScheduled";
      }
      if (!scheduled) SetCondition(status, "PodScheduled", "True", "", "", now_s, a);
      SortPodConditions(status, a);
      auto container_status = [&](const Json& spec_c, bool init) {
        const std::string cname = GetStr(spec_c, {"name"});
        const std::string image = GetStr(spec_c, {"image"});
        Json c(rapidjson::kObjectType);
        c.AddMember("name", Str(cname, a), a);
        Json state(rapidjson::kObjectType);
        const std::string cid = "containerd://" + Hex64(uid + "/" + cname + "/0");
        if (init) {
          Json t(rapidjson::kObjectType);
          t.AddMember("exitCode", 0, a);
          t.AddMember("reason", "Completed", a);
          t.AddMember("startedAt", Str(now_s, a), a);
          t.AddMember("finishedAt", Str(now_s, a), a);
          t.AddMember("containerID", Str(cid, a), a);
          state.AddMember("terminated", t, a);
        } else {
          Json r(rapidjson::kObjectType);
          r.AddMember("startedAt", Str(now_s, a), a);
          state.AddMember("running", r, a);
        }
        c.AddMember("state", state, a);
        c.AddMember("lastState", Json(rapidjson::kObjectType), a);
        c.AddMember("ready", true, a);
        c.AddMember("restartCount", 0, a);
        c.AddMember("image", Str(image, a), a);
        c.AddMember("imageID", Str(image + "@sha256:" + Hex64(image), a), a);
        c.AddMember("containerID", Str(cid, a), a);
        c.AddMember("started", !init, a);
        auto dev = per_container.find(cname);
        if (!init && dev != per_container.end()) {
          Json list(rapidjson::kArrayType);
          for (int d : dev->second) {
            Json e(rapidjson::kObjectType);
            e.AddMember("resourceID", Str(GpuUuid(node_name, d), a), a);
            e.AddMember("health", "Healthy", a);
            list.PushBack(e, a);
          }
          Json rs(rapidjson::kObjectType);
          rs.AddMember("name", Str(kGpuResource, a), a);
          rs.AddMember("resources", list, a);
          Json ars(rapidjson::kArrayType);
          ars.PushBack(rs, a);
          c.AddMember("allocatedResourcesStatus", ars, a);
        }
        return c;
      };
      for (const char* field : {"initContainers", "containers"}) {
        const bool init = field[0] == 'i';
        const Json* specs = Path(doc, {"spec", field});
        if (specs == nullptr || !specs->IsArray() || specs->Empty()) continue;
        Json list(rapidjson::kArrayType);
        for (const Json& sc : specs->GetArray()) list.PushBack(container_status(sc, init), a);
        SetMember(status, init ? "initContainerStatuses" : "containerStatuses", std::move(list), a);
      }
    });
    if (!s.ok()) return s;
    auto& slot = resources_[key];
    if (slot && slot->uid == uid) {
      slot->devices = devices;
      slot->ip = ip;
    }
    times.started = now;
    return Status::OK();  // the write re-queues the pod for the Running steps
  }

  if (phase != "Running") return Status::OK();

  // ---- running: the reservation pod reports its GPU, containers finish or restart.
  const PodResources* res = Resources(pod);
  if (ns == options_.reservation_namespace && !res->devices.empty() &&
      AnnotationOf(doc, kReserveForGpuIndexAnnotation).empty()) {
    PatchOptions po;
    po.field_manager = "resource-reservation";
    po.user.username = "system:serviceaccount:" + ns + ":kai-resource-reservation";
    std::string uuid;
    AppendQuoted(&uuid, GpuUuid(node_name, res->devices.front()));
    auto r = store_->Patch(kPodsGvr, ns, name, PatchType::kMerge,
                           "{\"metadata\":{\"annotations\":{\"" +
                               std::string(kReserveForGpuIndexAnnotation) + "\":" + uuid + "}}}",
                           po);
    if (!r.ok() && r.status().reason() != "NotFound") return r.status();
  }

  const std::string run = AnnotationOf(doc, kRunDurationAnnotation);
  if (run.empty() || containers.empty()) return Status::OK();
  auto duration = ParseGoDuration(run);
  if (!duration.ok()) {
    LOG_EVERY_N(WARNING, 100) << "kubelet: pod " << key << ": " << kRunDurationAnnotation << ": "
                              << duration.status();
    return Status::OK();
  }
  // The first container's status tells where the simulated process is.
  const Json* cs0 = nullptr;
  if (const Json* cs = Path(doc, {"status", "containerStatuses"}); cs && cs->IsArray()) {
    if (!cs->Empty()) cs0 = &(*cs)[0];
  }
  if (cs0 == nullptr) return Status::OK();
  const int64_t restarts = GetInt(*cs0, {"restartCount"}).value_or(0);
  if (const Json* waiting = Path(*cs0, {"state", "waiting"}); waiting != nullptr) {
    // CrashLoopBackOff: restart when the back-off ends.
    std::optional<WallTime> finished =
        precise(*cs0, {"lastState", "terminated", "finishedAt"}, times.exited);
    const WallTime restart_at = finished.value_or(now) + RestartBackoff(restarts);
    if (now < restart_at) {
      loop_.AddAt(kPodPrefix + key, at(restart_at));
      return Status::OK();
    }
    Status s = write_status([&](Json& status, JsonAlloc& a) {
      Json* list = Member(status, "containerStatuses");
      if (list == nullptr || !list->IsArray()) return;
      for (Json& c : list->GetArray()) {
        Json& state = EnsureObject(c, "state", a);
        state.SetObject();
        Json r(rapidjson::kObjectType);
        r.AddMember("startedAt", Str(now_s, a), a);
        state.AddMember("running", r, a);
        SetMember(c, "ready", Json(true), a);
        SetMember(c, "started", Json(true), a);
        SetString(c, "containerID",
                  "containerd://" +
                      Hex64(uid + "/" + GetStr(c, {"name"}) + "/" + std::to_string(restarts)),
                  a);
      }
      SetCondition(status, "Ready", "True", "", "", now_s, a);
      SetCondition(status, "ContainersReady", "True", "", "", now_s, a);
    });
    if (s.ok()) times.started = now;
    return s;
  }
  std::optional<WallTime> started = precise(*cs0, {"state", "running", "startedAt"}, times.started);
  if (!started) return Status::OK();
  const WallTime finish = *started + *duration;
  if (now < finish) {
    loop_.AddAt(kPodPrefix + key, at(finish));
    return Status::OK();
  }
  const bool restart =
      restart_policy == "Always" || (restart_policy == "OnFailure" && exit_code != 0);
  if (!restart) {
    return write_status(
        [&](Json& status, JsonAlloc& a) { terminate(status, a, exit_code, /*terminal=*/true); });
  }
  times.exited = now;
  return write_status([&](Json& status, JsonAlloc& a) {
    Json* list = Member(status, "containerStatuses");
    if (list == nullptr || !list->IsArray()) return;
    std::vector<std::string> names;
    for (Json& c : list->GetArray()) {
      const std::string cname = GetStr(c, {"name"});
      names.push_back(cname);
      Json& state = EnsureObject(c, "state", a);
      Json t(rapidjson::kObjectType);
      t.AddMember("exitCode", exit_code, a);
      t.AddMember("reason", Str(exit_code == 0 ? "Completed" : "Error", a), a);
      t.AddMember("startedAt", Str(GetStr(state, {"running", "startedAt"}), a), a);
      t.AddMember("finishedAt", Str(now_s, a), a);
      t.AddMember("containerID", Str(GetStr(c, {"containerID"}), a), a);
      Json last(rapidjson::kObjectType);
      last.AddMember("terminated", t, a);
      SetMember(c, "lastState", std::move(last), a);
      const int64_t n = GetInt(c, {"restartCount"}).value_or(0) + 1;
      SetInt(c, "restartCount", n, a);
      Json w(rapidjson::kObjectType);
      w.AddMember("reason", "CrashLoopBackOff", a);
      w.AddMember(
          "message",
          Str(StrCat("back-off ", FormatGoDuration(RestartBackoff(n)),
                     " restarting failed container=", cname, " pod=", name, "_", ns, "(", uid, ")"),
              a),
          a);
      state.SetObject();
      state.AddMember("waiting", w, a);
      SetMember(c, "ready", Json(false), a);
      SetMember(c, "started", Json(false), a);
    }
    const std::string unready = "containers with unready status: [" + StrJoin(names, " ") + "]";
    SetCondition(status, "Ready", "False", "ContainersNotReady", unready, now_s, a);
    SetCondition(status, "ContainersReady", "False", "ContainersNotReady", unready, now_s, a);
  });
}

}  // namespace kai::localkube
