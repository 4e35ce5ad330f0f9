#include "scheduler/app/unconfirmed_bind_requests.h"

#include <gtest/gtest.h>

namespace kai::scheduler {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(UnconfirmedBindRequests, DueAfterTheDelayUnlessTheInformerDeliveredThem) {
  UnconfirmedBindRequests u(std::chrono::seconds(60));
  const MonoTime t0{};
  u.Created("ns/a", "uid-a", t0);
  u.Created("ns/b", "uid-b", t0);
  u.Created("ns/c", "uid-c", t0);
  u.Created("ns/x", "", t0);  // no uid (an attempt in doubt): not tracked
  EXPECT_EQ(u.size(), 3u);
  u.Seen("ns/b", "uid-b");
  u.Seen("ns/c", "uid-of-an-earlier-c");  // another object of the name confirms nothing
  EXPECT_TRUE(u.Due(t0 + std::chrono::seconds(59), 10).empty());
  EXPECT_EQ(u.Due(t0 + std::chrono::seconds(60), 10),
            (Pairs{{"ns/a", "uid-a"}, {"ns/c", "uid-c"}}));
  // Read back once per delay, at most `limit` at a time.
  EXPECT_TRUE(u.Due(t0 + std::chrono::seconds(61), 10).empty());
  EXPECT_EQ(u.Due(t0 + std::chrono::seconds(120), 1), (Pairs{{"ns/a", "uid-a"}}));
  u.Forget("ns/a");
  EXPECT_EQ(u.Due(t0 + std::chrono::seconds(180), 10), (Pairs{{"ns/c", "uid-c"}}));
}

}  // namespace
}  // namespace kai::scheduler
