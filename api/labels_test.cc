#include "api/labels.h"

#include <gtest/gtest.h>

#include <random>

namespace kai::api {
namespace {

using Labels = std::map<std::string, std::string>;

// Cases from apimachinery's labels/selector_test.go (TestSelectorParse, TestSelectorMatches,
// TestLexer, TestRequirementConstructor) plus KAI's own selectors.
TEST(LabelSelectorTest, ParseAndPrint) {
  struct Case {
    std::string_view in;
    std::string_view out;  // canonical ToString()
  };
  const Case kCases[] = {
      {"", ""},
      {"   ", ""},
      {"x=a,y=b,z=c", "x=a,y=b,z=c"},
      {"z=c,y=b,x=a", "x=a,y=b,z=c"},  // sorted by key
      {"x==a", "x==a"},
      {"x!=a,y=b", "x!=a,y=b"},
      {"x=,z= ", "x=,z="},
      {"x= ,z= ", "x=,z="},
      {"!x", "!x"},
      {"x>1", "x>1"},
      {"x<1", "x<1"},
      {"x>1,z<5", "x>1,z<5"},
      {"x in (a,b)", "x in (a,b)"},
      {"x in (b,a,a)", "x in (a,b)"},  // a set: sorted, de-duplicated
      {"x notin (a)", "x notin (a)"},
      {"x in (in,notin)", "x in (in,notin)"},  // keywords are values here
      {"x in ()", "x in ()"},
      {"x in (,a)", "x in (,a)"},
      {"x in (a,)", "x in (,a)"},
      {"x in (a,,b)", "x in (,a,b)"},
      {"x, y", "x,y"},
      {"x,!y", "x,!y"},
      {"kai.scheduler/queue=team-a", "kai.scheduler/queue=team-a"},
      {"kai.scheduler/node-pool in (a, b), !kai.scheduler/preempted",
       "kai.scheduler/node-pool in (a,b),!kai.scheduler/preempted"},
      {" x = a ", "x=a"},
      {"in=notin", "in=notin"},
  };
  for (const Case& c : kCases) {
    auto m = LabelSelectorMatcher::Parse(c.in);
    ASSERT_TRUE(m.ok()) << c.in << ": " << m.status();
    EXPECT_EQ(m->ToString(), c.out) << c.in;
    auto again = LabelSelectorMatcher::Parse(m->ToString());
    ASSERT_TRUE(again.ok()) << m->ToString();
    EXPECT_EQ(again->requirements(), m->requirements());
  }
}

TEST(LabelSelectorTest, ParseErrors) {
  struct Case {
    std::string_view in;
    std::string_view message;
  };
  const Case kCases[] = {
      {"x==a==b", "found '==', expected: ',' or 'end of string'"},
      {"!x=a", "found '=', expected: ',' or 'end of string'"},
      {"x<a",
       "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' "
       "operators, the value must be an integer"},
      {"x>1.5",
       "unable to parse requirement: values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' "
       "operators, the value must be an integer"},
      {"x=a,", "found '', expected: identifier after ','"},
      {",x=a", "found ',', expected: !, identifier, or 'end of string'"},
      {"x in a", "unable to parse requirement: found 'a' expected: '('"},
      {"x in (a", "unable to parse requirement: found '', expected: ',' or ')'"},
      {"x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"},
      {"x y", "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"},
      {"x=a b", "found 'b', expected: ',' or 'end of string'"},
      {"(x)", "found '(', expected: !, identifier, or 'end of string'"},
      {"x=(a)", "unable to parse requirement: found '(', expected: identifier"},
      {"a/b/c=x",
       "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must "
       "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
       "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
       "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain "
       "prefix and '/' (e.g. 'example.com/MyName')"},
      {"x=a_",
       "unable to parse requirement: values[0][x]: Invalid value: \"a_\": a valid label "
       "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
       "and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
       "'my_value',  or '12345', regex used for validation is "
       "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
      {"Example.com/x=1",
       "unable to parse requirement: <nil>: Invalid value: \"Example.com/x\": prefix part a "
       "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
       "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
       "used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
  };
  for (const Case& c : kCases) {
    auto m = LabelSelectorMatcher::Parse(c.in);
    ASSERT_FALSE(m.ok()) << c.in;
    EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(m.status().message(), c.message) << c.in;
  }
}

TEST(LabelSelectorTest, Matches) {
  struct Case {
    std::string_view selector;
    Labels labels;
    bool match;
  };
  const Case kCases[] = {
      {"", {{"x", "y"}}, true},
      {"x=y", {{"x", "y"}}, true},
      {"x=y,z=w", {{"x", "y"}, {"z", "w"}}, true},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "a"}}, true},
      {"notin=in", {{"notin", "in"}}, true},
      {"x", {{"x", "z"}}, true},
      {"!x", {{"y", "z"}}, true},
      {"x>1", {{"x", "2"}}, true},
      {"x<1", {{"x", "0"}}, true},
      {"x=z", {}, false},
      {"x=y", {{"x", "z"}}, false},
      {"x=y,z=w", {{"x", "w"}, {"z", "w"}}, false},
      {"x!=y,z!=w", {{"x", "z"}, {"z", "w"}}, false},
      {"x", {{"y", "z"}}, false},
      {"!x", {{"x", "z"}}, false},
      {"x>1", {{"x", "0"}}, false},
      {"x<1", {{"x", "2"}}, false},
      {"x>1", {{"x", "abc"}}, false},
      {"x>1", {}, false},
      {"x in (a,b)", {{"x", "b"}}, true},
      {"x in (a,b)", {{"x", "c"}}, false},
      {"x in (a,b)", {}, false},
      {"x notin (a,b)", {}, true},
      {"x notin (a,b)", {{"x", "a"}}, false},
      {"x!=y", {}, true},
      {"x in ()", {{"x", ""}}, true},
      {"x=", {{"x", ""}}, true},
  };
  for (const Case& c : kCases) {
    auto m = LabelSelectorMatcher::Parse(c.selector);
    ASSERT_TRUE(m.ok()) << c.selector;
    EXPECT_EQ(m->Matches(c.labels), c.match) << c.selector;
  }
  EXPECT_FALSE(LabelSelectorMatcher::Nothing().Matches({}));
  EXPECT_TRUE(LabelSelectorMatcher().Matches({{"a", "b"}}));
  EXPECT_TRUE(LabelSelectorMatcher().Empty());
}

TEST(LabelSelectorTest, FromLabelSelector) {
  LabelSelector ls;
  ls.match_labels = {{"app", "train"}};
  ls.match_expressions = {{.key = "tier", .operator_ = "In", .values = {"gold", "silver"}},
                          {.key = "spot", .operator_ = "DoesNotExist"},
                          {.key = "env", .operator_ = "NotIn", .values = {"dev"}},
                          {.key = "gpu", .operator_ = "Exists"}};
  auto m = LabelSelectorMatcher::FromLabelSelector(ls);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->ToString(), "app=train,env notin (dev),gpu,!spot,tier in (gold,silver)");
  EXPECT_TRUE(m->Matches({{"app", "train"}, {"tier", "gold"}, {"gpu", "1"}}));
  EXPECT_FALSE(m->Matches({{"app", "train"}, {"tier", "gold"}, {"gpu", "1"}, {"spot", "y"}}));
  EXPECT_FALSE(m->Matches({{"app", "train"}, {"tier", "gold"}}));

  // Empty selector: everything; nil: nothing.
  EXPECT_TRUE(LabelSelectorMatcher::FromLabelSelector(LabelSelector{})->Matches({}));
  EXPECT_FALSE(LabelSelectorMatcher::FromLabelSelector(nullptr)->Matches({}));

  LabelSelector bad_op;
  bad_op.match_expressions = {{.key = "a", .operator_ = "Gt", .values = {"1"}}};
  EXPECT_EQ(LabelSelectorMatcher::FromLabelSelector(bad_op).status().message(),
            "\"Gt\" is not a valid label selector operator");
  LabelSelector no_values;
  no_values.match_expressions = {{.key = "a", .operator_ = "In"}};
  EXPECT_EQ(LabelSelectorMatcher::FromLabelSelector(no_values).status().message(),
            "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be "
            "empty");
  LabelSelector exists_values;
  exists_values.match_expressions = {{.key = "a", .operator_ = "Exists", .values = {"x"}}};
  EXPECT_FALSE(LabelSelectorMatcher::FromLabelSelector(exists_values).ok());
  LabelSelector bad_value;
  bad_value.match_labels = {{"a", "-x"}};
  EXPECT_FALSE(LabelSelectorMatcher::FromLabelSelector(bad_value).ok());
}

TEST(LabelSelectorTest, FromSet) {
  auto m = LabelSelectorMatcher::FromSet({{"b", "2"}, {"a", "1"}});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->ToString(), "a=1,b=2");
  EXPECT_FALSE(LabelSelectorMatcher::FromSet({{"a b", "1"}}).ok());
}

TEST(LabelSelectorTest, ValidateKeysAndValues) {
  for (const char* ok :
       {"a", "A1", "a.b-c_d", "kai.scheduler/queue", "nvidia.com/gpu.count", "a/b", "x"}) {
    EXPECT_TRUE(ValidateLabelKey(ok).ok()) << ok;
  }
  EXPECT_EQ(ValidateLabelKey("").message(),
            "name part must be non-empty; name part must consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
            "or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  EXPECT_EQ(ValidateLabelKey("/a").message(), "prefix part must be non-empty");
  EXPECT_EQ(ValidateLabelKey(std::string(64, 'a')).message(),
            "name part must be no more than 63 characters");
  EXPECT_FALSE(ValidateLabelKey("-a").ok());
  EXPECT_FALSE(ValidateLabelKey("a..b/c").ok());
  EXPECT_FALSE(ValidateLabelKey(std::string(254, 'a') + "/b").ok());
  EXPECT_TRUE(ValidateLabelValue("").ok());
  EXPECT_TRUE(ValidateLabelValue("my_value-1.2").ok());
  EXPECT_EQ(ValidateLabelValue(std::string(64, 'a')).message(),
            "must be no more than 63 characters");
  EXPECT_FALSE(ValidateLabelValue("a b").ok());
}

TEST(LabelSelectorTest, GarbageNeverCrashes) {
  std::mt19937 rng(99);
  const std::string alphabet = "ab=!(),<> \tinot/.-_1";
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    const int len = static_cast<int>(rng() % 20);
    for (int j = 0; j < len; ++j) s.push_back(alphabet[rng() % alphabet.size()]);
    auto m = LabelSelectorMatcher::Parse(s);
    if (m.ok()) {
      auto again = LabelSelectorMatcher::Parse(m->ToString());
      ASSERT_TRUE(again.ok()) << s << " -> " << m->ToString();
      EXPECT_EQ(again->requirements(), m->requirements()) << s;
      (void)m->Matches({{"a", "b"}, {"in", "1"}});
    }
  }
  EXPECT_FALSE(LabelSelectorMatcher::Parse(std::string("a=b\0c", 5)).ok());
}

}  // namespace
}  // namespace kai::api
