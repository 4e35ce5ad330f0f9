#include "scheduler/outputs/json_patch.h"

#include <gtest/gtest.h>

namespace kai::scheduler {
namespace {

TEST(CreateJsonPatch, EqualDocumentsGiveAnEmptyPatch) {
  auto p = CreateJsonPatch(R"({"a":1,"b":{"c":[1,2]}})", R"({"b":{"c":[1,2]},"a":1})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "[]");
}

TEST(CreateJsonPatch, RemovesThenReplacesThenAdds) {
  auto p = CreateJsonPatch(R"({"metadata":{"annotations":{"x":"1","gone":"2"}},"k":1})",
                           R"({"metadata":{"annotations":{"x":"3","new":"4"}},"k":1})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, R"([{"op":"remove","path":"/metadata/annotations/gone"},)"
                R"({"op":"replace","path":"/metadata/annotations/x","value":"3"},)"
                R"({"op":"add","path":"/metadata/annotations/new","value":"4"}])");
}

TEST(CreateJsonPatch, ArraysAreReplacedWhole) {
  auto p = CreateJsonPatch(R"({"status":{"c":[{"a":1},{"a":2}]}})",
                           R"({"status":{"c":[{"a":1},{"a":3}]}})");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, R"([{"op":"replace","path":"/status/c","value":[{"a":1},{"a":3}]}])");
}

TEST(CreateJsonPatch, MissingParentIsAddedWhole) {
  auto p = CreateJsonPatch(R"({"metadata":{}})", R"({"metadata":{},"status":{"x":[1]}})");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, R"([{"op":"add","path":"/status","value":{"x":[1]}}])");
}

TEST(CreateJsonPatch, EscapesPointerTokens) {
  auto p = CreateJsonPatch(R"({"a":{}})", R"({"a":{"kai.scheduler/x~y":"v"}})");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, R"([{"op":"add","path":"/a/kai.scheduler~1x~0y","value":"v"}])");
  EXPECT_EQ(EscapeJsonPointer("a/b~c"), "a~1b~0c");
}

TEST(CreateJsonPatch, TypeChangeIsAReplace) {
  auto p = CreateJsonPatch(R"({"a":{"b":1}})", R"({"a":"s"})");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, R"([{"op":"replace","path":"/a","value":"s"}])");
}

TEST(CreateJsonPatch, BadJsonIsAnError) {
  EXPECT_FALSE(CreateJsonPatch("{", "{}").ok());
  EXPECT_FALSE(CreateJsonPatch("{}", "[").ok());
}

}  // namespace
}  // namespace kai::scheduler
