// Internal (kube/ .cc files only): small JSON writing helpers shared by the clients.
#pragma once

#include <string>
#include <string_view>

#include "api/json_quote.h"  // api::JsonQuote, for the writers of small bodies
#include "kube/rest/options.h"

namespace kai::kube::internal {

using api::JsonQuote;

// metav1.DeleteOptions JSON ("{}" when nothing is set).
std::string DeleteOptionsJson(const DeleteOptions& options);

}  // namespace kai::kube::internal
