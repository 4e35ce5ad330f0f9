// Internal (kube/ .cc files only): the DeleteOptions body shared by the clients; JSON string
// literals are api::JsonQuote (api/json_quote.h).
#pragma once

#include <string>
#include <string_view>

#include "kube/rest/options.h"

namespace kai::kube::internal {

// metav1.DeleteOptions JSON ("{}" when nothing is set).
std::string DeleteOptionsJson(const DeleteOptions& options);

}  // namespace kai::kube::internal
