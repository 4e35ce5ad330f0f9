// KAI-style command lines parsed without gflags (kai-scheduler and kai-binder take KAI's flag
// names, with dashes): "--name=value", "--name value" and "-name"; a boolean flag given without
// "=value" is "true". Errors name the flag.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "kube/base/statusor.h"

namespace kai {

// Calls `fn(name, value)` for each flag of `args` in order (name without the leading dashes;
// "true" for a bare boolean flag) and stops at the first error: a positional argument, a
// non-boolean flag without a value at the end, or what `fn` returns.
Status ForEachFlag(
    const std::vector<std::string>& args, const std::set<std::string>& bool_flags,
    const std::function<Status(const std::string& name, const std::string& value)>& fn);

// A flag's value as a number ("--qps: expected a number, got \"x\"").
StatusOr<double> FlagNumber(const std::string& flag, const std::string& value);

// A flag's value as an integer in [min, max], as Go's int flags read it (no fraction, no
// exponent): "--burst: expected an integer from 0 to 1000000, got \"1e12\"". Counts that size
// thread pools or buckets are bounded so that a typo cannot ask for a billion threads.
StatusOr<int64_t> FlagInt(const std::string& flag, const std::string& value, int64_t min,
                          int64_t max);

// The bounds the components' flags share.
inline constexpr int64_t kMaxClientBurst = 1'000'000;   // --burst
inline constexpr int64_t kMaxWorkerThreads = 1'024;     // worker pools
inline constexpr int64_t kMaxFlagSeconds = 31'536'000;  // delays and timeouts: a year

// A flag's value as a boolean: true/1 or false/0.
StatusOr<bool> FlagBool(const std::string& flag, const std::string& value);

// One flag as --help lists it; `example` is a value the program's parser accepts (its tests
// parse every listed flag with it, so the help cannot name a flag the program does not take).
struct FlagHelp {
  const char* name;
  const char* example;
  const char* default_value;
  const char* description;
};

// `head`, then one line per flag: "  --name   description (default D)", then `tail`.
std::string FormatUsage(const std::string& head, const std::vector<FlagHelp>& flags,
                        const std::string& tail);

// Whether the command line asks for help (-h or --help anywhere).
bool WantsHelp(const std::vector<std::string>& args);

}  // namespace kai
