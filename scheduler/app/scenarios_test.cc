// Runs the acceptance scenarios (test/scenarios/cases, converted from KAI's own action tests)
// in-process through RunSimulation, one test per scenario file. The clock is a FakeClock set to
// the scenario's `now`, so timestamps are used as written. Comparison rules are those of
// test/scenarios/FORMAT.md (after / node per pod, counts exact or {max: N}, fair shares with a
// relative tolerance of 1e-6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "api/rapidjson_util.h"
#include "api/yaml_json.h"
#include "kube/base/fake_clock.h"
#include "kube/base/file.h"
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
