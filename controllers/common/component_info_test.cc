#include "controllers/common/component_info.h"

#include <gtest/gtest.h>

#include <set>

namespace kai::controllers {
namespace {

TEST(ComponentInfoTest, EveryComponentHasAUniqueLeaseId) {
  std::set<std::string_view> ids, names;
  for (const ComponentInfo& c : AllComponents()) {
    EXPECT_TRUE(ids.insert(c.leader_election_id).second) << c.binary;
    EXPECT_TRUE(names.insert(c.binary).second) << c.binary;
  }
  EXPECT_EQ(names.size(), 7u);
}

TEST(ComponentInfoTest, LookupAndVersion) {
  const ComponentInfo* binder = FindComponent("kai-binder");
  ASSERT_NE(binder, nullptr);
  EXPECT_EQ(binder->leader_election_id, "2ad35f9c.kai.scheduler");
  EXPECT_EQ(VersionLine(*binder), "kai-binder 0.1.0 (binds pods from BindRequests)");
  EXPECT_EQ(FindComponent("kai-nothing"), nullptr);
}

TEST(ComponentInfoTest, PlaceholderMainNeverPretendsToWork) {
  char arg0[] = "kai-admission";
  char* argv[] = {arg0, nullptr};
  EXPECT_EQ(RunPlaceholderMain("kai-admission", 1, argv), 2);
  char version[] = "--version";
  char* argv2[] = {arg0, version, nullptr};
  EXPECT_EQ(RunPlaceholderMain("kai-admission", 2, argv2), 0);
}

}  // namespace
}  // namespace kai::controllers
