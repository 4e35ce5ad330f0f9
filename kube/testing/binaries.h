// KaiBinary: the path of one of the project's executables for a test that starts it as a process.
// The executables of the test's own build tree come first (tests land in <tree>/tests, binaries
// in <tree>/bin), so `ctest --test-dir build-tsan` runs the sanitized binaries; then build/bin,
// the release tree that ctest in build/ uses, relative to the repository root.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace kai::testing {

inline std::string KaiBinary(const std::string& name) {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  const std::string exe(self, n > 0 ? static_cast<size_t>(n) : 0);
  if (const size_t slash = exe.rfind('/'); slash != std::string::npos) {
    std::string own = exe.substr(0, slash) + "/../bin/" + name;
    struct stat st;
    if (::stat(own.c_str(), &st) == 0 && (st.st_mode & S_IXUSR)) return own;
  }
  return "build/bin/" + name;
}

}  // namespace kai::testing
