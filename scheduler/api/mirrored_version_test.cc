// MirroredVersion: the slot follows the object (assignments write through it), never its copies.
#include "scheduler/api/mirrored_version.h"

#include <gtest/gtest.h>

namespace kai::scheduler {
namespace {

TEST(MirroredVersionTest, TheSlotFollowsTheObjectNotItsCopies) {
  uint64_t slot = 99;
  MirroredVersion v;
  v.Set(3);
  v.MirrorInto(&slot);
  EXPECT_EQ(slot, 3u);  // the slot starts from the current value
  v.Set(4);
  EXPECT_EQ(slot, 4u);

  MirroredVersion copy(v);  // another object: no slot
  EXPECT_EQ(copy.get(), 4u);
  EXPECT_EQ(copy.mirror(), nullptr);
  copy.Set(5);
  EXPECT_EQ(slot, 4u);

  v = copy;  // the mirrored object changed: the slot says so
  EXPECT_EQ(v.get(), 5u);
  EXPECT_EQ(slot, 5u);
  EXPECT_EQ(v.mirror(), &slot);

  MirroredVersion other;
  other = v;  // assigning a mirrored value does not hand out the slot
  EXPECT_EQ(other.mirror(), nullptr);

  v.MirrorInto(nullptr);
  v.Set(6);
  EXPECT_EQ(slot, 5u);
}

}  // namespace
}  // namespace kai::scheduler
