#include "kube/base/file.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace kai {
namespace {

TEST(FileTest, WriteThenRead) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/kai_file_test.txt";
  ASSERT_TRUE(WriteFileAtomic(path, "hello\n").ok());
  auto got = ReadFile(path);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "hello\n");
}

TEST(FileTest, MissingFileIsNotFound) {
  auto got = ReadFile("/nonexistent/kai/file");
  EXPECT_TRUE(IsNotFound(got.status())) << got.status();
}

}  // namespace
}  // namespace kai
