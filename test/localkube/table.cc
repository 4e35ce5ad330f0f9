#include "test/localkube/table.h"

#include <algorithm>
#include <map>

#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "test/localkube/selector.h"

namespace kai::localkube {
namespace {

const char* kNameDesc =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const char* kAgeDesc =
    "CreationTimestamp is a timestamp representing the server time when this object was created. "
    "It is not guaranteed to be set in happens-before order across separate operations. Clients "
    "may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by "
    "the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

TableColumn Col(std::string name, std::string type, int priority = 0, std::string format = "",
                std::string desc = "") {
  return TableColumn{std::move(name), std::move(type), std::move(format), std::move(desc),
                     priority};
}
TableColumn NameCol() { return Col("Name", "string", 0, "name", kNameDesc); }
TableColumn AgeCol() { return Col("Age", "string", 0, "", kAgeDesc); }

// Cell builders.
struct Cells {
  std::string out = "[";
  bool first = true;
  void Sep() {
    if (!first) out += ",";
    first = false;
  }
  void S(std::string_view s) {
    Sep();
    AppendQuoted(&out, s);
  }
  void I(int64_t v) {
    Sep();
    out += std::to_string(v);
  }
  void Raw(const std::string& json) {
    Sep();
    out += json;
  }
};

std::string Age(const Json& obj, WallTime now) {
  auto t = ParseRfc3339(GetStr(obj, {"metadata", "creationTimestamp"}));
  if (!t.ok()) return "<unknown>";
  return HumanDuration(now - *t);
}

std::string AgeOf(const std::string& ts, WallTime now) {
  if (ts.empty()) return "<none>";
  auto t = ParseRfc3339(ts);
  if (!t.ok()) return "<unknown>";
  return HumanDuration(now - *t);
}

std::string SelectorString(const Json* sel) {
  if (sel == nullptr || !sel->IsObject()) return "<none>";
  auto ls = LabelSelector::FromJson(Serialize(*sel));
  if (!ls.ok()) return "<error>";
  const std::string s = ls->ToString();
  return s.empty() ? "<none>" : s;
}

std::string MapSelectorString(const Json* sel) {
  if (sel == nullptr || !sel->IsObject() || sel->MemberCount() == 0) return "<none>";
  std::vector<std::string> parts;
  for (auto it = sel->MemberBegin(); it != sel->MemberEnd(); ++it) {
    parts.push_back(std::string(View(it->name)) + "=" + std::string(View(it->value)));
  }
  std::sort(parts.begin(), parts.end());
  return StrJoin(parts, ",");
}

void ContainersImages(const Json* podspec, std::string* names, std::string* images) {
  std::vector<std::string> n, i;
  if (podspec != nullptr) {
    if (const Json* cs = Member(*podspec, "containers"); cs && cs->IsArray()) {
      for (const Json& c : cs->GetArray()) {
        n.push_back(GetStr(c, {"name"}));
        i.push_back(GetStr(c, {"image"}));
      }
    }
  }
  *names = StrJoin(n, ",");
  *images = StrJoin(i, ",");
}

int64_t Int(const Json& o, std::initializer_list<std::string_view> p) {
  return GetInt(o, p).value_or(0);
}

std::string PodStatus(const Json& pod, int* ready, int* total, int64_t* restarts) {
  std::string reason = GetStr(pod, {"status", "phase"});
  if (!GetStr(pod, {"status", "reason"}).empty()) reason = GetStr(pod, {"status", "reason"});
  const Json* gates = Path(pod, {"spec", "schedulingGates"});
  if (gates && gates->IsArray() && !gates->Empty()) reason = "SchedulingGated";
  *ready = 0;
  *restarts = 0;
  const Json* specs = Path(pod, {"spec", "containers"});
  *total = specs && specs->IsArray() ? static_cast<int>(specs->Size()) : 0;
  bool init_done = true;
  if (const Json* ics = Path(pod, {"status", "initContainerStatuses"}); ics && ics->IsArray()) {
    const int n = static_cast<int>(ics->Size());
    for (int i = 0; i < n; ++i) {
      const Json& cs = (*ics)[static_cast<rapidjson::SizeType>(i)];
      *restarts += Int(cs, {"restartCount"});
      const Json* term = Path(cs, {"state", "terminated"});
      if (term && Int(*term, {"exitCode"}) == 0) continue;
      init_done = false;
      if (term) {
        reason = GetStr(*term, {"reason"}).empty()
                     ? "Init:ExitCode:" + std::to_string(Int(*term, {"exitCode"}))
                     : "Init:" + GetStr(*term, {"reason"});
      } else if (const Json* w = Path(cs, {"state", "waiting"});
                 w && !GetStr(*w, {"reason"}).empty() &&
                 GetStr(*w, {"reason"}) != "PodInitializing") {
        reason = "Init:" + GetStr(*w, {"reason"});
      } else {
        reason = "Init:" + std::to_string(i) + "/" + std::to_string(n);
      }
      break;
    }
  }
  if (init_done) {
    bool has_running = false;
    if (const Json* css = Path(pod, {"status", "containerStatuses"}); css && css->IsArray()) {
      for (auto it = css->End(); it != css->Begin();) {
        --it;
        const Json& cs = *it;
        *restarts += Int(cs, {"restartCount"});
        if (const Json* w = Path(cs, {"state", "waiting"}); w && !GetStr(*w, {"reason"}).empty()) {
          reason = GetStr(*w, {"reason"});
        } else if (const Json* t = Path(cs, {"state", "terminated"}); t) {
          reason = GetStr(*t, {"reason"});
          if (reason.empty()) {
            reason = Member(*t, "signal") && Int(*t, {"signal"}) != 0
                         ? "Signal:" + std::to_string(Int(*t, {"signal"}))
                         : "ExitCode:" + std::to_string(Int(*t, {"exitCode"}));
          }
        } else if (GetBool(cs, {"ready"}, false) && Path(cs, {"state", "running"})) {
          has_running = true;
          ++*ready;
        }
      }
    }
    if (reason == "Completed" && has_running) {
      bool ready_cond = false;
      if (const Json* conds = Path(pod, {"status", "conditions"}); conds && conds->IsArray()) {
        for (const Json& c : conds->GetArray()) {
          if (GetStr(c, {"type"}) == "Ready" && GetStr(c, {"status"}) == "True") ready_cond = true;
        }
      }
      reason = ready_cond ? "Running" : "NotReady";
    }
  }
  const Json* dt = Path(pod, {"metadata", "deletionTimestamp"});
  if (dt && !dt->IsNull()) {
    reason = GetStr(pod, {"status", "reason"}) == "NodeLost" ? "Unknown" : "Terminating";
  }
  return reason;
}

}  // namespace

std::string HumanDuration(Duration d) {
  using std::chrono::duration_cast;
  const int64_t seconds = duration_cast<std::chrono::seconds>(d).count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return std::to_string(seconds) + "s";
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    return s == 0 ? std::to_string(minutes) + "m"
                  : std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  const int64_t hours = minutes / 60;
  if (hours < 8) {
    const int64_t m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h"
                  : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d"
                  : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    return dy == 0 ? std::to_string(hours / 24 / 365) + "y"
                   : std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

namespace {

// Resolves a simple JSONPath to the matching values.
void Eval(const Json& cur, const std::vector<std::string>& steps, size_t i,
          std::vector<const Json*>* out) {
  if (i == steps.size()) {
    out->push_back(&cur);
    return;
  }
  std::string step = steps[i];
  std::string index;
  const size_t br = step.find('[');
  if (br != std::string::npos) {
    index = step.substr(br + 1, step.size() - br - 2);
    step = step.substr(0, br);
  }
  const Json* v = step.empty() ? &cur : Member(cur, step);
  if (v == nullptr) return;
  if (br == std::string::npos) {
    Eval(*v, steps, i + 1, out);
    return;
  }
  if (!v->IsArray()) return;
  if (index == "*") {
    for (const Json& e : v->GetArray()) Eval(e, steps, i + 1, out);
    return;
  }
  try {
    long idx = std::stol(index);
    if (idx < 0) idx += static_cast<long>(v->Size());
    if (idx >= 0 && static_cast<size_t>(idx) < v->Size()) {
      Eval((*v)[static_cast<rapidjson::SizeType>(idx)], steps, i + 1, out);
    }
  } catch (...) {
  }
}

}  // namespace

std::string EvalJsonPath(const Json& obj, const std::string& path_in) {
  std::string path = path_in;
  if (!path.empty() && path.front() == '{' && path.back() == '}')
    path = path.substr(1, path.size() - 2);
  if (!path.empty() && path[0] == '$') path = path.substr(1);
  if (!path.empty() && path[0] == '.') path = path.substr(1);
  std::vector<std::string> steps;
  std::string cur;
  int depth = 0;
  for (char c : path) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == '.' && depth == 0) {
      steps.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) steps.push_back(cur);
  std::vector<const Json*> vals;
  Eval(obj, steps, 0, &vals);
  std::vector<std::string> texts;
  texts.reserve(vals.size());
  for (const Json* v : vals) texts.push_back(ScalarText(*v));
  return StrJoin(texts, " ");
}

std::vector<TableColumn> TableColumns(const ResourceInfo& r) {
  if (!r.crd_name.empty()) {
    std::vector<TableColumn> cols{NameCol()};
    bool has_age = false;
    for (const PrinterColumn& c : r.printer_columns) {
      cols.push_back(Col(c.name, c.type, c.priority, c.format, c.description));
      if (c.name == "Age") has_age = true;
    }
    if (!has_age) cols.push_back(Col("Age", "date", 0, "", kAgeDesc));
    return cols;
  }
  const std::string& k = r.kind;
  if (k == "Pod") {
    return {NameCol(),
            Col("Ready", "string"),
            Col("Status", "string"),
            Col("Restarts", "string"),
            AgeCol(),
            Col("IP", "string", 1),
            Col("Node", "string", 1),
            Col("Nominated Node", "string", 1),
            Col("Readiness Gates", "string", 1)};
  }
  if (k == "Node") {
    return {NameCol(),
            Col("Status", "string"),
            Col("Roles", "string"),
            AgeCol(),
            Col("Version", "string"),
            Col("Internal-IP", "string", 1),
            Col("External-IP", "string", 1),
            Col("OS-Image", "string", 1),
            Col("Kernel-Version", "string", 1),
            Col("Container-Runtime", "string", 1)};
  }
  if (k == "Namespace") return {NameCol(), Col("Status", "string"), AgeCol()};
  if (k == "Deployment") {
    return {NameCol(),
            Col("Ready", "string"),
            Col("Up-to-date", "integer"),
            Col("Available", "integer"),
            AgeCol(),
            Col("Containers", "string", 1),
            Col("Images", "string", 1),
            Col("Selector", "string", 1)};
  }
  if (k == "ReplicaSet" || k == "ReplicationController") {
    return {NameCol(),
            Col("Desired", "integer"),
            Col("Current", "integer"),
            Col("Ready", "integer"),
            AgeCol(),
            Col("Containers", "string", 1),
            Col("Images", "string", 1),
            Col("Selector", "string", 1)};
  }
  if (k == "StatefulSet") {
    return {NameCol(), Col("Ready", "string"), AgeCol(), Col("Containers", "string", 1),
            Col("Images", "string", 1)};
  }
  if (k == "DaemonSet") {
    return {NameCol(),
            Col("Desired", "integer"),
            Col("Current", "integer"),
            Col("Ready", "integer"),
            Col("Up-to-date", "integer"),
            Col("Available", "integer"),
            Col("Node Selector", "string"),
            AgeCol(),
            Col("Containers", "string", 1),
            Col("Images", "string", 1),
            Col("Selector", "string", 1)};
  }
  if (k == "Job") {
    return {NameCol(),
            Col("Status", "string"),
            Col("Completions", "string"),
            Col("Duration", "string"),
            AgeCol(),
            Col("Containers", "string", 1),
            Col("Images", "string", 1),
            Col("Selector", "string", 1)};
  }
  if (k == "CronJob") {
    return {NameCol(),
            Col("Schedule", "string"),
            Col("Timezone", "string"),
            Col("Suspend", "boolean"),
            Col("Active", "integer"),
            Col("Last Schedule", "string"),
            AgeCol(),
            Col("Containers", "string", 1),
            Col("Images", "string", 1),
            Col("Selector", "string", 1)};
  }
  if (k == "Service") {
    return {NameCol(),
            Col("Type", "string"),
            Col("Cluster-IP", "string"),
            Col("External-IP", "string"),
            Col("Port(s)", "string"),
            AgeCol(),
            Col("Selector", "string", 1)};
  }
  if (k == "ConfigMap") return {NameCol(), Col("Data", "integer"), AgeCol()};
  if (k == "Secret") return {NameCol(), Col("Type", "string"), Col("Data", "integer"), AgeCol()};
  if (k == "ServiceAccount") return {NameCol(), Col("Secrets", "integer"), AgeCol()};
  if (k == "Endpoints") return {NameCol(), Col("Endpoints", "string"), AgeCol()};
  if (k == "Event") {
    return {Col("Last Seen", "string"), Col("Type", "string"),
            Col("Reason", "string"),    Col("Object", "string"),
            Col("Message", "string"),   Col("Subobject", "string", 1),
            Col("Source", "string", 1), Col("First Seen", "string", 1),
            Col("Count", "string", 1),  Col("Name", "string", 1)};
  }
  if (k == "Lease") return {NameCol(), Col("Holder", "string"), AgeCol()};
  if (k == "PriorityClass") {
    return {NameCol(), Col("Value", "integer"), Col("Global-Default", "boolean"), AgeCol(),
            Col("PreemptionPolicy", "string")};
  }
  if (k == "RoleBinding" || k == "ClusterRoleBinding") {
    return {NameCol(),
            Col("Role", "string"),
            AgeCol(),
            Col("Users", "string", 1),
            Col("Groups", "string", 1),
            Col("ServiceAccounts", "string", 1)};
  }
  if (k == "Role" || k == "ClusterRole" || k == "CustomResourceDefinition") {
    return {NameCol(), Col("Created At", "date")};
  }
  if (k == "MutatingWebhookConfiguration" || k == "ValidatingWebhookConfiguration") {
    return {NameCol(), Col("Webhooks", "integer"), AgeCol()};
  }
  if (k == "PodDisruptionBudget") {
    return {NameCol(), Col("Min Available", "string"), Col("Max Unavailable", "string"),
            Col("Allowed Disruptions", "integer"), AgeCol()};
  }
  if (k == "PersistentVolumeClaim") {
    return {NameCol(),
            Col("Status", "string"),
            Col("Volume", "string"),
            Col("Capacity", "string"),
            Col("Access Modes", "string"),
            Col("StorageClass", "string"),
            Col("VolumeAttributesClass", "string"),
            AgeCol()};
  }
  if (k == "StorageClass") {
    return {NameCol(),
            Col("Provisioner", "string"),
            Col("ReclaimPolicy", "string"),
            Col("VolumeBindingMode", "string"),
            Col("AllowVolumeExpansion", "string"),
            AgeCol()};
  }
  return {NameCol(), AgeCol()};
}

void AppendTableCells(const ResourceInfo& r, const Json& o, WallTime now, std::string* out) {
  Cells c;
  const std::string name = GetStr(o, {"metadata", "name"});
  const std::string& k = r.kind;
  if (!r.crd_name.empty()) {
    c.S(name);
    bool has_age = false;
    for (const PrinterColumn& col : r.printer_columns) {
      if (col.name == "Age") has_age = true;
      std::string path = col.json_path;
      std::vector<const Json*> vals;
      std::string text = EvalJsonPath(o, path);
      if (col.type == "date") {
        c.S(text.empty() ? "<unknown>" : AgeOf(text, now));
        continue;
      }
      // Typed cells: numbers and booleans as JSON values, like the real table convertor.
      if (text.empty()) {
        c.Raw("null");
        continue;
      }
      if (col.type == "integer" || col.type == "number") {
        bool numeric = !text.empty();
        for (char ch : text)
          numeric = numeric && (std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' ||
                                ch == '.' || ch == 'e' || ch == '+');
        if (numeric) {
          c.Raw(text);
          continue;
        }
      }
      if (col.type == "boolean" && (text == "true" || text == "false")) {
        c.Raw(text);
        continue;
      }
      c.S(text);
    }
    if (!has_age) c.S(Age(o, now));
    out->append(c.out + "]");
    return;
  }
  if (k == "Pod") {
    int ready = 0, total = 0;
    int64_t restarts = 0;
    const std::string status = PodStatus(o, &ready, &total, &restarts);
    c.S(name);
    c.S(std::to_string(ready) + "/" + std::to_string(total));
    c.S(status);
    c.S(std::to_string(restarts));
    c.S(Age(o, now));
    const std::string ip = GetStr(o, {"status", "podIP"});
    c.S(ip.empty() ? "<none>" : ip);
    const std::string node = GetStr(o, {"spec", "nodeName"});
    c.S(node.empty() ? "<none>" : node);
    const std::string nom = GetStr(o, {"status", "nominatedNodeName"});
    c.S(nom.empty() ? "<none>" : nom);
    c.S("<none>");
  } else if (k == "Node") {
    std::vector<std::string> st;
    std::string ready = "Unknown";
    if (const Json* conds = Path(o, {"status", "conditions"}); conds && conds->IsArray()) {
      for (const Json& cd : conds->GetArray()) {
        if (GetStr(cd, {"type"}) == "Ready") {
          ready = GetStr(cd, {"status"}) == "True"
                      ? "Ready"
                      : (GetStr(cd, {"status"}) == "False" ? "NotReady" : "Unknown");
        }
      }
    }
    st.push_back(ready);
    if (GetBool(o, {"spec", "unschedulable"}, false)) st.push_back("SchedulingDisabled");
    std::vector<std::string> roles;
    if (const Json* l = Path(o, {"metadata", "labels"}); l && l->IsObject()) {
      for (auto it = l->MemberBegin(); it != l->MemberEnd(); ++it) {
        const std::string key(View(it->name));
        if (key.rfind("node-role.kubernetes.io/", 0) == 0 && key.size() > 24) {
          roles.push_back(key.substr(24));
        } else if (key == "kubernetes.io/role") {
          roles.push_back(std::string(View(it->value)));
        }
      }
    }
    std::sort(roles.begin(), roles.end());
    c.S(name);
    c.S(StrJoin(st, ","));
    c.S(roles.empty() ? "<none>" : StrJoin(roles, ","));
    c.S(Age(o, now));
    c.S(GetStr(o, {"status", "nodeInfo", "kubeletVersion"}));
    std::string internal = "<none>", external = "<none>";
    if (const Json* addrs = Path(o, {"status", "addresses"}); addrs && addrs->IsArray()) {
      for (const Json& a : addrs->GetArray()) {
        if (GetStr(a, {"type"}) == "InternalIP" && internal == "<none>")
          internal = GetStr(a, {"address"});
        if (GetStr(a, {"type"}) == "ExternalIP" && external == "<none>")
          external = GetStr(a, {"address"});
      }
    }
    c.S(internal);
    c.S(external);
    auto or_unknown = [](const std::string& s) { return s.empty() ? std::string("<unknown>") : s; };
    c.S(or_unknown(GetStr(o, {"status", "nodeInfo", "osImage"})));
    c.S(or_unknown(GetStr(o, {"status", "nodeInfo", "kernelVersion"})));
    c.S(or_unknown(GetStr(o, {"status", "nodeInfo", "containerRuntimeVersion"})));
  } else if (k == "Namespace") {
    c.S(name);
    c.S(GetStr(o, {"status", "phase"}));
    c.S(Age(o, now));
  } else if (k == "Deployment") {
    std::string cn, im;
    ContainersImages(Path(o, {"spec", "template", "spec"}), &cn, &im);
    c.S(name);
    c.S(std::to_string(Int(o, {"status", "readyReplicas"})) + "/" +
        std::to_string(Int(o, {"spec", "replicas"})));
    c.I(Int(o, {"status", "updatedReplicas"}));
    c.I(Int(o, {"status", "availableReplicas"}));
    c.S(Age(o, now));
    c.S(cn);
    c.S(im);
    c.S(SelectorString(Path(o, {"spec", "selector"})));
  } else if (k == "ReplicaSet" || k == "ReplicationController") {
    std::string cn, im;
    ContainersImages(Path(o, {"spec", "template", "spec"}), &cn, &im);
    c.S(name);
    c.I(Int(o, {"spec", "replicas"}));
    c.I(Int(o, {"status", "replicas"}));
    c.I(Int(o, {"status", "readyReplicas"}));
    c.S(Age(o, now));
    c.S(cn);
    c.S(im);
    c.S(k == "ReplicaSet" ? SelectorString(Path(o, {"spec", "selector"}))
                          : MapSelectorString(Path(o, {"spec", "selector"})));
  } else if (k == "StatefulSet") {
    std::string cn, im;
    ContainersImages(Path(o, {"spec", "template", "spec"}), &cn, &im);
    c.S(name);
    c.S(std::to_string(Int(o, {"status", "readyReplicas"})) + "/" +
        std::to_string(Int(o, {"spec", "replicas"})));
    c.S(Age(o, now));
    c.S(cn);
    c.S(im);
  } else if (k == "DaemonSet") {
    std::string cn, im;
    ContainersImages(Path(o, {"spec", "template", "spec"}), &cn, &im);
    c.S(name);
    c.I(Int(o, {"status", "desiredNumberScheduled"}));
    c.I(Int(o, {"status", "currentNumberScheduled"}));
    c.I(Int(o, {"status", "numberReady"}));
    c.I(Int(o, {"status", "updatedNumberScheduled"}));
    c.I(Int(o, {"status", "numberAvailable"}));
    c.S(MapSelectorString(Path(o, {"spec", "template", "spec", "nodeSelector"})));
    c.S(Age(o, now));
    c.S(cn);
    c.S(im);
    c.S(SelectorString(Path(o, {"spec", "selector"})));
  } else if (k == "Job") {
    std::string cn, im;
    ContainersImages(Path(o, {"spec", "template", "spec"}), &cn, &im);
    std::string status = "Running";
    if (GetBool(o, {"spec", "suspend"}, false)) status = "Suspended";
    if (const Json* conds = Path(o, {"status", "conditions"}); conds && conds->IsArray()) {
      for (const Json& cd : conds->GetArray()) {
        if (GetStr(cd, {"status"}) != "True") continue;
        const std::string t = GetStr(cd, {"type"});
        if (t == "Complete") status = "Complete";
        if (t == "Failed") status = "Failed";
        if (t == "FailureTarget") status = "FailureTarget";
        if (t == "SuccessCriteriaMet") status = "SuccessCriteriaMet";
      }
    }
    std::string completions;
    if (auto cpl = GetInt(o, {"spec", "completions"})) {
      completions = std::to_string(Int(o, {"status", "succeeded"})) + "/" + std::to_string(*cpl);
    } else {
      const int64_t p = GetInt(o, {"spec", "parallelism"}).value_or(1);
      completions = std::to_string(Int(o, {"status", "succeeded"})) + "/1" +
                    (p > 1 ? " of " + std::to_string(p) : "");
    }
    std::string duration;
    auto start = ParseRfc3339(GetStr(o, {"status", "startTime"}));
    if (start.ok()) {
      auto end = ParseRfc3339(GetStr(o, {"status", "completionTime"}));
      duration = HumanDuration((end.ok() ? *end : now) - *start);
    }
    c.S(name);
    c.S(status);
    c.S(completions);
    c.S(duration);
    c.S(Age(o, now));
    c.S(cn);
    c.S(im);
    c.S(SelectorString(Path(o, {"spec", "selector"})));
  } else if (k == "CronJob") {
    std::string cn, im;
    ContainersImages(Path(o, {"spec", "jobTemplate", "spec", "template", "spec"}), &cn, &im);
    c.S(name);
    c.S(GetStr(o, {"spec", "schedule"}));
    const std::string tz = GetStr(o, {"spec", "timeZone"});
    c.S(tz.empty() ? "<none>" : tz);
    c.Raw(GetBool(o, {"spec", "suspend"}, false) ? "true" : "false");
    const Json* active = Path(o, {"status", "active"});
    c.I(active && active->IsArray() ? active->Size() : 0);
    c.S(AgeOf(GetStr(o, {"status", "lastScheduleTime"}), now));
    c.S(Age(o, now));
    c.S(cn);
    c.S(im);
    c.S(SelectorString(Path(o, {"spec", "jobTemplate", "spec", "selector"})));
  } else if (k == "Service") {
    c.S(name);
    const std::string type = GetStr(o, {"spec", "type"});
    c.S(type);
    const std::string cip = GetStr(o, {"spec", "clusterIP"});
    c.S(cip.empty() ? "<none>" : cip);
    std::vector<std::string> ext;
    if (const Json* e = Path(o, {"spec", "externalIPs"}); e && e->IsArray()) {
      for (const Json& x : e->GetArray()) ext.emplace_back(View(x));
    }
    if (type == "ExternalName") ext.push_back(GetStr(o, {"spec", "externalName"}));
    c.S(ext.empty() ? (type == "LoadBalancer" ? "<pending>" : "<none>") : StrJoin(ext, ","));
    std::vector<std::string> ports;
    if (const Json* ps = Path(o, {"spec", "ports"}); ps && ps->IsArray()) {
      for (const Json& p : ps->GetArray()) {
        std::string s = std::to_string(Int(p, {"port"}));
        if (auto np = GetInt(p, {"nodePort"})) s += ":" + std::to_string(*np);
        s += "/" + (GetStr(p, {"protocol"}).empty() ? std::string("TCP") : GetStr(p, {"protocol"}));
        ports.push_back(s);
      }
    }
    c.S(ports.empty() ? "<none>" : StrJoin(ports, ","));
    c.S(Age(o, now));
    c.S(MapSelectorString(Path(o, {"spec", "selector"})));
  } else if (k == "ConfigMap") {
    c.S(name);
    int64_t n = 0;
    for (const char* f : {"data", "binaryData"}) {
      if (const Json* d = Member(o, f); d && d->IsObject()) n += d->MemberCount();
    }
    c.I(n);
    c.S(Age(o, now));
  } else if (k == "Secret") {
    c.S(name);
    c.S(GetStr(o, {"type"}));
    int64_t n = 0;
    for (const char* f : {"data", "stringData"}) {
      if (const Json* d = Member(o, f); d && d->IsObject()) n += d->MemberCount();
    }
    c.I(n);
    c.S(Age(o, now));
  } else if (k == "ServiceAccount") {
    c.S(name);
    const Json* s = Member(o, "secrets");
    c.I(s && s->IsArray() ? s->Size() : 0);
    c.S(Age(o, now));
  } else if (k == "Endpoints") {
    c.S(name);
    std::vector<std::string> eps;
    if (const Json* subsets = Member(o, "subsets"); subsets && subsets->IsArray()) {
      for (const Json& s : subsets->GetArray()) {
        const Json* addrs = Member(s, "addresses");
        const Json* ports = Member(s, "ports");
        if (!addrs || !addrs->IsArray()) continue;
        for (const Json& a : addrs->GetArray()) {
          if (ports && ports->IsArray() && !ports->Empty()) {
            for (const Json& p : ports->GetArray()) {
              eps.push_back(GetStr(a, {"ip"}) + ":" + std::to_string(Int(p, {"port"})));
            }
          } else {
            eps.push_back(GetStr(a, {"ip"}));
          }
        }
      }
    }
    if (eps.size() > 3) {
      const size_t more = eps.size() - 3;
      eps.resize(3);
      c.S(StrJoin(eps, ",") + " + " + std::to_string(more) + " more...");
    } else {
      c.S(eps.empty() ? "<none>" : StrJoin(eps, ","));
    }
    c.S(Age(o, now));
  } else if (k == "Event") {
    std::string last = GetStr(o, {"lastTimestamp"});
    if (last.empty()) last = GetStr(o, {"eventTime"});
    if (last.empty()) last = GetStr(o, {"metadata", "creationTimestamp"});
    std::string first_seen = GetStr(o, {"firstTimestamp"});
    if (first_seen.empty()) first_seen = GetStr(o, {"eventTime"});
    c.S(AgeOf(last, now));
    c.S(GetStr(o, {"type"}));
    c.S(GetStr(o, {"reason"}));
    std::string kind = GetStr(o, {"involvedObject", "kind"});
    c.S(AsciiToLower(kind) + "/" + GetStr(o, {"involvedObject", "name"}));
    c.S(GetStr(o, {"message"}));
    c.S(GetStr(o, {"involvedObject", "fieldPath"}));
    std::string src = GetStr(o, {"source", "component"});
    if (src.empty()) src = GetStr(o, {"reportingComponent"});
    if (!GetStr(o, {"source", "host"}).empty()) src += ", " + GetStr(o, {"source", "host"});
    c.S(src);
    c.S(AgeOf(first_seen, now));
    c.S(std::to_string(GetInt(o, {"count"}).value_or(1)));
    c.S(name);
  } else if (k == "Lease") {
    c.S(name);
    const std::string h = GetStr(o, {"spec", "holderIdentity"});
    c.S(h.empty() ? "<unknown>" : h);
    c.S(Age(o, now));
  } else if (k == "PriorityClass") {
    c.S(name);
    c.I(Int(o, {"value"}));
    c.Raw(GetBool(o, {"globalDefault"}, false) ? "true" : "false");
    c.S(Age(o, now));
    c.S(GetStr(o, {"preemptionPolicy"}));
  } else if (k == "RoleBinding" || k == "ClusterRoleBinding") {
    c.S(name);
    c.S(GetStr(o, {"roleRef", "kind"}) + "/" + GetStr(o, {"roleRef", "name"}));
    c.S(Age(o, now));
    std::vector<std::string> users, groups, sas;
    if (const Json* subs = Member(o, "subjects"); subs && subs->IsArray()) {
      for (const Json& s : subs->GetArray()) {
        const std::string sk = GetStr(s, {"kind"});
        if (sk == "User") users.push_back(GetStr(s, {"name"}));
        if (sk == "Group") groups.push_back(GetStr(s, {"name"}));
        if (sk == "ServiceAccount")
          sas.push_back(GetStr(s, {"namespace"}) + "/" + GetStr(s, {"name"}));
      }
    }
    c.S(StrJoin(users, ", "));
    c.S(StrJoin(groups, ", "));
    c.S(StrJoin(sas, ", "));
  } else if (k == "Role" || k == "ClusterRole" || k == "CustomResourceDefinition") {
    c.S(name);
    c.S(GetStr(o, {"metadata", "creationTimestamp"}));
  } else if (k == "MutatingWebhookConfiguration" || k == "ValidatingWebhookConfiguration") {
    c.S(name);
    const Json* w = Member(o, "webhooks");
    c.I(w && w->IsArray() ? w->Size() : 0);
    c.S(Age(o, now));
  } else if (k == "PodDisruptionBudget") {
    c.S(name);
    const Json* mina = Path(o, {"spec", "minAvailable"});
    const Json* maxu = Path(o, {"spec", "maxUnavailable"});
    c.S(mina ? ScalarText(*mina) : "N/A");
    c.S(maxu ? ScalarText(*maxu) : "N/A");
    c.I(Int(o, {"status", "disruptionsAllowed"}));
    c.S(Age(o, now));
  } else if (k == "PersistentVolumeClaim") {
    c.S(name);
    c.S(GetStr(o, {"status", "phase"}));
    c.S(GetStr(o, {"spec", "volumeName"}));
    const Json* cap = Path(o, {"status", "capacity", "storage"});
    c.S(cap ? ScalarText(*cap) : "");
    std::vector<std::string> modes;
    if (const Json* m = Path(o, {"status", "accessModes"}); m && m->IsArray()) {
      for (const Json& x : m->GetArray()) {
        const std::string s(View(x));
        modes.push_back(s == "ReadWriteOnce"   ? "RWO"
                        : s == "ReadOnlyMany"  ? "ROX"
                        : s == "ReadWriteMany" ? "RWX"
                                               : "RWOP");
      }
    }
    c.S(StrJoin(modes, ","));
    c.S(GetStr(o, {"spec", "storageClassName"}));
    c.S("<unset>");
    c.S(Age(o, now));
  } else if (k == "StorageClass") {
    c.S(name);
    c.S(GetStr(o, {"provisioner"}));
    const std::string rp = GetStr(o, {"reclaimPolicy"});
    c.S(rp.empty() ? "Delete" : rp);
    const std::string vb = GetStr(o, {"volumeBindingMode"});
    c.S(vb.empty() ? "Immediate" : vb);
    c.S(GetBool(o, {"allowVolumeExpansion"}, false) ? "true" : "false");
    c.S(Age(o, now));
  } else {
    c.S(name);
    c.S(Age(o, now));
  }
  out->append(c.out + "]");
}

}  // namespace kai::localkube
