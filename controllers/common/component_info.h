// Identity of every KAI component binary: name, version, leader-election ID and the reference
// section that specifies it. One table, so `--version`, leases and docs never disagree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kai::controllers {

inline constexpr std::string_view kVersion = "0.1.0";

struct ComponentInfo {
  std::string_view binary;              // "kai-binder"
  std::string_view leader_election_id;  // KAI's lease name (kai-reference §22.4)
  std::string_view summary;
  bool implemented;  // false while the component's controller is still being built
};

const std::vector<ComponentInfo>& AllComponents();
// nullptr when `binary` is not a KAI component.
const ComponentInfo* FindComponent(std::string_view binary);

// "kai-binder 0.1.0" plus the summary, for --version and start-up logs.
std::string VersionLine(const ComponentInfo& info);

// The main() of a component whose controller has not landed yet: prints what it is and exits
// with status 2, so that nobody mistakes it for a working controller.
int RunPlaceholderMain(std::string_view binary, int argc, char** argv);

}  // namespace kai::controllers
