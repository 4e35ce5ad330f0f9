// Internal (kube/ .cc files only): small JSON writing helpers shared by the clients.
#pragma once

#include <string>
#include <string_view>

#include "kube/rest/options.h"

namespace kai::kube::internal {

// `s` as a JSON string literal, quotes included.
std::string JsonQuote(std::string_view s);

// metav1.DeleteOptions JSON ("{}" when nothing is set).
std::string DeleteOptionsJson(const DeleteOptions& options);

}  // namespace kai::kube::internal
