// MirroredVersion: the slot follows the object (assignments write through it), never its copies;
// the table logs every write.
#include "scheduler/api/mirrored_version.h"

#include <gtest/gtest.h>

#include <vector>

namespace kai::scheduler {
namespace {

std::vector<uint32_t> Written(const VersionTable& t, uint64_t since) {
  auto w = t.WrittenSince(since);
  return w ? std::vector<uint32_t>(w->begin(), w->end()) : std::vector<uint32_t>{99};
}

TEST(MirroredVersionTest, TheSlotFollowsTheObjectNotItsCopies) {
  VersionTable table(3);
  MirroredVersion v;
  v.Set(3);
  v.MirrorInto(&table, 2);
  EXPECT_EQ(table[2], 3u);  // the slot starts from the current value
  v.Set(4);
  EXPECT_EQ(table[2], 4u);
  EXPECT_EQ(table.writes(), 2u);

  MirroredVersion copy(v);  // another object: no slot
  EXPECT_EQ(copy.get(), 4u);
  EXPECT_EQ(copy.table(), nullptr);
  copy.Set(5);
  EXPECT_EQ(table[2], 4u);
  EXPECT_EQ(table.writes(), 2u);

  v = copy;  // the mirrored object changed: the slot says so
  EXPECT_EQ(v.get(), 5u);
  EXPECT_EQ(table[2], 5u);
  EXPECT_EQ(v.table(), &table);
  EXPECT_EQ(Written(table, 2), std::vector<uint32_t>{2});

  MirroredVersion other;
  other = v;  // assigning a mirrored value does not hand out the slot
  EXPECT_EQ(other.table(), nullptr);

  v.MirrorInto(nullptr, 0);
  v.Set(6);
  EXPECT_EQ(table[2], 5u);
  EXPECT_EQ(table.writes(), 3u);
}

TEST(MirroredVersionTest, TheLogKeepsTheRecentWritesOnly) {
  VersionTable table(2);
  table.Write(1, 7);
  table.Write(0, 8);
  table.Write(1, 9);
  EXPECT_EQ(Written(table, 0), (std::vector<uint32_t>{1, 0, 1}));
  EXPECT_EQ(Written(table, 2), (std::vector<uint32_t>{1}));
  EXPECT_EQ(Written(table, 3), (std::vector<uint32_t>{}));
  EXPECT_FALSE(table.WrittenSince(4).has_value());  // not a position yet
  for (int i = 0; i < 1000; ++i) table.Write(i % 2, i);
  EXPECT_FALSE(table.WrittenSince(0).has_value());  // trimmed: read the slots instead
  EXPECT_EQ(Written(table, table.writes() - 2), (std::vector<uint32_t>{0, 1}));
  table.Reset(2);
  EXPECT_EQ(table.writes(), 0u);
  EXPECT_EQ(table[1], 0u);
}

}  // namespace
}  // namespace kai::scheduler
