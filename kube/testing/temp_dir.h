// TempDir: a fresh directory under /tmp for one test, removed with its contents afterwards.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "kube/base/file.h"

namespace kai::testing {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/kai_test.XXXXXX";
    const char* made = ::mkdtemp(tmpl);
    EXPECT_NE(made, nullptr) << "mkdtemp failed";
    if (made != nullptr) path_ = made;
  }
  ~TempDir() {
    if (!path_.empty()) std::filesystem::remove_all(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `content` to `name` (parent directories created) and returns the file's path.
  std::string Write(const std::string& name, std::string_view content, int mode = 0644) const {
    std::string p = path_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    EXPECT_TRUE(WriteFileAtomic(p, content, mode).ok()) << p;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace kai::testing
