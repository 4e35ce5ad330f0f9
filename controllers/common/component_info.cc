#include "controllers/common/component_info.h"

#include <cstdio>
#include <cstring>

namespace kai::controllers {

const std::vector<ComponentInfo>& AllComponents() {
  static const auto* const kComponents = new std::vector<ComponentInfo>{
      {"kai-scheduler", "kai-scheduler", "GPU batch scheduler (sessions, actions, plugins)", true},
      {"kai-binder", "2ad35f9c.kai.scheduler", "binds pods from BindRequests", true},
      {"kai-operator", "41fce092.run.ai", "deploys every component from the Config CR", false},
      {"kai-podgrouper", "54dff599.kai.scheduler", "creates PodGroups from workload owners", false},
      {"kai-podgroup-controller", "o1x22tjj.kai.scheduler", "keeps PodGroup resource status",
       false},
      {"kai-queue-controller", "ov3xj497.kai.scheduler", "aggregates Queue status and metrics",
       false},
      {"kai-admission", "ojptxr84.kai.scheduler", "pod admission webhooks (GPU sharing)", false},
  };
  return *kComponents;
}

const ComponentInfo* FindComponent(std::string_view binary) {
  for (const ComponentInfo& c : AllComponents()) {
    if (c.binary == binary) return &c;
  }
  return nullptr;
}

std::string VersionLine(const ComponentInfo& info) {
  return std::string(info.binary) + " " + std::string(kVersion) + " (" + std::string(info.summary) +
         ")";
}

int RunPlaceholderMain(std::string_view binary, int argc, char** argv) {
  const ComponentInfo* info = FindComponent(binary);
  if (info == nullptr) {
    std::fprintf(stderr, "unknown component %.*s\n", static_cast<int>(binary.size()),
                 binary.data());
    return 2;
  }
  const std::string line = VersionLine(*info);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("%s\n", line.c_str());
      return 0;
    }
  }
  std::fprintf(stderr,
               "%s\nThis component's controller is not implemented in this release; see "
               "README.md (Status).\n",
               line.c_str());
  return 2;
}

}  // namespace kai::controllers
