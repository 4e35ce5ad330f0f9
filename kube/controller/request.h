// Request: what a reconciler is asked to look at, only {namespace, name}
// (controller-runtime reconcile.Request). Level-triggered: the reconciler reads the object's
// current state from the cache, never from the event that caused the request.
#pragma once

#include <compare>
#include <ostream>
#include <string>
#include <string_view>

namespace kai::controller {

struct Request {
  std::string namespace_;  // empty for cluster-scoped objects
  std::string name;

  // clang-tidy 14 mistakes the defaulted comparison's synthesized 0 for a null pointer.
  auto operator<=>(const Request&) const = default;  // NOLINT(modernize-use-nullptr)

  // The work-queue key: "namespace/name", or "name" for cluster-scoped objects (the informer
  // cache key).
  std::string Key() const { return namespace_.empty() ? name : namespace_ + "/" + name; }
  static Request FromKey(std::string_view key) {
    const size_t slash = key.find('/');
    if (slash == std::string_view::npos) return {"", std::string(key)};
    return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
  }
};

inline std::ostream& operator<<(std::ostream& os, const Request& r) { return os << r.Key(); }

}  // namespace kai::controller
