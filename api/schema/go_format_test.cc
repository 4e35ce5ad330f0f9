#include "api/schema/go_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kai::api::schema {
namespace {

TEST(GoQuoteTest, MatchesStrconvQuote) {
  EXPECT_EQ(GoQuote(""), "\"\"");
  EXPECT_EQ(GoQuote("preemptible"), "\"preemptible\"");
  EXPECT_EQ(GoQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(GoQuote("tab\there\nnl"), "\"tab\\there\\nnl\"");
  EXPECT_EQ(GoQuote(std::string("\x01\x7f", 2)), "\"\\x01\\x7f\"");
  EXPECT_EQ(GoQuote("caf\xC3\xA9"), "\"caf\xC3\xA9\"");            // printable UTF-8 kept
  EXPECT_EQ(GoQuote("nb\xC2\xA0sp"), "\"nb\\u00a0sp\"");           // no-break space escaped
  EXPECT_EQ(GoQuote("bad\xFFutf8"), "\"bad\\xffutf8\"");           // invalid byte
  EXPECT_EQ(GoQuote("\xE2\x80\xA8"), "\"\\u2028\"");               // line separator
  EXPECT_EQ(GoQuote("\xF0\x9F\x98\x80"), "\"\xF0\x9F\x98\x80\"");  // emoji is printable
}

TEST(GoFormatFloatTest, MatchesPercentV) {
  EXPECT_EQ(GoFormatFloat(0), "0");
  EXPECT_EQ(GoFormatFloat(1), "1");
  EXPECT_EQ(GoFormatFloat(-1), "-1");
  EXPECT_EQ(GoFormatFloat(0.5), "0.5");
  EXPECT_EQ(GoFormatFloat(1.5), "1.5");
  EXPECT_EQ(GoFormatFloat(100), "100");
  EXPECT_EQ(GoFormatFloat(123456), "123456");
  EXPECT_EQ(GoFormatFloat(1e6), "1e+06");
  EXPECT_EQ(GoFormatFloat(1234567), "1.234567e+06");
  EXPECT_EQ(GoFormatFloat(0.0001), "0.0001");
  EXPECT_EQ(GoFormatFloat(0.00001), "1e-05");
  EXPECT_EQ(GoFormatFloat(0.1), "0.1");
  EXPECT_EQ(GoFormatFloat(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(GoFormatFloat(1e21), "1e+21");
  EXPECT_EQ(GoFormatFloat(1.8446744073709552e19), "1.8446744073709552e+19");
  EXPECT_EQ(GoFormatFloat(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(GoFormatFloat(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(GoFormatFloat(std::nan("")), "NaN");
}

}  // namespace
}  // namespace kai::api::schema
