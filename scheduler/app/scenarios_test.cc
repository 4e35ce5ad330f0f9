// Runs the acceptance scenarios (test/scenarios/cases, converted from KAI's own action tests)
// in-process through RunSimulation, one test per scenario file. The clock is a FakeClock set to
// the scenario's `now`, so timestamps are used as written. Comparison rules are those of
// test/scenarios/FORMAT.md (after / node per pod, counts exact or {max: N}, fair shares with a
// relative tolerance of 1e-6), plus the project's extensions written by
// test/scenarios/tools/scengen.py (GPU groups, acceptable nodes, unschedulable reasons).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/fake_clock.h"
#include "kube/base/file.h"
#include "kube/base/strings.h"
#include "kube/base/time.h"
#include "scheduler/app/simulate.h"

namespace kai::scheduler {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCasesDir = "test/scenarios/cases";

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::exists(kCasesDir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(kCasesDir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string TestName(const std::string& path) {
  std::string rel = fs::relative(path, kCasesDir).string();
  std::string name;
  for (char c : rel.substr(0, rel.size() - 5)) {
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

struct Outcome {
  std::vector<std::string> diffs;
};

std::vector<std::string> StringList(const rapidjson::Value& v) {
  std::vector<std::string> out;
  if (!v.IsArray()) return out;
  for (const auto& e : v.GetArray()) {
    if (e.IsString()) out.push_back(e.GetString());
  }
  return out;
}

std::string Joined(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out + "]";
}

// Project extensions of expect.pods (test/scenarios/tools/scengen.py): the GPU groups a pod got
// (exact list, count, must include / exclude ids) and a set of acceptable nodes.
void CheckPodExtensions(const std::string& key, const rapidjson::Value& want, const SimPod& got,
                        std::vector<std::string>* diffs) {
  const std::vector<std::string>& groups = got.gpu_groups;
  auto has = [&](const std::string& g) {
    return std::find(groups.begin(), groups.end(), g) != groups.end();
  };
  if (const auto* v = api::FindMember(want, "gpuGroups")) {
    if (StringList(*v) != groups) {
      diffs->push_back("pod " + key + ": gpuGroups=" + Joined(groups) + ", expected " +
                       Joined(StringList(*v)));
    }
  }
  if (const auto* v = api::FindMember(want, "gpuGroupsCount"); v && v->IsInt()) {
    std::set<std::string> distinct(groups.begin(), groups.end());
    if (static_cast<int>(distinct.size()) != v->GetInt() ||
        static_cast<int>(groups.size()) != v->GetInt()) {
      diffs->push_back("pod " + key + ": gpuGroups=" + Joined(groups) + ", expected " +
                       std::to_string(v->GetInt()) + " distinct groups");
    }
  }
  if (const auto* v = api::FindMember(want, "gpuGroupsInclude")) {
    for (const auto& g : StringList(*v)) {
      if (!has(g)) {
        diffs->push_back(StrCat("pod ", key, ": gpuGroups=", Joined(groups), " lack ", g));
      }
    }
  }
  if (const auto* v = api::FindMember(want, "gpuGroupsExclude")) {
    for (const auto& g : StringList(*v)) {
      if (has(g)) {
        diffs->push_back(StrCat("pod ", key, ": gpuGroups=", Joined(groups), " hold ", g));
      }
    }
  }
  if (const auto* v = api::FindMember(want, "nodeIn")) {
    std::vector<std::string> nodes = StringList(*v);
    if (std::find(nodes.begin(), nodes.end(), got.node) == nodes.end()) {
      diffs->push_back("pod " + key + ": node=" + got.node + ", expected one of " + Joined(nodes));
    }
  }
}

Outcome RunScenario(const std::string& path) {
  Outcome out;
  auto text = ReadFile(path);
  if (!text.ok()) {
    out.diffs.push_back("cannot read: " + std::string(text.status().message()));
    return out;
  }
  auto json = api::YamlToJson(*text);
  if (!json.ok()) {
    out.diffs.push_back("bad YAML: " + std::string(json.status().message()));
    return out;
  }
  auto doc = api::ParseJsonDocument(*json);
  if (!doc.ok() || !doc->IsObject()) {
    out.diffs.push_back("bad scenario document");
    return out;
  }
  const auto* cluster = api::FindMember(*doc, "cluster");
  const auto* expect = api::FindMember(*doc, "expect");
  const auto* actions = api::FindMember(*doc, "actions");
  if (cluster == nullptr || expect == nullptr || actions == nullptr || !actions->IsArray()) {
    out.diffs.push_back("scenario lacks cluster / expect / actions");
    return out;
  }
  SimulateOptions opts;
  opts.snapshot_text =
      "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":" + api::ToJsonString(*cluster) + "}";
  std::vector<std::string> action_list;
  for (const auto& a : actions->GetArray()) action_list.push_back(a.GetString());
  opts.actions = action_list;
  if (const auto* c = api::FindMember(*doc, "cycles"); c && c->IsInt()) opts.cycles = c->GetInt();

  FakeClock clock;
  if (const auto* now = api::FindMember(*doc, "now"); now && now->IsString()) {
    auto t = ParseRfc3339(now->GetString());
    if (t.ok()) clock.SetNow(*t);
  }
  auto result = RunSimulation(opts, &clock);
  if (!result.ok()) {
    out.diffs.push_back("simulation failed: " + std::string(result.status().message()));
    return out;
  }
  std::map<std::string, const SimPod*> pods;
  for (const auto& p : result->pods) pods[p.namespace_ + "/" + p.name] = &p;
  if (const auto* want_pods = api::FindMember(*expect, "pods");
      want_pods && want_pods->IsObject()) {
    for (auto m = want_pods->MemberBegin(); m != want_pods->MemberEnd(); ++m) {
      std::string key = m->name.GetString();
      auto it = pods.find(key);
      if (it == pods.end()) {
        out.diffs.push_back("pod " + key + ": missing from the output");
        continue;
      }
      const auto* after = api::FindMember(m->value, "after");
      if (after && after->IsString() && it->second->after != after->GetString()) {
        out.diffs.push_back("pod " + key + ": after=" + it->second->after + ", expected " +
                            after->GetString());
      }
      const auto* node = api::FindMember(m->value, "node");
      if (node && node->IsString() && std::string_view(node->GetString()) != "" &&
          it->second->node != node->GetString()) {
        out.diffs.push_back("pod " + key + ": node=" + it->second->node + ", expected " +
                            node->GetString());
      }
      CheckPodExtensions(key, m->value, *it->second, &out.diffs);
    }
  }
  if (const auto* groups = api::FindMember(*expect, "podGroups"); groups && groups->IsObject()) {
    std::map<std::string, const SimPodGroup*> by_key;
    for (const auto& g : result->podgroups) by_key[g.namespace_ + "/" + g.name] = &g;
    for (auto m = groups->MemberBegin(); m != groups->MemberEnd(); ++m) {
      std::string key = m->name.GetString();
      auto it = by_key.find(key);
      if (it == by_key.end()) {
        out.diffs.push_back("podGroup " + key + ": missing from the output");
        continue;
      }
      const auto* contains = api::FindMember(m->value, "unschedulableReasonContains");
      if (contains == nullptr || !contains->IsArray()) continue;
      for (const auto& want : contains->GetArray()) {
        if (it->second->unschedulable_reason.find(want.GetString()) == std::string::npos) {
          out.diffs.push_back("podGroup " + key + ": unschedulableReason \"" +
                              it->second->unschedulable_reason + "\" lacks \"" + want.GetString() +
                              "\"");
        }
      }
    }
  }
  if (const auto* counts = api::FindMember(*expect, "counts"); counts && counts->IsObject()) {
    static const std::map<std::string, std::string> kStates = {
        {"binds", "Bound"}, {"evictions", "Evicted"}, {"pipelined", "Pipelined"}};
    for (auto m = counts->MemberBegin(); m != counts->MemberEnd(); ++m) {
      auto st = kStates.find(m->name.GetString());
      if (st == kStates.end()) continue;
      int n = 0;
      for (const auto& p : result->pods) n += p.after == st->second ? 1 : 0;
      if (m->value.IsInt()) {
        if (n != m->value.GetInt()) {
          out.diffs.push_back("count " + st->first + "=" + std::to_string(n) + ", expected " +
                              std::to_string(m->value.GetInt()));
        }
      } else if (const auto* max = api::FindMember(m->value, "max"); max && max->IsInt()) {
        if (n > max->GetInt()) {
          out.diffs.push_back("count " + st->first + "=" + std::to_string(n) +
                              ", expected at most " + std::to_string(max->GetInt()));
        }
      }
    }
  }
  if (const auto* queues = api::FindMember(*expect, "queues"); queues && queues->IsObject()) {
    std::map<std::string, const SimQueue*> by_name;
    for (const auto& q : result->queues) by_name[q.name] = &q;
    for (auto m = queues->MemberBegin(); m != queues->MemberEnd(); ++m) {
      std::string name = m->name.GetString();
      auto it = by_name.find(name);
      if (it == by_name.end()) {
        out.diffs.push_back("queue " + name + ": missing from the output");
        continue;
      }
      const auto* fair = api::FindMember(m->value, "fairShare");
      if (fair == nullptr || !fair->IsObject()) continue;
      for (auto r = fair->MemberBegin(); r != fair->MemberEnd(); ++r) {
        double want = r->value.GetDouble();
        auto got = it->second->fair_share.find(r->name.GetString());
        if (got == it->second->fair_share.end() ||
            std::abs(got->second - want) > 1e-6 * std::max(1.0, std::abs(want))) {
          out.diffs.push_back("queue " + name + ": fairShare." + r->name.GetString() + "=" +
                              (got == it->second->fair_share.end() ? std::string("none")
                                                                   : std::to_string(got->second)) +
                              ", expected " + std::to_string(want));
        }
      }
    }
  }
  return out;
}

class ScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioTest, MatchesKai) {
  Outcome o = RunScenario(GetParam());
  std::string all;
  for (const auto& d : o.diffs) all += "\n  " + d;
  EXPECT_TRUE(o.diffs.empty()) << GetParam() << all;
}

INSTANTIATE_TEST_SUITE_P(Cases, ScenarioTest, ::testing::ValuesIn(ScenarioFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return TestName(info.param);
                         });

// The suite must not silently run zero cases (e.g. when started from the wrong directory).
TEST(ScenarioSuite, FindsTheCases) { EXPECT_GE(ScenarioFiles().size(), 100u); }

}  // namespace
}  // namespace kai::scheduler
