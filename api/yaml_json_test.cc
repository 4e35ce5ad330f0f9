#include "api/yaml_json.h"

#include <gtest/gtest.h>

namespace kai::api {
namespace {

TEST(YamlJsonTest, ScalarsResolveLikeKubectl) {
  auto j = YamlToJson(
      "a: 1\nb: 1.5\nc: true\nd: yes\ne: 'yes'\nf: ~\ng: 0x10\nh: \"007\"\ni: "
      "2026-01-01T00:00:00Z\n"
      "j: 1e3\nk: 0777\nl: -3\nm: 1_000\n");
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(*j, R"({"a":1,"b":1.5,"c":true,"d":true,"e":"yes","f":null,"g":16,"h":"007",)"
                R"("i":"2026-01-01T00:00:00Z","j":1000,"k":511,"l":-3,"m":1000})");
}

TEST(YamlJsonTest, NumberPatternsOfGoYamlV2) {
  struct Case {
    const char* yaml;
    const char* json;
  };
  for (const Case& c : std::vector<Case>{
           {"v: +12", R"({"v":12})"},
           {"v: 0b101", R"({"v":5})"},
           {"v: -0x1F", R"({"v":-31})"},
           {"v: .5", R"({"v":0.5})"},
           {"v: 1.", R"({"v":1})"},
           {"v: 2.5e-1", R"({"v":0.25})"},
           {"v: 1e", R"({"v":"1e"})"},
           {"v: 0x", R"({"v":"0x"})"},
           {"v: 089", R"({"v":89})"},  // not octal, but a float
           {"v: 1_0.5", R"({"v":10.5})"},
           {"v: 1.2.3", R"({"v":"1.2.3"})"},
           {"v: 99999999999999999999", R"({"v":100000000000000000000})"},
       }) {
    auto j = YamlToJson(c.yaml);
    ASSERT_TRUE(j.ok()) << c.yaml << ": " << j.status();
    EXPECT_EQ(*j, c.json) << c.yaml;
  }
}

TEST(YamlJsonTest, MultiDocumentSkipsEmptyDocuments) {
  auto docs = YamlToJsonDocuments("---\nkind: A\n---\n---\n# only a comment\n---\nkind: B\n");
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0], R"({"kind":"A"})");
  EXPECT_EQ((*docs)[1], R"({"kind":"B"})");
}

TEST(YamlJsonTest, NonStringKeysBecomeStringsAndMergeKeysApply) {
  auto j = YamlToJson("base: &b {p: 1, q: 2}\nd:\n  <<: *b\n  q: 3\n1: one\n");
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(*j, R"({"base":{"p":1,"q":2},"d":{"q":3,"p":1},"1":"one"})");
  // go-yaml v2 (what kubectl uses) reads a plain `y` key as the boolean true.
  EXPECT_EQ(*YamlToJson("y: 1\n"), R"({"true":1})");
}

TEST(YamlJsonTest, ErrorsAreStatusesNotExceptions) {
  for (const char* bad : {"a: [1, 2", "a: b: c", "a: 1\na: 2\n", "? [1]\n: complex-key\n"}) {
    auto j = YamlToJson(bad);
    EXPECT_FALSE(j.ok()) << bad;
    EXPECT_TRUE(IsInvalidArgument(j.status())) << j.status();
  }
  EXPECT_NE(YamlToJson("a: 1\na: 2\n").status().message().find("already defined"),
            std::string_view::npos);
  EXPECT_FALSE(YamlToJson("---\na: 1\n---\nb: 2\n").ok());
}

// yaml-cpp stops at a nesting depth of 500 with the message "bad file"; ours says what happened.
TEST(YamlJsonTest, DeepNestingIsAnErrorThatSaysSo) {
  std::string deep = "spec:\n";
  for (int i = 1; i <= 1000; ++i) deep += std::string(2 * i, ' ') + "a:\n";
  auto j = YamlToJson(deep);
  ASSERT_FALSE(j.ok());
  EXPECT_TRUE(IsInvalidArgument(j.status())) << j.status();
  EXPECT_NE(j.status().message().find("invalid YAML: nested more deeply than the reader allows"),
            std::string_view::npos)
      << j.status();
}

}  // namespace
}  // namespace kai::api
