// `kai-scheduler simulate -o table`: the report for people. Three sections — every pod with its
// decision, the queue tree with fair share / allocation / request, and every pending PodGroup
// with the scheduler's reasons — plus the warnings. Columns are sized to their content.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kube/base/strings.h"
#include "scheduler/app/simulate.h"

namespace kai::scheduler {

namespace {

// "%g" with up to 4 significant digits, no trailing zeros ("2", "0.5", "1.333").
std::string Short(double v) {
  char buf[64];
  if (v == -1) return "unlimited";
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

double Get(const std::map<std::string, double>& m, const char* k) {
  auto it = m.find(k);
  return it == m.end() ? 0.0 : it->second;
}

// Rows of cells rendered with left-aligned columns separated by two spaces.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string Render(const std::string& indent = "") const {
    std::vector<size_t> width;
    for (const auto& r : rows_) {
      if (width.size() < r.size()) width.resize(r.size(), 0);
      for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], Utf8Width(r[i]));
    }
    std::string out;
    for (const auto& r : rows_) {
      std::string line = indent;
      for (size_t i = 0; i < r.size(); ++i) {
        line += r[i];
        if (i + 1 < r.size()) line += std::string(width[i] - Utf8Width(r[i]) + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  // Display width: count code points, not bytes (the tree uses box-drawing characters).
  static size_t Utf8Width(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) {
      if ((c & 0xC0) != 0x80) ++n;
    }
    return n;
  }
  std::vector<std::vector<std::string>> rows_;
};

std::string PodDecision(const SimPod& p) {
  if (p.after == p.before) return "-";
  return p.after;
}

}  // namespace

std::string FormatTable(const SimulationResult& r) {
  std::string o;
  // Summary.
  std::map<std::string, int> decisions;
  for (const auto& p : r.pods) {
    if (p.after != p.before) decisions[p.after]++;
  }
  int pending = 0;
  for (const auto& p : r.pods) {
    if (p.after == "Pending") ++pending;
  }
  char line[256];
  std::snprintf(line, sizeof(line),
                "Cycle %d of %d: %d bound, %d pipelined, %d evicted; %d pods still pending\n\n",
                r.cycle, r.cycles, decisions["Bound"], decisions["Pipelined"], decisions["Evicted"],
                pending);
  o += line;

  // Pods.
  o += "PODS\n";
  Table pods({"NAMESPACE/NAME", "PODGROUP", "QUEUE", "BEFORE", "DECISION", "NODE", "GPU"});
  for (const auto& p : r.pods) {
    std::string gpu;
    if (p.gpu_fraction > 0) gpu = Short(p.gpu_fraction) + " of";
    if (!p.gpu_groups.empty()) {
      if (!gpu.empty()) gpu += " ";
      gpu += "group ";
      for (size_t i = 0; i < p.gpu_groups.size(); ++i) gpu += (i ? "," : "") + p.gpu_groups[i];
    }
    std::string node = p.node.empty() ? "-" : p.node;
    pods.Add({p.namespace_ + "/" + p.name, p.podgroup.empty() ? "-" : p.podgroup,
              p.queue.empty() ? "-" : p.queue, p.before, PodDecision(p), node,
              gpu.empty() ? "-" : gpu});
  }
  o += pods.Render();

  // Queues, as a tree (children by name under their parent).
  o += "\nQUEUES (GPU in devices, CPU in cores, memory in GB; fair share / allocated / "
       "requested)\n";
  std::map<std::string, std::vector<const SimQueue*>> children;
  std::set<std::string> names;
  for (const auto& q : r.queues) names.insert(q.name);
  for (const auto& q : r.queues) {
    std::string parent = names.count(q.parent) ? q.parent : "";
    children[parent].push_back(&q);
  }
  for (auto& [p, list] : children) {
    std::sort(list.begin(), list.end(),
              [](const SimQueue* a, const SimQueue* b) { return a->name < b->name; });
  }
  Table queues({"QUEUE", "GPU", "CPU", "MEMORY"});
  std::function<void(const std::string&, const std::string&)> walk =
      [&](const std::string& parent, const std::string& prefix) {
        auto it = children.find(parent);
        if (it == children.end()) return;
        for (size_t i = 0; i < it->second.size(); ++i) {
          const SimQueue* q = it->second[i];
          bool last = i + 1 == it->second.size();
          std::string label = parent.empty() ? q->name : prefix + (last ? "└─ " : "├─ ") + q->name;
          auto triple = [&](const char* k, double scale) {
            return Short(Get(q->fair_share, k) / scale) + " / " +
                   Short(Get(q->allocated, k) / scale) + " / " +
                   Short(Get(q->requested, k) / scale);
          };
          queues.Add({label, triple("gpu", 1), triple("cpu", 1000), triple("memory", 1e9)});
          std::string child_prefix =
              parent.empty() ? std::string() : prefix + (last ? "   " : "│  ");
          walk(q->name, child_prefix);
        }
      };
  walk("", "");
  if (r.queues.empty()) {
    o += "(none)\n";
  } else {
    o += queues.Render();
  }

  // Pending PodGroups with their reasons.
  o += "\nPENDING PODGROUPS\n";
  std::map<std::string, std::pair<int, std::string>> pending_pods;  // ns/pg -> (count, queue)
  for (const auto& p : r.pods) {
    if (p.after != "Pending" || p.podgroup.empty()) continue;
    auto& e = pending_pods[p.namespace_ + "/" + p.podgroup];
    e.first++;
    e.second = p.queue;
  }
  bool any = false;
  for (const auto& g : r.podgroups) {
    if (g.unschedulable_reason.empty()) continue;
    any = true;
    std::string key = g.namespace_ + "/" + g.name;
    auto pp = pending_pods.find(key);
    o += key;
    if (pp != pending_pods.end()) {
      o += " (queue " + pp->second.second + ", " + std::to_string(pp->second.first) +
           " pending pod" + (pp->second.first == 1 ? "" : "s") + ")";
    }
    o += "\n";
    if (g.reasons.empty()) {
      for (const auto& part : StrSplit(g.unschedulable_reason, '\n')) o += "    " + part + "\n";
      continue;
    }
    for (const auto& [reason, message] : g.reasons) {
      bool first = true;
      for (const auto& part : StrSplit(message, '\n')) {
        o += (first ? "    " + reason + ": " : "    " + std::string(reason.size() + 2, ' ')) +
             std::string(StripWhitespace(part)) + "\n";
        first = false;
      }
    }
  }
  if (!any) o += "(none)\n";
  if (!r.warnings.empty()) {
    o += "\nWARNINGS\n";
    for (const auto& w : r.warnings) o += "  " + w + "\n";
  }
  return o;
}

}  // namespace kai::scheduler
