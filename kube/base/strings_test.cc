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

TEST(StringsTest, ParseDecimalUint64TakesDigitsOnly) {
  uint64_t v = 7;
  EXPECT_TRUE(ParseDecimalUint64("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(ParseDecimalUint64("9999999999999999999", &v));  // 19 digits: the most taken
  EXPECT_EQ(v, 9999999999999999999u);
  v = 7;
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1a", "0x1", "10000000000000000000"}) {
    EXPECT_FALSE(ParseDecimalUint64(bad, &v)) << bad;
    EXPECT_EQ(v, 7u) << bad;
  }
}

TEST(UrlQueryEscapeTest, Rfc3986Unreserved) {
  EXPECT_EQ(UrlQueryEscape("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(UrlQueryEscape("a b/c"), "a%20b%2Fc");
  EXPECT_EQ(UrlQueryEscape("[1w:1m]"), "%5B1w%3A1m%5D");
  EXPECT_EQ(UrlQueryEscape("app=web,tier in (a,b)"), "app%3Dweb%2Ctier%20in%20%28a%2Cb%29");
  EXPECT_EQ(UrlQueryEscape("\xC3\xA9"), "%C3%A9");
}

}  // namespace
}  // namespace kai
