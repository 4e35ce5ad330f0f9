#include "api/validation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kai::api {
namespace {

using Problems = std::vector<std::string>;

// Messages as k8s.io/apimachinery/pkg/util/validation words them, incl. RegexError's two
// spaces before "or".
TEST(ValidationTest, QualifiedNameReportsEveryProblemInApimachinerysOrder) {
  EXPECT_EQ(IsQualifiedName("example.com/my-name_1.x"), Problems{});
  EXPECT_EQ(IsQualifiedName("a/b/c"),
            Problems{"a qualified name must consist of alphanumeric characters, '-', '_' or '.', "
                     "and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                     "'my.name',  or '123-abc', regex used for validation is "
                     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain "
                     "prefix and '/' (e.g. 'example.com/MyName')"});
  EXPECT_EQ(IsQualifiedName("/x"), Problems{"prefix part must be non-empty"});
  EXPECT_EQ(IsQualifiedName(""),
            (Problems{"name part must be non-empty",
                      "name part must consist of alphanumeric characters, '-', '_' or '.', and "
                      "must start and end with an alphanumeric character (e.g. 'MyName',  or "
                      "'my.name',  or '123-abc', regex used for validation is "
                      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}));
  // Too long and badly shaped: both problems, as the API server lists them.
  const Problems long_bad = IsQualifiedName(std::string(64, 'a') + "-");
  ASSERT_EQ(long_bad.size(), 2u);
  EXPECT_EQ(long_bad[0], "name part must be no more than 63 characters");
  // A prefix that is no DNS subdomain ("a..b" has an empty label).
  const Problems prefix = IsQualifiedName("a..b/c");
  ASSERT_EQ(prefix.size(), 1u);
  EXPECT_EQ(prefix[0],
            "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_EQ(IsQualifiedName(std::string(254, 'a') + "/b"),
            Problems{"prefix part must be no more than 253 characters"});
}

TEST(ValidationTest, LabelValues) {
  EXPECT_EQ(IsValidLabelValue(""), Problems{});
  EXPECT_EQ(IsValidLabelValue("My_value-1.2"), Problems{});
  EXPECT_EQ(IsValidLabelValue("a b"),
            Problems{"a valid label must be an empty string or consist of alphanumeric "
                     "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                     "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
                     "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"});
  EXPECT_EQ(IsValidLabelValue(std::string(64, 'a')),
            Problems{"must be no more than 63 characters"});
}

TEST(ValidationTest, DnsNames) {
  EXPECT_EQ(IsDns1123Label("my-name-1"), Problems{});
  EXPECT_EQ(IsDns1123Label("a.b"), Problems{"must not contain dots"});
  EXPECT_EQ(IsDns1123Label("A"),
            Problems{"a lowercase RFC 1123 label must consist of lower case alphanumeric "
                     "characters or '-', and must start and end with an alphanumeric character "
                     "(e.g. 'my-name',  or '123-abc', regex used for validation is "
                     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"});
  EXPECT_EQ(IsDns1123Label(std::string(64, 'a')), Problems{"must be no more than 63 characters"});
  EXPECT_EQ(IsDns1123Subdomain("kai.scheduler"), Problems{});
  EXPECT_EQ(IsDns1123Subdomain("a.-b").size(), 1u);
  EXPECT_EQ(IsDns1123Subdomain(""), IsDns1123Subdomain("."));
  EXPECT_EQ(IsDns1035Label("queues"), Problems{});
  EXPECT_EQ(IsDns1035Label("1abc"),
            Problems{"a DNS-1035 label must consist of lower case alphanumeric characters or "
                     "'-', start with an alphabetic character, and end with an alphanumeric "
                     "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
                     "'[a-z]([-a-z0-9]*[a-z0-9])?')"});
}

}  // namespace
}  // namespace kai::api
