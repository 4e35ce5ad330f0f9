// Quantity: Kubernetes resource.Quantity, parsed and formatted exactly as Kubernetes does it
// (binary suffixes Ki..Ei, decimal suffixes n u m "" k M G T P E, decimal exponents e/E,
// canonical output such as "1500m", "2Gi", "1e3", rounding rules of the Go implementation).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "kube/base/statusor.h"

namespace kai::api {

class Quantity {
 public:
  enum class Format { kDecimalSI, kBinarySI, kDecimalExponent };

  // Zero ("0").
  Quantity();

  // Parses a quantity string; errors (never crashes) on anything Kubernetes rejects.
  static StatusOr<Quantity> Parse(std::string_view s);
  // value * 10^scale, e.g. FromScaled(1500, -3) == "1500m".
  static Quantity FromScaled(int64_t value, int32_t scale, Format format = Format::kDecimalSI);
  static Quantity FromInt(int64_t value, Format format = Format::kDecimalSI);
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI);

  // Integer value rounded up (Kubernetes Quantity.Value()).
  int64_t Value() const;
  // Value * 1000 rounded up (Kubernetes Quantity.MilliValue()).
  int64_t MilliValue() const;
  // Value * 10^scale rounded up (Kubernetes Quantity.ScaledValue()).
  int64_t ScaledValue(int32_t scale) const;
  double AsApproximateDouble() const;

  bool IsZero() const;
  int Sign() const;
  Format format() const { return format_; }

  // Canonical Kubernetes string form (what the API server writes back).
  std::string ToString() const;

  // Exact comparison of the numeric values (1 == 1000m).
  int Cmp(const Quantity& other) const;
  bool operator==(const Quantity& other) const { return Cmp(other) == 0; }
  bool operator<(const Quantity& other) const { return Cmp(other) < 0; }

  Quantity& Add(const Quantity& other);
  Quantity& Sub(const Quantity& other);

 private:
  // Exact decimal value: mantissa * 10^exponent. (Representation is the implementation's choice;
  // it must be exact for every value Kubernetes accepts in practice.)
  __int128 mantissa_ = 0;
  int32_t exponent_ = 0;
  Format format_ = Format::kDecimalSI;
};

// A resource name ("cpu", "memory", "nvidia.com/gpu", ...) to quantity map, ordered by name.
using ResourceList = std::map<std::string, Quantity>;

}  // namespace kai::api
