#include "api/json_quote.h"

#include <gtest/gtest.h>

#include <string>

namespace kai::api {
namespace {

TEST(JsonQuote, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonQuote("a\"b\nc"), R"("a\"b\nc")");
  EXPECT_EQ(JsonQuote("x\\y\tz"), R"("x\\y\tz")");
  EXPECT_EQ(JsonQuote(std::string("\x01", 1)), R"("\u0001")");
  EXPECT_EQ(JsonQuote("GPU-ü"), "\"GPU-ü\"");
  EXPECT_EQ(JsonQuote(""), "\"\"");
}

}  // namespace
}  // namespace kai::api
