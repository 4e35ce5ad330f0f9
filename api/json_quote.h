// A JSON string literal built by hand-written patch bodies, without pulling RapidJSON into
// headers.
#pragma once

#include <string>
#include <string_view>

namespace kai::api {

// `s` as a JSON string literal with its quotes ("a\"b" for a"b; control characters escaped).
std::string JsonQuote(std::string_view s);

}  // namespace kai::api
