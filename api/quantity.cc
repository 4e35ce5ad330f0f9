#include "api/quantity.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "kube/base/strings.h"

namespace kai::api {
namespace {

using i128 = __int128;
using u128 = unsigned __int128;

// Mantissas stay below 10^37 so that a sum of two never overflows __int128.
constexpr int kMaxDigits = 37;

constexpr u128 Pow10U(int n) {
  u128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}
constexpr u128 kMaxMantissa = Pow10U(kMaxDigits);  // exclusive bound

constexpr std::string_view kFormatError =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kSuffixError = "unable to parse quantity's suffix";

Status QuantityError(std::string_view s, std::string_view why) {
  return InvalidArgumentError("invalid quantity \"" + std::string(s) + "\": " + std::string(why));
}

int NumDigits(u128 v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

u128 Abs(i128 v) { return v < 0 ? static_cast<u128>(-(v + 1)) + 1 : static_cast<u128>(v); }

std::string U128ToString(u128 v) {
  char buf[48];
  int pos = sizeof(buf);
  do {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return std::string(buf + pos, sizeof(buf) - pos);
}

// Go's math.Pow10: exact table products, so that AsApproximateDouble matches Go bit for bit.
double GoPow10(int64_t n) {
  static constexpr double kTab[] = {1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07,
                                    1e08, 1e09, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23,
                                    1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
  static constexpr double kPos32[] = {1e00,  1e32,  1e64,  1e96,  1e128,
                                      1e160, 1e192, 1e224, 1e256, 1e288};
  static constexpr double kNeg32[] = {1e-00,  1e-32,  1e-64,  1e-96,  1e-128, 1e-160,
                                      1e-192, 1e-224, 1e-256, 1e-288, 1e-320};
  if (n >= 0 && n <= 308) return kPos32[n / 32] * kTab[n % 32];
  if (n < 0 && n >= -323) return kNeg32[(-n) / 32] / kTab[(-n) % 32];
  return n > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

struct Suffix {
  int base;  // 10 or 2
  int64_t exponent;
  Quantity::Format format;
};

bool InterpretSuffix(std::string_view s, Suffix* out) {
  using F = Quantity::Format;
  struct Entry {
    std::string_view name;
    int base;
    int exponent;
    F format;
  };
  static constexpr Entry kTable[] = {
      {"", 10, 0, F::kDecimalSI},   {"n", 10, -9, F::kDecimalSI}, {"u", 10, -6, F::kDecimalSI},
      {"m", 10, -3, F::kDecimalSI}, {"k", 10, 3, F::kDecimalSI},  {"M", 10, 6, F::kDecimalSI},
      {"G", 10, 9, F::kDecimalSI},  {"T", 10, 12, F::kDecimalSI}, {"P", 10, 15, F::kDecimalSI},
      {"E", 10, 18, F::kDecimalSI}, {"Ki", 2, 10, F::kBinarySI},  {"Mi", 2, 20, F::kBinarySI},
      {"Gi", 2, 30, F::kBinarySI},  {"Ti", 2, 40, F::kBinarySI},  {"Pi", 2, 50, F::kBinarySI},
      {"Ei", 2, 60, F::kBinarySI},
  };
  for (const Entry& e : kTable) {
    if (e.name == s) {
      *out = {e.base, e.exponent, e.format};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    // strconv.ParseInt(s[1:], 10, 64): optional sign, then at least one digit.
    std::string_view num = s.substr(1);
    bool neg = false;
    if (num[0] == '+' || num[0] == '-') {
      neg = num[0] == '-';
      num.remove_prefix(1);
    }
    if (num.empty()) return false;
    uint64_t v = 0;
    for (char c : num) {
      if (!IsAsciiDigit(c)) return false;
      if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1 - (c - '0')) / 10) {
        return false;  // out of int64 range: Go's ParseInt fails too
      }
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!neg && v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    // Exponents beyond +-2^62 behave like any other out-of-range one (huge: error; tiny: 1n);
    // clamping keeps the exponent arithmetic below free of overflow.
    constexpr uint64_t kClamp = uint64_t{1} << 62;
    if (v > kClamp) v = kClamp;
    *out = {10, neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v),
            Quantity::Format::kDecimalExponent};
    return true;
  }
  return false;
}

// Multiplies a decimal digit string by 2^k (k <= 60) in place.
std::string MulPow2(const std::string& digits, int k) {
  std::string out = digits;
  while (k > 0) {
    const int step = k > 30 ? 30 : k;
    k -= step;
    uint64_t carry = 0;
    for (size_t i = out.size(); i-- > 0;) {
      const uint64_t v = (static_cast<uint64_t>(out[i] - '0') << step) + carry;
      out[i] = static_cast<char>('0' + v % 10);
      carry = v / 10;
    }
    std::string prefix;
    while (carry > 0) {
      prefix.insert(prefix.begin(), static_cast<char>('0' + carry % 10));
      carry /= 10;
    }
    out.insert(0, prefix);
  }
  return out;
}

// Parses a digit string of at most kMaxDigits digits.
u128 DigitsToU128(std::string_view d) {
  u128 v = 0;
  for (char c : d) v = v * 10 + static_cast<u128>(c - '0');
  return v;
}

// Rounds |m| * 10^e down to at most kMaxDigits digits, away from zero. Used only where an exact
// result would need more digits than we keep (values far beyond any resource amount).
void Normalize(i128* m, int64_t* e) {
  const bool neg = *m < 0;
  u128 a = Abs(*m);
  while (a >= kMaxMantissa) {
    const bool inexact = a % 10 != 0;
    a /= 10;
    if (inexact) ++a;
    ++*e;
  }
  *m = neg ? -static_cast<i128>(a) : static_cast<i128>(a);
}

}  // namespace

Quantity Quantity::FromScaled(int64_t value, int32_t scale, Format format) {
  return Quantity(value, scale, format);
}
Quantity Quantity::FromInt(int64_t value, Format format) { return Quantity(value, 0, format); }
Quantity Quantity::FromMilli(int64_t milli, Format format) { return Quantity(milli, -3, format); }

StatusOr<Quantity> Quantity::Parse(std::string_view str) {
  if (str.empty()) return QuantityError(str, kFormatError);
  if (str == "0") return Quantity();

  // The scanner of Go's parseQuantityString.
  bool positive = true;
  size_t pos = 0;
  const size_t end = str.size();
  if (str[0] == '-') {
    positive = false;
    ++pos;
  } else if (str[0] == '+') {
    ++pos;
  }
  std::string_view num, denom, suffix;
  bool done = false;
  while (pos < end && str[pos] == '0') ++pos;
  if (pos >= end) {
    num = "0";
    done = true;
  }
  if (!done) {
    const size_t num_start = pos;
    while (pos < end && IsAsciiDigit(str[pos])) ++pos;
    num = str.substr(num_start, pos - num_start);
    if (pos >= end) done = true;
  }
  if (!done) {
    if (num.empty()) num = "0";
    if (str[pos] == '.') {
      ++pos;
      const size_t denom_start = pos;
      while (pos < end && IsAsciiDigit(str[pos])) ++pos;
      denom = str.substr(denom_start, pos - denom_start);
      if (pos >= end) done = true;
    }
  }
  if (!done) {
    const size_t suffix_start = pos;
    static constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
    while (pos < end && kSuffixChars.find(str[pos]) != std::string_view::npos) ++pos;
    if (pos < end) {
      if (str[pos] == '-' || str[pos] == '+') ++pos;
      while (pos < end && IsAsciiDigit(str[pos])) ++pos;
      if (pos < end) return QuantityError(str, kFormatError);
    }
    suffix = str.substr(suffix_start);
  }

  Suffix sfx;
  if (!InterpretSuffix(suffix, &sfx)) return QuantityError(str, kSuffixError);

  // Fast path: exactly Go's int64Amount parse, including when Go keeps the input text.
  int64_t precision = 0;
  int64_t scale = 0;
  int64_t mantissa = 1;
  if (sfx.format == Format::kBinarySI) {
    if (denom.empty()) {
      mantissa = int64_t{1} << sfx.exponent;
      precision = 15 - static_cast<int64_t>(num.size()) - sfx.exponent * 3 / 10 - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = sfx.exponent;
    precision = 18 - static_cast<int64_t>(num.size() + denom.size());
  }
  if (precision >= 0) {
    scale -= static_cast<int64_t>(denom.size());
    if (scale >= -9 && scale <= std::numeric_limits<int32_t>::max()) {
      std::string shifted;
      shifted.reserve(num.size() + denom.size());
      shifted.append(num).append(denom);
      int64_t value = 0;
      for (char c : shifted) value = value * 10 + (c - '0');  // <= 18 digits
      int64_t result;
      if (!__builtin_mul_overflow(value, mantissa, &result)) {
        if (!positive) result = -result;
        Quantity q(result, static_cast<int32_t>(scale), sfx.format);
        bool keep_text;
        if (sfx.format == Format::kBinarySI) {
          keep_text = sfx.exponent % 10 == 0 && (value & 0x07) != 0;
        } else {
          keep_text = scale % 3 == 0 && !shifted.ends_with("000") && shifted[0] != '0';
        }
        if (keep_text) {
          std::string canonical = q.ToString();
          if (canonical != str) q.text_ = std::make_shared<const std::string>(str);
        }
        return q;
      }
    }
  }

  // Slow path (Go's inf.Dec branch): exact value, rounded up to 1n, BinarySI capped at 2^63-1.
  std::string digits;
  digits.reserve(num.size() + denom.size());
  digits.append(num).append(denom);
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return Quantity(0, 0, sfx.format);
  digits.erase(0, first);
  int64_t e10 = (sfx.base == 10 ? sfx.exponent : 0) - static_cast<int64_t>(denom.size());
  if (sfx.base == 2) digits = MulPow2(digits, static_cast<int>(sfx.exponent));

  // nanos = ceil(digits * 10^(e10 + 9)) = kept * 10^zeros.
  std::string kept;
  int64_t zeros = 0;
  const int64_t shift = e10 + 9;  // |e10| < 2^63 - 2^31: no overflow
  if (shift >= 0) {
    kept = digits;
    zeros = shift;
  } else {
    const uint64_t cut = static_cast<uint64_t>(-shift);
    bool inexact;
    if (cut >= digits.size()) {
      kept = "0";
      inexact = true;  // digits is non-zero
    } else {
      kept = digits.substr(0, digits.size() - cut);
      inexact = digits.find_first_not_of('0', digits.size() - cut) != std::string::npos;
    }
    if (inexact) {  // + 1 on the decimal string
      size_t i = kept.size();
      while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
      if (i == 0) {
        kept.insert(kept.begin(), '1');
      } else {
        ++kept[i - 1];
      }
    }
    const size_t nz = kept.find_first_not_of('0');
    kept.erase(0, nz == std::string::npos ? kept.size() - 1 : nz);
  }
  const int64_t total_digits = static_cast<int64_t>(kept.size()) + zeros;

  Format format = sfx.format;
  if (format == Format::kBinarySI) {
    static constexpr std::string_view kMaxNanos = "9223372036854775807000000000";  // (2^63-1)*1e9
    std::string padded;
    bool over = total_digits > static_cast<int64_t>(kMaxNanos.size());
    if (!over && total_digits == static_cast<int64_t>(kMaxNanos.size())) {
      padded = kept + std::string(static_cast<size_t>(zeros), '0');
      over = padded > kMaxNanos;
    }
    if (over) {
      const int64_t max = std::numeric_limits<int64_t>::max();
      return Quantity(positive ? max : -max, 0, format);
    }
    if (total_digits <= 9) format = Format::kDecimalSI;  // 0 < |value| < 1
  }

  i128 m;
  int64_t e;
  if (total_digits <= kMaxDigits) {
    m = static_cast<i128>(DigitsToU128(kept) * Pow10U(static_cast<int>(zeros)));
    e = -9;
  } else if (static_cast<int64_t>(kept.size()) <= kMaxDigits) {
    m = static_cast<i128>(DigitsToU128(kept));
    e = -9 + zeros;
  } else {
    const size_t drop = kept.size() - kMaxDigits;
    const bool inexact = kept.find_first_not_of('0', kMaxDigits) != std::string::npos;
    u128 a = DigitsToU128(std::string_view(kept).substr(0, kMaxDigits));
    if (inexact) ++a;
    m = static_cast<i128>(a);
    e = -9 + zeros + static_cast<int64_t>(drop);
    Normalize(&m, &e);
  }
  if (e > std::numeric_limits<int32_t>::max()) {
    return QuantityError(str, "exponent out of range");
  }
  if (!positive) m = -m;
  return Quantity(m, static_cast<int32_t>(e), format);
}

int64_t Quantity::Value() const { return ScaledValue(0); }
int64_t Quantity::MilliValue() const { return ScaledValue(-3); }

int64_t Quantity::ScaledValue(int32_t scale) const {
  if (mantissa_ == 0) return 0;
  const bool neg = mantissa_ < 0;
  const u128 a = Abs(mantissa_);
  const int64_t d = static_cast<int64_t>(exponent_) - scale;
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  u128 r;
  if (d >= 0) {
    if (d > 38) return neg ? kMin : kMax;
    const u128 p = Pow10U(static_cast<int>(d));
    if (a > (~u128{0}) / p) return neg ? kMin : kMax;
    r = a * p;
  } else {
    if (-d > 38) return neg ? -1 : 1;  // rounds away from zero to the unit
    const u128 p = Pow10U(static_cast<int>(-d));
    r = a / p;
    if (a % p != 0) ++r;
  }
  if (neg) {
    if (r > static_cast<u128>(kMax) + 1) return kMin;
    return r == static_cast<u128>(kMax) + 1 ? kMin : -static_cast<int64_t>(r);
  }
  if (r > static_cast<u128>(kMax)) return kMax;
  return static_cast<int64_t>(r);
}

double Quantity::AsApproximateDouble() const {
  const double base = static_cast<double>(mantissa_);
  if (exponent_ == 0) return base;
  return base * GoPow10(exponent_);
}

std::string Quantity::ToString() const {
  if (text_) return *text_;
  if (mantissa_ == 0) return "0";
  const bool neg = mantissa_ < 0;
  const u128 a = Abs(mantissa_);
  Format format = format_;
  if (format == Format::kBinarySI) {
    if (CmpInt64(-1024) > 0 && CmpInt64(1024) < 0) {
      format = Format::kDecimalSI;
    } else {
      // Binary output needs an exact integer value.
      u128 integer = 0;
      bool exact = true;
      if (exponent_ >= 0) {
        if (exponent_ > 38 || a > (~u128{0}) / Pow10U(exponent_)) {
          exact = false;
        } else {
          integer = a * Pow10U(exponent_);
        }
      } else if (exponent_ < -38) {
        exact = false;
      } else {
        const u128 p = Pow10U(-exponent_);
        exact = a % p == 0;
        integer = a / p;
      }
      if (!exact) {
        format = Format::kDecimalSI;
      } else {
        static constexpr std::string_view kBin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
        int exp = 0;
        while (exp < 6 && integer % 1024 == 0) {
          integer /= 1024;
          ++exp;
        }
        std::string out = neg ? "-" : "";
        out += U128ToString(integer);
        out += kBin[exp];
        return out;
      }
    }
  }
  // Decimal: strip factors of 10 into the exponent, then make the exponent a multiple of 3.
  u128 v = a;
  int64_t exp = exponent_;
  while (v % 10 == 0) {
    v /= 10;
    ++exp;
  }
  std::string out = neg ? "-" : "";
  out += U128ToString(v);
  switch (exp % 3) {
    case 1:
    case -2:
      out += '0';
      exp -= 1;
      break;
    case 2:
    case -1:
      out += "00";
      exp -= 2;
      break;
    default:
      break;
  }
  if (format == Format::kDecimalSI) {
    static constexpr std::string_view kDec[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    if (exp >= -9 && exp <= 18) {
      out += kDec[(exp + 9) / 3];
      return out;
    }
    // Go would print no suffix at all here (a wrong value); fall back to the exponent form.
  }
  if (exp != 0) {
    out += 'e';
    out += std::to_string(exp);
  }
  return out;
}

int Quantity::Cmp(const Quantity& other) const {
  const int s1 = Sign();
  const int s2 = other.Sign();
  if (s1 != s2) return s1 < s2 ? -1 : 1;
  if (s1 == 0) return 0;
  u128 a = Abs(mantissa_);
  u128 b = Abs(other.mantissa_);
  const int64_t adj1 = static_cast<int64_t>(exponent_) + NumDigits(a);
  const int64_t adj2 = static_cast<int64_t>(other.exponent_) + NumDigits(b);
  if (adj1 != adj2) return adj1 > adj2 ? s1 : -s1;
  // Same magnitude order: aligning cannot exceed the other's digit count.
  if (exponent_ > other.exponent_) {
    a *= Pow10U(exponent_ - other.exponent_);
  } else if (other.exponent_ > exponent_) {
    b *= Pow10U(other.exponent_ - exponent_);
  }
  if (a == b) return 0;
  return a > b ? s1 : -s1;
}

Quantity& Quantity::Add(const Quantity& y) {
  text_.reset();
  if (mantissa_ == 0) format_ = y.format_;
  if (y.mantissa_ == 0) return *this;
  if (mantissa_ == 0) {
    mantissa_ = y.mantissa_;
    exponent_ = y.exponent_;
    return *this;
  }
  // Align to the smaller exponent (Go's int64Amount.Add), as far as the digits we keep allow.
  i128 hi = mantissa_, lo = y.mantissa_;
  int64_t hi_e = exponent_, lo_e = y.exponent_;
  if (hi_e < lo_e) {
    std::swap(hi, lo);
    std::swap(hi_e, lo_e);
  }
  const int64_t room = kMaxDigits - NumDigits(Abs(hi));
  int64_t target = lo_e;
  if (hi_e - lo_e > room) target = hi_e - room;  // lossy only beyond 37 significant digits
  hi *= static_cast<i128>(Pow10U(static_cast<int>(hi_e - target)));
  if (lo_e < target) {
    const int64_t k = target - lo_e;
    const bool neg = lo < 0;
    u128 a = Abs(lo);
    if (k > 38) {
      a = 1;
    } else {
      const u128 p = Pow10U(static_cast<int>(k));
      const bool inexact = a % p != 0;
      a /= p;
      if (inexact) ++a;
    }
    lo = neg ? -static_cast<i128>(a) : static_cast<i128>(a);
  }
  i128 sum = hi + lo;  // both < 10^37 in magnitude: no overflow
  int64_t e = target;
  Normalize(&sum, &e);
  if (e > std::numeric_limits<int32_t>::max()) e = std::numeric_limits<int32_t>::max();
  mantissa_ = sum;
  exponent_ = static_cast<int32_t>(e);
  if (mantissa_ == 0) exponent_ = 0;
  return *this;
}

Quantity& Quantity::Sub(const Quantity& y) {
  Quantity neg = y;
  neg.Neg();
  return Add(neg);
}

Quantity& Quantity::Neg() {
  text_.reset();
  mantissa_ = -mantissa_;
  return *this;
}

}  // namespace kai::api
