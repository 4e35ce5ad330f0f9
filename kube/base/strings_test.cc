#include "kube/base/strings.h"

#include <gtest/gtest.h>

namespace kai {
namespace {

TEST(StringsTest, SplitJoinStrip) {
  EXPECT_EQ(StrSplit("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(StrSplit("", ','), (std::vector<std::string>{""}));
  EXPECT_EQ(StrJoin({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(StripWhitespace("  x y \n"), "x y");
  EXPECT_EQ(AsciiToLower("BinPack"), "binpack");
}

TEST(StringsTest, StrCatJoinsEveryKindOfStringPiece) {
  const std::string a = "node";
  std::string_view b = "-";
  EXPECT_EQ(StrCat(a, b, "7"), "node-7");
  EXPECT_EQ(StrCat(a), "node");
  EXPECT_EQ(StrCat("", a, ""), "node");
}

}  // namespace
}  // namespace kai
