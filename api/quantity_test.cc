#include "api/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace kai::api {
namespace {

using F = Quantity::Format;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Quantity Q(std::string_view s) {
  auto q = Quantity::Parse(s);
  EXPECT_TRUE(q.ok()) << s << ": " << q.status();
  return q.ok() ? *q : Quantity();
}

struct ParseCase {
  std::string_view in;
  std::string_view canonical;  // ToString() after parsing
  F format;
};

// Inputs and values from Kubernetes' TestQuantityParse / TestQuantityParseEmit; the expected
// strings are what Go's String() returns for them.
const ParseCase kParseCases[] = {
    {"0", "0", F::kDecimalSI},
    {"0n", "0", F::kDecimalSI},
    {"0u", "0", F::kDecimalSI},
    {"0m", "0", F::kDecimalSI},
    {"0Ki", "0", F::kBinarySI},
    {"0k", "0", F::kDecimalSI},
    {"0Mi", "0", F::kBinarySI},
    {"0M", "0", F::kDecimalSI},
    {"0Gi", "0", F::kBinarySI},
    {"0Ti", "0", F::kBinarySI},
    {"1", "1", F::kDecimalSI},
    // Binary suffixes.
    {"1Ki", "1Ki", F::kBinarySI},
    {"8Ki", "8Ki", F::kBinarySI},
    {"7Mi", "7Mi", F::kBinarySI},
    {"6Gi", "6Gi", F::kBinarySI},
    {"5Ti", "5Ti", F::kBinarySI},
    {"4Pi", "4Pi", F::kBinarySI},
    {"3Ei", "3Ei", F::kBinarySI},
    {"10Ti", "10Ti", F::kBinarySI},
    {"100Ti", "100Ti", F::kBinarySI},
    {"1024Mi", "1Gi", F::kBinarySI},
    {"2Gi", "2Gi", F::kBinarySI},
    // Decimal suffixes.
    {"5n", "5n", F::kDecimalSI},
    {"4u", "4u", F::kDecimalSI},
    {"3m", "3m", F::kDecimalSI},
    {"9", "9", F::kDecimalSI},
    {"8k", "8k", F::kDecimalSI},
    {"50k", "50k", F::kDecimalSI},
    {"7M", "7M", F::kDecimalSI},
    {"6G", "6G", F::kDecimalSI},
    {"5T", "5T", F::kDecimalSI},
    {"40T", "40T", F::kDecimalSI},
    {"300T", "300T", F::kDecimalSI},
    {"2P", "2P", F::kDecimalSI},
    {"1E", "1E", F::kDecimalSI},
    {"1000M", "1G", F::kDecimalSI},
    {"100M", "100M", F::kDecimalSI},
    {"1000m", "1", F::kDecimalSI},
    {"1500m", "1500m", F::kDecimalSI},
    // Decimal exponents (a canonical-form input is kept as written, as Go caches it).
    {"1E-3", "1E-3", F::kDecimalExponent},
    {"1e3", "1e3", F::kDecimalExponent},
    {"1E6", "1E6", F::kDecimalExponent},
    {"1e9", "1e9", F::kDecimalExponent},
    {"1E12", "1E12", F::kDecimalExponent},
    {"1e15", "1e15", F::kDecimalExponent},
    {"1E18", "1E18", F::kDecimalExponent},
    {"1e14", "100e12", F::kDecimalExponent},
    {"1e13", "10e12", F::kDecimalExponent},
    {"1.2e3", "1200", F::kDecimalExponent},
    {"1.3E+6", "1300e3", F::kDecimalExponent},
    {"1.40e9", "1400e6", F::kDecimalExponent},
    {"1.53E12", "1530e9", F::kDecimalExponent},
    {"1.6e15", "1600e12", F::kDecimalExponent},
    {"1.7E18", "1700e15", F::kDecimalExponent},
    {"100.035k", "100.035k", F::kDecimalSI},  // canonical-form fast path: text kept
    // Things that look like floating point.
    {"0.001", "1m", F::kDecimalSI},
    {"0.0005k", "500m", F::kDecimalSI},
    {"0.005", "5m", F::kDecimalSI},
    {"0.05", "50m", F::kDecimalSI},
    {"0.5", "500m", F::kDecimalSI},
    {"1.5", "1500m", F::kDecimalSI},
    {"0.00050k", "500m", F::kDecimalSI},
    {"0.00500", "5m", F::kDecimalSI},
    {"0.05000", "50m", F::kDecimalSI},
    {"0.50000", "500m", F::kDecimalSI},
    {"0.5e0", "500e-3", F::kDecimalExponent},
    {"0.5e-1", "50e-3", F::kDecimalExponent},
    {"0.5e-2", "5e-3", F::kDecimalExponent},
    {"10.035M", "10.035M", F::kDecimalSI},
    {"9.01", "9010m", F::kDecimalSI},
    {"8.1k", "8100", F::kDecimalSI},
    {"7.123456M", "7.123456M", F::kDecimalSI},
    {"6.987654321G", "6.987654321G", F::kDecimalSI},
    {"5.444T", "5.444T", F::kDecimalSI},
    {"40.1T", "40100G", F::kDecimalSI},
    {"300.2T", "300200G", F::kDecimalSI},
    {"2.5P", "2500T", F::kDecimalSI},
    {"1.01E", "1010P", F::kDecimalSI},
    // Things that saturate or round up.
    {"3.001n", "4n", F::kDecimalSI},
    {"1.1E-9", "2e-9", F::kDecimalExponent},
    {"0.0000000001", "1n", F::kDecimalSI},
    {"0.0000000005", "1n", F::kDecimalSI},
    {"0.00000000050", "1n", F::kDecimalSI},
    {"0.5e-9", "1e-9", F::kDecimalExponent},
    {"0.9n", "1n", F::kDecimalSI},
    {"0.00000012345", "124n", F::kDecimalSI},
    {"0.00000012354", "124n", F::kDecimalSI},
    {"9Ei", "9223372036854775807", F::kBinarySI},
    {"9223372036854775807Ki", "9223372036854775807", F::kBinarySI},
    {"12E", "12E", F::kDecimalSI},
    {"1e-100", "1e-9", F::kDecimalExponent},
    // Fractional binary amounts (DecimalSI output when not an integer).
    {"100.035Ki", "102435840m", F::kBinarySI},
    {"0.5Mi", "512Ki", F::kBinarySI},
    {"1.5Gi", "1536Mi", F::kBinarySI},
    {"0.05Gi", "53687091200m", F::kBinarySI},
    {"0.025Ti", "27487790694400m", F::kBinarySI},
    {".001Ki", "1024m", F::kBinarySI},
    {".000001Ki", "1024u", F::kDecimalSI},
    {".000000001Ki", "1024n", F::kDecimalSI},
    {".000000000001Ki", "2n", F::kDecimalSI},
    // Things written by trolls.
    {".001", "1m", F::kDecimalSI},
    {".0001k", "100m", F::kDecimalSI},
    {"1.", "1.", F::kDecimalSI},
    {"1.G", "1.G", F::kDecimalSI},
    {".", "0", F::kDecimalSI},
    {"-", "0", F::kDecimalSI},
    {"e3", "0", F::kDecimalExponent},   // Go reads an empty number as 0
    {"+1", "+1", F::kDecimalSI},        // canonical-form fast path: Go keeps the text
    {"1.500", "1.500", F::kDecimalSI},  // ditto
    {"-1.5Gi", "-1536Mi", F::kBinarySI},
    {"-100m", "-100m", F::kDecimalSI},
    {"-0.5", "-500m", F::kDecimalSI},
    // Beyond int64 (decimal amounts are not capped).
    {"100000000000000000000", "100E", F::kDecimalSI},
    {"1000E", "1e21", F::kDecimalSI},  // Go would print "1" (no suffix for 10^21)
    {"1e100", "10e99", F::kDecimalExponent},
};

TEST(QuantityTest, ParseTable) {
  for (const ParseCase& c : kParseCases) {
    SCOPED_TRACE(c.in);
    auto q = Quantity::Parse(c.in);
    ASSERT_TRUE(q.ok()) << q.status();
    EXPECT_EQ(q->ToString(), c.canonical);
    EXPECT_EQ(q->format(), c.format);
    // The canonical text parses back to the same value.
    auto again = Quantity::Parse(q->ToString());
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->Cmp(*q), 0);
  }
}

TEST(QuantityTest, NegativeOfEveryCaseIsTheNegatedValue) {
  for (const ParseCase& c : kParseCases) {
    if (c.in[0] == '-' || c.in[0] == '+') continue;
    SCOPED_TRACE(c.in);
    Quantity pos = Q(c.in);
    Quantity neg = Q("-" + std::string(c.in));
    Quantity expect = pos;
    expect.Neg();
    EXPECT_EQ(neg.Cmp(expect), 0);
    EXPECT_EQ(neg.format(), pos.format());
    Quantity plus = Q("+" + std::string(c.in));
    EXPECT_EQ(plus.Cmp(pos), 0);
  }
}

TEST(QuantityTest, InvalidInputsAreErrorsNotCrashes) {
  const char* kInvalid[] = {
      "",
      "1.1.M",
      "1+1.0M",
      "0.1mi",
      "0.1am",
      "aoeu",
      ".5i",
      "1i",
      "-3.01i",
      "-3.01e-",
      " 1",
      "1 ",
      "1e",
      "1Kib",
      "1KB",
      "abc",
      "1..",
      "e",
      "1e3.5",
      "--1",
      "1ki",
      "1 Gi",
      "G i",
      "1e+",
      "0x10",
      "1_000",
      "\x01",
      "1\n",
      "NaN",
      "Inf",
      "1e99999999999999999999",
      "١",  // non-ASCII digit
  };
  for (const char* in : kInvalid) {
    SCOPED_TRACE(in);
    auto q = Quantity::Parse(in);
    ASSERT_FALSE(q.ok());
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(q.status().message().find("invalid quantity"), std::string_view::npos);
  }
  EXPECT_NE(Quantity::Parse("abc").status().message().find("regular expression"),
            std::string_view::npos);
  EXPECT_NE(Quantity::Parse("1i").status().message().find("suffix"), std::string_view::npos);
}

TEST(QuantityTest, ValueRoundsUpAwayFromZeroAndSaturates) {
  struct Case {
    std::string_view in;
    int64_t value;
    int64_t milli;
  };
  const Case kCases[] = {
      {"1.5", 2, 1500},
      {"100m", 1, 100},
      {"1001m", 2, 1001},
      {"-1.5", -2, -1500},
      {"-100m", -1, -100},
      {"1n", 1, 1},
      {"1500n", 1, 1},
      {"2Gi", 2147483648, 2147483648000},
      {"1E", 1000000000000000000, kMax},
      {"9Ei", kMax, kMax},
      {"-9Ei", -kMax, kMin},
      {"1e100", kMax, kMax},
      {"0", 0, 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.in);
    Quantity q = Q(c.in);
    EXPECT_EQ(q.Value(), c.value);
    EXPECT_EQ(q.MilliValue(), c.milli);
  }
}

TEST(QuantityTest, ScaledValue) {
  // Kubernetes' TestScaledValue: NewScaledQuantity(1, from).ScaledValue(to).
  struct Case {
    int32_t from, to;
    int64_t expected;
  };
  const Case kCases[] = {
      {-9, -9, 1}, {-9, -6, 1},    {-9, -3, 1},         {-9, 0, 1},        {-6, -9, 1000},
      {-6, -6, 1}, {-6, -3, 1},    {-6, 0, 1},          {-3, -9, 1000000}, {-3, -6, 1000},
      {-3, -3, 1}, {-3, 0, 1},     {0, -9, 1000000000}, {0, -6, 1000000},  {0, -3, 1000},
      {0, 0, 1},   {2, -2, 10000},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(Quantity::FromScaled(1, c.from).ScaledValue(c.to), c.expected)
        << c.from << " -> " << c.to;
  }
  EXPECT_EQ(Q("1.5Gi").ScaledValue(6), 1611);  // ceil(1610.612736)
  EXPECT_EQ(Q("1").ScaledValue(-30), kMax);
  EXPECT_EQ(Q("1").ScaledValue(30), 1);
}

TEST(QuantityTest, FormattingOfConstructedQuantities) {
  // Kubernetes' TestQuantityString, TestNewSet, TestMilliNewSet, TestNewScaledSet.
  struct Case {
    Quantity q;
    std::string_view expect;
  };
  const Case kCases[] = {
      {Quantity::FromScaled(1024 * 1024 * 1024, 0, F::kBinarySI), "1Gi"},
      {Quantity::FromScaled(300 * 1024 * 1024, 0, F::kBinarySI), "300Mi"},
      {Quantity::FromScaled(6 * 1024, 0, F::kBinarySI), "6Ki"},
      {Quantity::FromScaled(1001LL * 1024 * 1024 * 1024, 0, F::kBinarySI), "1001Gi"},
      {Quantity::FromScaled(1024LL * 1024 * 1024 * 1024, 0, F::kBinarySI), "1Ti"},
      {Quantity::FromScaled(5, 0, F::kBinarySI), "5"},
      {Quantity::FromScaled(500, -3, F::kBinarySI), "500m"},
      {Quantity::FromScaled(1, 9), "1G"},
      {Quantity::FromScaled(1000, 6), "1G"},
      {Quantity::FromScaled(1000000, 3), "1G"},
      {Quantity::FromScaled(1000000000, 0), "1G"},
      {Quantity::FromScaled(1, -3), "1m"},
      {Quantity::FromScaled(80, -3), "80m"},
      {Quantity::FromScaled(1080, -3), "1080m"},
      {Quantity::FromScaled(108, -2), "1080m"},
      {Quantity::FromScaled(10800, -4), "1080m"},
      {Quantity::FromScaled(300, 6), "300M"},
      {Quantity::FromScaled(1, 12), "1T"},
      {Quantity::FromScaled(1234567, 6), "1234567M"},
      {Quantity::FromScaled(1234567, -3, F::kBinarySI), "1234567m"},
      {Quantity::FromScaled(3, 3), "3k"},
      {Quantity::FromScaled(1025, 0, F::kBinarySI), "1025"},
      {Quantity::FromScaled(0, 0), "0"},
      {Quantity::FromScaled(0, 0, F::kBinarySI), "0"},
      {Quantity::FromScaled(1, 9, F::kDecimalExponent), "1e9"},
      {Quantity::FromScaled(1, -3, F::kDecimalExponent), "1e-3"},
      {Quantity::FromScaled(1, -9, F::kDecimalExponent), "1e-9"},
      {Quantity::FromScaled(80, -3, F::kDecimalExponent), "80e-3"},
      {Quantity::FromScaled(300, 6, F::kDecimalExponent), "300e6"},
      {Quantity::FromScaled(1, 12, F::kDecimalExponent), "1e12"},
      {Quantity::FromScaled(3, 3, F::kDecimalExponent), "3e3"},
      {Quantity::FromScaled(1, -9), "1n"},
      {Quantity::FromScaled(80, -9), "80n"},
      {Quantity::FromScaled(1080, -9), "1080n"},
      {Quantity::FromScaled(108, -8), "1080n"},
      {Quantity::FromScaled(10800, -10), "1080n"},
      {Quantity::FromScaled(1, -6), "1u"},
      {Quantity::FromScaled(80, -6), "80u"},
      {Quantity::FromScaled(1080, -6), "1080u"},
      {Quantity::FromScaled(1000, -9), "1u"},
      {Quantity::FromMilli(1), "1m"},
      {Quantity::FromMilli(1000), "1"},
      {Quantity::FromMilli(1234000), "1234"},
      {Quantity::FromMilli(1024, F::kBinarySI), "1024m"},
      {Quantity::FromMilli(1024 * 1024, F::kBinarySI), "1048576m"},
      {Quantity::FromMilli(1000000, F::kDecimalExponent), "1e3"},
      {Quantity::FromInt(1), "1"},
      {Quantity::FromInt(1000), "1k"},
      {Quantity::FromInt(1234000), "1234k"},
      {Quantity::FromInt(1024, F::kBinarySI), "1Ki"},
      {Quantity::FromInt(1024 * 1024, F::kBinarySI), "1Mi"},
      {Quantity::FromInt(1000000, F::kDecimalExponent), "1e6"},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(c.q.ToString(), c.expect);
    if (!c.q.IsZero()) {
      Quantity neg = c.q;
      neg.Neg();
      EXPECT_EQ(neg.ToString(), "-" + std::string(c.expect));
    }
    // Parsing the canonical form gives the same value and the same text back.
    Quantity parsed = Q(c.expect);
    EXPECT_EQ(parsed.Cmp(c.q), 0) << c.expect;
    EXPECT_EQ(parsed.ToString(), c.expect);
  }
}

TEST(QuantityTest, OutOfTableDecimalExponentsUseTheExponentForm) {
  // Go prints "1" here (no SI suffix exists for 10^-12), which reads back as a different value.
  EXPECT_EQ(Quantity::FromScaled(1, -12).ToString(), "1e-12");
  EXPECT_EQ(Quantity::FromScaled(5, 21).ToString(), "5e21");
}

TEST(QuantityTest, Cmp) {
  struct Case {
    std::string_view x, y;
    int expect;
  };
  const Case kCases[] = {
      {"0", "0", 0},          {"100m", "50m", 1}, {"50m", "100m", -1},    {"10000T", "100Gi", 1},
      {"1", "1000m", 0},      {"1Ki", "1024", 0}, {"-1", "1", -1},        {"1e100", "9Ei", 1},
      {"-1e100", "-9Ei", -1}, {"1n", "0", 1},     {"1.5Gi", "1536Mi", 0}, {"999m", "1", -1},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(Q(c.x).Cmp(Q(c.y)), c.expect) << c.x << " vs " << c.y;
    EXPECT_EQ(Q(c.y).Cmp(Q(c.x)), -c.expect) << c.y << " vs " << c.x;
  }
  // Kubernetes' TestQuantityCmpInt64AndDec extremes.
  EXPECT_EQ(Quantity::FromScaled(kMax, 0).Cmp(Quantity::FromScaled(1, -1)), 1);
  EXPECT_EQ(Quantity::FromScaled(kMax, -16).Cmp(Quantity::FromScaled(1, 3)), -1);
  EXPECT_EQ(Quantity::FromScaled(kMin, -18).Cmp(Quantity::FromScaled(-1, 0)), -1);
  EXPECT_EQ(Quantity::FromScaled(kMin, -19).Cmp(Quantity::FromScaled(-1, 0)), 1);
  EXPECT_EQ(Quantity::FromScaled(1000000000000000000, -17).Cmp(Quantity::FromScaled(1, 1)), 0);
  EXPECT_EQ(Quantity::FromScaled(1000000000000000001, -17).Cmp(Quantity::FromScaled(1, 1)), 1);
  EXPECT_EQ(Quantity::FromScaled(999999999999999999, -17).Cmp(Quantity::FromScaled(1, 1)), -1);
  EXPECT_EQ(Quantity::FromScaled(0, 1).Cmp(Quantity::FromScaled(0, -1)), 0);
}

TEST(QuantityTest, AddSubKeepFormatRules) {
  // A zero operand takes the other's format (Go's TestQuantityAddZeroPreservesSuffix).
  for (std::string_view v : {"100m", "1Gi"}) {
    Quantity a = Q(v);
    a.Add(Q("0"));
    EXPECT_EQ(a.ToString(), v);
    Quantity b = Q("0");
    b.Add(Q(v));
    EXPECT_EQ(b.ToString(), v);
    Quantity c = Q(v);
    c.Sub(Q("0"));
    EXPECT_EQ(c.ToString(), v);
    Quantity d = Q("0");
    d.Sub(Q(v));
    EXPECT_EQ(d.ToString(), "-" + std::string(v));
  }
  Quantity a = Q("1");
  a.Add(Q("500m"));
  EXPECT_EQ(a.ToString(), "1500m");
  Quantity b = Q("1Gi");
  b.Add(Q("1Gi"));
  EXPECT_EQ(b.ToString(), "2Gi");
  Quantity c = Q("1Gi");
  c.Sub(Q("512Mi"));
  EXPECT_EQ(c.ToString(), "512Mi");
  Quantity d = Quantity::FromInt(10);
  d.Sub(Quantity::FromScaled(1, 1));
  EXPECT_TRUE(d.IsZero());
  Quantity e = Quantity::FromInt(10, F::kBinarySI);
  e.Sub(Quantity::FromInt(1));
  EXPECT_EQ(e.format(), F::kBinarySI);
  EXPECT_EQ(e.Value(), 9);
  // Sums beyond int64 stay exact.
  Quantity f = Q("9Ei");
  f.Add(Q("9Ei"));
  EXPECT_EQ(f.ToString(), "18446744073709551614");
  EXPECT_EQ(f.Value(), kMax);
  // "+1" keeps its text only until modified.
  Quantity g = Q("+1");
  g.Add(Q("0"));
  EXPECT_EQ(g.ToString(), "1");
}

TEST(QuantityTest, AddSubRoundTripAcrossScales) {
  std::mt19937_64 rng(42);
  for (int k = -10; k <= 10; ++k) {
    Quantity q;
    std::vector<int64_t> order;
    for (int i = 0; i < 100; ++i) {
      const int64_t j = static_cast<int64_t>(rng() >> 1);
      order.push_back(j);
      q.Add(Quantity::FromScaled(j, k + static_cast<int32_t>(j % 7)));
    }
    for (int64_t j : order) q.Sub(Quantity::FromScaled(j, k + static_cast<int32_t>(j % 7)));
    EXPECT_TRUE(q.IsZero()) << k << ": " << q.ToString();
  }
}

TEST(QuantityTest, AsApproximateDoubleMatchesGo) {
  EXPECT_EQ(Q("2Ki").AsApproximateDouble(), 2048);
  EXPECT_EQ(Q("1.1Ki").AsApproximateDouble(), 1126.4);
  EXPECT_EQ(Q("1Mi").AsApproximateDouble(), 1048576);
  EXPECT_EQ(Q("2Gi").AsApproximateDouble(), 2147483648.0);
  EXPECT_EQ(Q("0").AsApproximateDouble(), 0);
  EXPECT_EQ(Q("12E").AsApproximateDouble(), 1.2e19);
  EXPECT_EQ(Q("9Ei").AsApproximateDouble(), 9223372036854775807.0);
  // Go multiplies by math.Pow10(scale): 7Mi * 10^-1 is not 7Mi / 10.
  volatile double seven_mi = 7 * 1024 * 1024;
  EXPECT_EQ(Quantity::FromScaled(7 * 1024 * 1024, -1).AsApproximateDouble(), seven_mi * 0.1);
  EXPECT_EQ(Quantity::FromScaled(7 * 1024 * 1024, -8).AsApproximateDouble(),
            seven_mi / 100000000.0);
  EXPECT_EQ(Quantity::FromScaled(12, 500).AsApproximateDouble(),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(Quantity::FromScaled(-12, 500).AsApproximateDouble(),
            -std::numeric_limits<double>::infinity());
  EXPECT_EQ(Q("300m").AsApproximateDouble(), 0.3);
}

TEST(QuantityTest, GarbageNeverCrashes) {
  std::mt19937 rng(7);
  const std::string alphabet = "0123456789.+-eEinumkKMGTP xZ";
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    const int len = static_cast<int>(rng() % 24);
    for (int j = 0; j < len; ++j) s.push_back(alphabet[rng() % alphabet.size()]);
    auto q = Quantity::Parse(s);
    if (q.ok()) {
      // Anything accepted formats, re-parses to the same value and does arithmetic.
      auto again = Quantity::Parse(q->ToString());
      ASSERT_TRUE(again.ok()) << s << " -> " << q->ToString();
      EXPECT_EQ(again->Cmp(*q), 0) << s << " -> " << q->ToString();
      Quantity sum = *q;
      sum.Add(*again);
      sum.Sub(*q);
      EXPECT_EQ(sum.Cmp(*q), 0) << s;
      (void)q->Value();
      (void)q->MilliValue();
      (void)q->AsApproximateDouble();
    }
  }
  // Very long inputs (linear time).
  EXPECT_TRUE(Quantity::Parse(std::string(100000, '9')).ok());
  EXPECT_TRUE(Quantity::Parse("0." + std::string(100000, '0') + "1Ki").ok());
  EXPECT_EQ(Q("0." + std::string(100000, '0') + "1Ki").ToString(), "1n");
  EXPECT_FALSE(Quantity::Parse("1e4611686018427387904").ok());  // exponent out of range
}

}  // namespace
}  // namespace kai::api
