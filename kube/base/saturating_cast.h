// A double cast to an integer type without undefined behaviour: static_cast is undefined beyond
// the type's range (on x86 it yields INT_MIN), which amounts at Quantity's edge reach.
#pragma once

#include <cmath>
#include <limits>

namespace kai {

// `v` truncated toward zero, saturated at Int's range; NaN is 0.
template <typename Int>
Int SaturatingCast(double v) {
  using Limits = std::numeric_limits<Int>;
  if (std::isnan(v)) return 0;
  // -min() is 2^(bits-1), exact as a double: the first value above max().
  if (v >= -static_cast<double>(Limits::min())) return Limits::max();
  if (v < static_cast<double>(Limits::min())) return Limits::min();
  return static_cast<Int>(v);
}

}  // namespace kai
