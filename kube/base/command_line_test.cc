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
  EXPECT_FALSE(FlagNumber("qps", "nan").ok());
  EXPECT_FALSE(FlagNumber("qps", "inf").ok());
  EXPECT_TRUE(*FlagBool("f", "1"));
  EXPECT_FALSE(*FlagBool("f", "false"));
  EXPECT_EQ(FlagBool("f", "yes").status().message(), "--f: expected true or false, got \"yes\"");
}

// Integers as Go's int flags take them, inside the caller's range: a count that sizes a thread
// pool cannot be 1e12 (that was a cast of a double to int, undefined beyond its range).
TEST(FlagValues, IntegersInARange) {
  EXPECT_EQ(*FlagInt("burst", "300", 0, 1000), 300);
  EXPECT_EQ(*FlagInt("v", "-2", -5, 5), -2);
  EXPECT_EQ(*FlagInt("v", "+3", -5, 5), 3);
  for (const char* bad : {"1e12", "2.5", "", "x", "10 ", "1001", "-1", "99999999999999999999"}) {
    StatusOr<int64_t> r = FlagInt("burst", bad, 0, 1000);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(),
              std::string("--burst: expected an integer from 0 to 1000, got \"") + bad + "\"");
  }
}

}  // namespace
}  // namespace kai
