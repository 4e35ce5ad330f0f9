#include "kube/base/command_line.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace kai {

Status ForEachFlag(
    const std::vector<std::string>& args, const std::set<std::string>& bool_flags,
    const std::function<Status(const std::string& name, const std::string& value)>& fn) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!a.starts_with("-")) return InvalidArgumentError("unexpected argument \"" + a + "\"");
    std::string name = a.substr(a.starts_with("--") ? 2 : 1);
    std::string value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (bool_flags.count(name) > 0) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return InvalidArgumentError("--" + name + ": missing value");
    }
    KAI_RETURN_IF_ERROR(fn(name, value));
  }
  return Status::OK();
}

StatusOr<double> FlagNumber(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  const double d = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(d)) {
    return InvalidArgumentError("--" + flag + ": expected a number, got \"" + value + "\"");
  }
  return d;
}

StatusOr<int64_t> FlagInt(const std::string& flag, const std::string& value, int64_t min,
                          int64_t max) {
  int64_t v = 0;
  const char* first = value.data();
  const char* last = value.data() + value.size();
  if (first != last && *first == '+') ++first;  // Go's strconv.ParseInt takes a sign
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (value.empty() || ec != std::errc() || ptr != last || v < min || v > max) {
    return InvalidArgumentError("--" + flag + ": expected an integer from " + std::to_string(min) +
                                " to " + std::to_string(max) + ", got \"" + value + "\"");
  }
  return v;
}

StatusOr<bool> FlagBool(const std::string& flag, const std::string& value) {
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  return InvalidArgumentError("--" + flag + ": expected true or false, got \"" + value + "\"");
}

std::string FormatUsage(const std::string& head, const std::vector<FlagHelp>& flags,
                        const std::string& tail) {
  std::string out = head;
  for (const FlagHelp& f : flags) {
    std::string line = std::string("  --") + f.name;
    line.resize(std::max<size_t>(line.size() + 1, 38), ' ');
    out += line + f.description + " (default " + f.default_value + ")\n";
  }
  return out + tail;
}

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") return true;
  }
  return false;
}

}  // namespace kai
