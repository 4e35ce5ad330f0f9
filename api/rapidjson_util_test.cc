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
