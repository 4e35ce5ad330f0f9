#include "api/rapidjson_util.h"

#include <gtest/gtest.h>

#include <string>

namespace kai::api {
namespace {

TEST(JsonDepthTest, BracketsInsideStringsDoNotCount) {
  EXPECT_EQ(JsonDepthExceededAt(R"({"a":[1,{"b":2}]})", 3), std::string_view::npos);
  EXPECT_EQ(JsonDepthExceededAt(R"({"a":[1,{"b":2}]})", 2), 8u);  // the inner '{'
  EXPECT_EQ(JsonDepthExceededAt(R"({"a":"[[[{{{\"[["})", 1), std::string_view::npos);
  EXPECT_EQ(JsonDepthExceededAt("", 0), std::string_view::npos);
}

// The scan counts brackets first and skips the exact walk when there are too few to nest past
// the limit; brackets inside strings still never count as nesting.
TEST(JsonDepthTest, ShortcutsAgreeWithTheExactScan) {
  const std::string in_strings = R"({"a":")" + std::string(50, '[') + R"("})";
  EXPECT_EQ(JsonDepthExceededAt(in_strings, 3), std::string_view::npos);
  const std::string long_flat = R"({"a":")" + std::string(500, 'x') + R"(","b":[[1]]})";
  EXPECT_EQ(JsonDepthExceededAt(long_flat, 3), std::string_view::npos);
  EXPECT_EQ(JsonDepthExceededAt(long_flat, 2), long_flat.size() - 5);  // the inner '['
}

TEST(JsonDepthTest, ParseRejectsNestingBeyondGosLimitWithTheOffset) {
  const std::string deep =
      std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  rapidjson::Document doc;
  const Status st = ParseJson(deep, &doc);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "invalid JSON at offset " + std::to_string(kMaxJsonDepth) +
                              ": nesting deeper than " + std::to_string(kMaxJsonDepth));
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(ParseJson(ok, &doc).ok());
}

}  // namespace
}  // namespace kai::api
