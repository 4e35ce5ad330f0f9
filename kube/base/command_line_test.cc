#include "kube/base/command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace kai {
namespace {

using Seen = std::vector<std::pair<std::string, std::string>>;

StatusOr<Seen> Flags(const std::vector<std::string>& args) {
  Seen seen;
  Status st = ForEachFlag(args, {"leader-elect"}, [&](const std::string& n, const std::string& v) {
    if (n == "bad") return InvalidArgumentError("bad flag");
    seen.emplace_back(n, v);
    return Status::OK();
  });
  if (!st.ok()) return st;
  return seen;
}

TEST(ForEachFlag, FormsOfAFlag) {
  auto seen =
      Flags({"--qps=20", "--burst", "40", "-v", "4", "--leader-elect", "--name=", "--x=a=b"});
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_EQ(*seen, (Seen{{"qps", "20"},
                         {"burst", "40"},
                         {"v", "4"},
                         {"leader-elect", "true"},
                         {"name", ""},
                         {"x", "a=b"}}));
  seen = Flags({"--leader-elect=false"});
  ASSERT_TRUE(seen.ok());
  EXPECT_EQ(*seen, (Seen{{"leader-elect", "false"}}));
}

TEST(ForEachFlag, ErrorsInOrder) {
  EXPECT_EQ(Flags({"pos"}).status().message(), "unexpected argument \"pos\"");
  EXPECT_EQ(Flags({"--qps"}).status().message(), "--qps: missing value");
  // The first error wins: the callback's comes before a later positional argument.
  EXPECT_EQ(Flags({"--bad=1", "pos"}).status().message(), "bad flag");
}

TEST(FlagValues, NumbersAndBooleans) {
  EXPECT_EQ(*FlagNumber("qps", "2.5"), 2.5);
  EXPECT_EQ(FlagNumber("qps", "x").status().message(), "--qps: expected a number, got \"x\"");
  EXPECT_EQ(FlagNumber("qps", "").status().message(), "--qps: expected a number, got \"\"");
  EXPECT_TRUE(*FlagBool("f", "1"));
  EXPECT_FALSE(*FlagBool("f", "false"));
  EXPECT_EQ(FlagBool("f", "yes").status().message(), "--f: expected true or false, got \"yes\"");
}

}  // namespace
}  // namespace kai
