#include "scheduler/k8s_internal/selector.h"

#include <gtest/gtest.h>

#include <limits>

#include "scheduler/k8s_internal/testing_builders.h"

namespace kai::k8s_internal {
namespace {

using testing::Req;
using testing::Sel;

TEST(ParseInt64, GoStrconvSemantics) {
  EXPECT_EQ(ParseInt64("0"), 0);
  EXPECT_EQ(ParseInt64("0204"), 204);  // leading zeros are fine for ParseInt
  EXPECT_EQ(ParseInt64("+7"), 7);
  EXPECT_EQ(ParseInt64("-7"), -7);
  EXPECT_EQ(ParseInt64("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseInt64("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ParseInt64("9223372036854775808"), std::nullopt);
  EXPECT_EQ(ParseInt64("-9223372036854775809"), std::nullopt);
  EXPECT_EQ(ParseInt64(""), std::nullopt);
  EXPECT_EQ(ParseInt64("-"), std::nullopt);
  EXPECT_EQ(ParseInt64("1.5"), std::nullopt);
  EXPECT_EQ(ParseInt64(" 1"), std::nullopt);
  EXPECT_EQ(ParseInt64("0x10"), std::nullopt);
  EXPECT_EQ(ParseInt64("abc"), std::nullopt);
}

TEST(ValidateLabel, Keys) {
  for (const char* ok :
       {"a", "app", "A-b_c.d", "example.com/name", "kubernetes.io/hostname", "a/b", "1a"}) {
    EXPECT_TRUE(ValidateLabelKey(ok).ok()) << ok;
  }
  for (const char* bad :
       {"", "-a", "a-", "a/b/c", "/a", "a/", "Example.com/a", "a b", "exa_mple.com/a"}) {
    EXPECT_FALSE(ValidateLabelKey(bad).ok()) << bad;
  }
  EXPECT_FALSE(ValidateLabelKey(std::string(64, 'a')).ok());
  EXPECT_TRUE(ValidateLabelKey(std::string(63, 'a')).ok());
  // labels.validateLabelKey joins every problem IsQualifiedName finds with "; ".
  EXPECT_EQ(ValidateLabelKey(std::string(64, 'a') + "-").message(),
            "key: Invalid value: \"" + std::string(64, 'a') +
                "-\": name part must be no more than 63 characters; name part must consist of "
                "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
                "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
}

TEST(ValidateLabel, Values) {
  for (const char* ok : {"", "a", "A-b_c.d", "12345"}) {
    EXPECT_TRUE(ValidateLabelValue(ok).ok()) << ok;
  }
  for (const char* bad : {"-a", "a-", "a b", "{{.bad-value.}}", "a/b"}) {
    EXPECT_FALSE(ValidateLabelValue(bad).ok()) << bad;
  }
  EXPECT_FALSE(ValidateLabelValue(std::string(64, 'a')).ok());
}

TEST(Requirement, CreateValidation) {
  using Op = Requirement::Op;
  EXPECT_FALSE(Requirement::Create("k", Op::kIn, {}).ok());
  EXPECT_FALSE(Requirement::Create("k", Op::kNotIn, {}).ok());
  EXPECT_FALSE(Requirement::Create("k", Op::kExists, {"v"}).ok());
  EXPECT_FALSE(Requirement::Create("k", Op::kDoesNotExist, {"v"}).ok());
  EXPECT_FALSE(Requirement::Create("k", Op::kGt, {}).ok());
  EXPECT_FALSE(Requirement::Create("k", Op::kGt, {"1", "2"}).ok());
  EXPECT_FALSE(Requirement::Create("k", Op::kLt, {"abc"}).ok());
  EXPECT_FALSE(Requirement::Create("bad key", Op::kExists, {}).ok());
  EXPECT_FALSE(Requirement::Create("k", Op::kIn, {"bad value"}).ok());
  // Gt/Lt operands are also label values: a negative number is not a valid one (upstream too).
  EXPECT_FALSE(Requirement::Create("k", Op::kGt, {"-5"}).ok());
  EXPECT_TRUE(Requirement::Create("k", Op::kGt, {"5"}).ok());
  StatusOr<Requirement> r = Requirement::Create("k", Op::kIn, {"{{.bad-value.}}"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "values[0][k]: Invalid value: \"{{.bad-value.}}\": a valid label must be an empty "
            "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
            "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
}

struct MatchCase {
  const char* name;
  Requirement::Op op;
  std::vector<std::string> values;
  LabelMap labels;
  bool want;
};

TEST(Requirement, Matches) {
  using Op = Requirement::Op;
  const std::vector<MatchCase> cases = {
      {"in hit", Op::kIn, {"a", "b"}, {{"k", "b"}}, true},
      {"in miss", Op::kIn, {"a", "b"}, {{"k", "c"}}, false},
      {"in absent", Op::kIn, {"a"}, {}, false},
      {"notin hit", Op::kNotIn, {"a"}, {{"k", "a"}}, false},
      {"notin other", Op::kNotIn, {"a"}, {{"k", "b"}}, true},
      {"notin absent", Op::kNotIn, {"a"}, {}, true},
      {"exists", Op::kExists, {}, {{"k", ""}}, true},
      {"exists absent", Op::kExists, {}, {{"x", "1"}}, false},
      {"doesnotexist", Op::kDoesNotExist, {}, {{"x", "1"}}, true},
      {"doesnotexist present", Op::kDoesNotExist, {}, {{"k", "1"}}, false},
      {"gt", Op::kGt, {"0204"}, {{"k", "0206"}}, true},
      {"gt equal", Op::kGt, {"5"}, {{"k", "5"}}, false},
      {"gt smaller", Op::kGt, {"5"}, {{"k", "-1"}}, false},
      {"gt absent", Op::kGt, {"5"}, {}, false},
      {"gt malformed label", Op::kGt, {"5"}, {{"k", "6.0"}}, false},
      {"gt empty label", Op::kGt, {"5"}, {{"k", ""}}, false},
      {"lt", Op::kLt, {"5"}, {{"k", "4"}}, true},
      {"lt equal", Op::kLt, {"5"}, {{"k", "5"}}, false},
      {"lt malformed label", Op::kLt, {"5"}, {{"k", "four"}}, false},
      {"lt overflow label", Op::kLt, {"5"}, {{"k", "99999999999999999999"}}, false},
  };
  for (const MatchCase& c : cases) {
    StatusOr<Requirement> r = Requirement::Create("k", c.op, c.values);
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.status();
    EXPECT_EQ(r->Matches(c.labels), c.want) << c.name;
  }
}

TEST(LabelSelectorAsSelector, NilEmptyAndInvalid) {
  StatusOr<Selector> nothing = LabelSelectorAsSelector(nullptr);
  ASSERT_TRUE(nothing.ok());
  EXPECT_TRUE(nothing->IsNothing());
  EXPECT_FALSE(nothing->Empty());
  EXPECT_FALSE(nothing->Matches({}));

  api::LabelSelector empty;
  StatusOr<Selector> everything = LabelSelectorAsSelector(&empty);
  ASSERT_TRUE(everything.ok());
  EXPECT_TRUE(everything->Empty());
  EXPECT_TRUE(everything->Matches({}));
  EXPECT_TRUE(everything->Matches({{"a", "b"}}));

  api::LabelSelector bad_op = Sel({Req("a", "Gt", {"1"})});
  StatusOr<Selector> bad = LabelSelectorAsSelector(&bad_op);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "\"Gt\" is not a valid label selector operator");

  api::LabelSelector bad_value = Sel({}, {{"a", "not valid"}});
  EXPECT_FALSE(LabelSelectorAsSelector(&bad_value).ok());
}

TEST(LabelSelectorAsSelector, MatchLabelsAndExpressionsAreAnded) {
  api::LabelSelector s = Sel({Req("tier", "NotIn", {"db"}), Req("env", "Exists")}, {{"app", "x"}});
  StatusOr<Selector> sel = LabelSelectorAsSelector(&s);
  ASSERT_TRUE(sel.ok());
  EXPECT_TRUE(sel->Matches({{"app", "x"}, {"env", "prod"}}));
  EXPECT_FALSE(sel->Matches({{"app", "x"}}));
  EXPECT_FALSE(sel->Matches({{"app", "y"}, {"env", "prod"}}));
  EXPECT_FALSE(sel->Matches({{"app", "x"}, {"env", "prod"}, {"tier", "db"}}));
}

TEST(Selector, CanonicalFormIgnoresOrder) {
  api::LabelSelector a = Sel({Req("x", "In", {"2", "1"}), Req("y", "Exists")});
  api::LabelSelector b = Sel({Req("y", "Exists"), Req("x", "In", {"1", "2", "1"})});
  std::string ca, cb;
  LabelSelectorAsSelector(&a)->AppendCanonical(&ca);
  LabelSelectorAsSelector(&b)->AppendCanonical(&cb);
  EXPECT_EQ(ca, cb);
  std::string cn, ce;
  Selector::Nothing().AppendCanonical(&cn);
  Selector().AppendCanonical(&ce);
  EXPECT_NE(cn, ce);
}

TEST(NodeSelectorRequirementsAsSelector, OperatorsAndErrors) {
  std::vector<api::NodeSelectorRequirement> reqs = {testing::NReq("k", "Gt", {"3"}),
                                                    testing::NReq("z", "DoesNotExist")};
  StatusOr<Selector> s = NodeSelectorRequirementsAsSelector(reqs, "matchExpressions");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->Matches({{"k", "4"}}));
  EXPECT_FALSE(s->Matches({{"k", "4"}, {"z", ""}}));

  std::vector<api::NodeSelectorRequirement> bad = {testing::NReq("k", "Foo", {"3"})};
  StatusOr<Selector> e = NodeSelectorRequirementsAsSelector(bad, "matchExpressions");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("matchExpressions[0].operator: Unsupported value: \"Foo\""),
            std::string_view::npos);

  EXPECT_TRUE(NodeSelectorRequirementsAsSelector({}, "x")->IsNothing());
}

}  // namespace
}  // namespace kai::k8s_internal
