// Quantity: Kubernetes resource.Quantity, parsed and formatted exactly as Kubernetes does it
// (binary suffixes Ki..Ei, decimal suffixes n u m "" k M G T P E, decimal exponents e/E,
// canonical output such as "1500m", "2Gi", "1e3", rounding rules of the Go implementation).
// Differences from Go (all outside the range real clusters use) are listed in docs/api.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::api {

class Quantity {
 public:
  enum class Format { kDecimalSI, kBinarySI, kDecimalExponent };

  // Zero ("0").
  Quantity() = default;

  // Parses a quantity string; errors (never crashes) on anything Kubernetes rejects. The
  // message is Kubernetes' ("quantities must match the regular expression ...", "unable to
  // parse quantity's suffix").
  static StatusOr<Quantity> Parse(std::string_view s);
  // value * 10^scale, e.g. FromScaled(1500, -3) == "1500m" (Go NewScaledQuantity, no rounding).
  static Quantity FromScaled(int64_t value, int32_t scale, Format format = Format::kDecimalSI);
  static Quantity FromInt(int64_t value, Format format = Format::kDecimalSI);
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI);

  // Integer value rounded up (away from zero), saturating at the int64 range
  // (Kubernetes Quantity.Value()).
  int64_t Value() const;
  // ceil(value * 1000), saturating (Kubernetes Quantity.MilliValue()).
  int64_t MilliValue() const;
  // ceil(value / 10^scale), saturating (Kubernetes Quantity.ScaledValue()); scale -3 is milli.
  int64_t ScaledValue(int32_t scale) const;
  // mantissa * 10^exponent in float64, computed as Go's AsApproximateFloat64 does.
  double AsApproximateDouble() const;

  bool IsZero() const { return mantissa_ == 0; }
  int Sign() const { return mantissa_ == 0 ? 0 : (mantissa_ < 0 ? -1 : 1); }
  Format format() const { return format_; }

  // Canonical Kubernetes string form (what the API server writes back). A string parsed in
  // canonical form is returned as written (Go caches it, so e.g. "+1" stays "+1").
  std::string ToString() const;

  // Exact comparison of the numeric values (1 == 1000m).
  int Cmp(const Quantity& other) const;
  int CmpInt64(int64_t v) const { return Cmp(FromInt(v)); }
  bool operator==(const Quantity& other) const { return Cmp(other) == 0; }
  bool operator<(const Quantity& other) const { return Cmp(other) < 0; }

  // Exact arithmetic (up to 37 significant digits; see docs/api.md). If this is zero it takes
  // the other's format, as Go does.
  Quantity& Add(const Quantity& other);
  Quantity& Sub(const Quantity& other);
  Quantity& Neg();

 private:
  Quantity(__int128 mantissa, int32_t exponent, Format format)
      : mantissa_(mantissa), exponent_(exponent), format_(format) {}

  // Exact decimal value: mantissa * 10^exponent, |mantissa| < 10^37. Mirrors Go's
  // int64Amount{value, scale} (and the inf.Dec form for the slow parse path), so that
  // AsApproximateDouble rounds exactly as Go's AsApproximateFloat64.
  __int128 mantissa_ = 0;
  int32_t exponent_ = 0;
  Format format_ = Format::kDecimalSI;
  // The parsed text when Go would keep it (canonical-form fast path) and it differs from our
  // canonical output; null otherwise (the common case, so copies stay cheap).
  std::shared_ptr<const std::string> text_;
};

// A resource name ("cpu", "memory", "nvidia.com/gpu", ...) to quantity map, ordered by name.
using ResourceList = std::map<std::string, Quantity>;

}  // namespace kai::api
