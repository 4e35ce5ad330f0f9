#include "kube/rest/errors.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "kube/base/fake_clock.h"
#include "kube/rest/rate_limiter.h"
#include "kube/rest/resource.h"
#include "kube/rest/retry.h"

namespace kai::kube {
namespace {

TEST(ErrorsTest, DecodesMetav1StatusBodies) {
  Status exists = StatusFromResponse(
      409,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"p\" already exists","reason":"AlreadyExists","details":{"name":"p","kind":"pods"},"code":409})",
      "");
  EXPECT_TRUE(IsAlreadyExists(exists));
  EXPECT_FALSE(IsConflict(exists));  // 409 has two reasons
  EXPECT_EQ(exists.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(exists.message(), "pods \"p\" already exists");

  Status conflict = StatusFromResponse(
      409, R"({"kind":"Status","status":"Failure","reason":"Conflict","message":"m","code":409})",
      "");
  EXPECT_TRUE(IsConflict(conflict));
  EXPECT_FALSE(IsAlreadyExists(conflict));
  EXPECT_EQ(conflict.code(), StatusCode::kAborted);

  Status expired = StatusFromResponse(
      410,
      R"({"kind":"Status","status":"Failure","reason":"Expired","message":"too old","code":410})",
      "");
  EXPECT_TRUE(IsResourceExpired(expired));
  EXPECT_FALSE(IsGone(expired));
  Status gone = StatusFromResponse(410, R"({"kind":"Status","reason":"Gone","code":410})", "");
  EXPECT_TRUE(IsResourceExpired(gone));
  EXPECT_TRUE(IsGone(gone));

  Status invalid = StatusFromResponse(
      422,
      R"({"kind":"Status","reason":"Invalid","message":"bad","code":422,"details":{"causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.queue"}]}})",
      "");
  EXPECT_TRUE(IsInvalid(invalid));
  ASSERT_EQ(invalid.causes().size(), 1u);
  EXPECT_EQ(invalid.causes()[0],
            (StatusCause{"FieldValueRequired", "spec.queue", "Required value"}));

  Status throttled = StatusFromResponse(
      429,
      R"({"kind":"Status","reason":"TooManyRequests","message":"slow down","code":429,"details":{"retryAfterSeconds":3}})",
      "");
  EXPECT_TRUE(IsTooManyRequests(throttled));
  EXPECT_EQ(throttled.retry_after_seconds(), 3);
  // The header wins over the body.
  EXPECT_EQ(StatusFromResponse(429, "", " 7 ").retry_after_seconds(), 7);
}

TEST(ErrorsTest, BodiesThatAreNotStatus) {
  Status s = StatusFromResponse(503, "<html>upstream down</html>", "", "GET", "pods");
  EXPECT_TRUE(IsServiceUnavailable(s));
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.http_code(), 503);
  EXPECT_NE(s.message().find("upstream down"), std::string::npos);
  EXPECT_TRUE(IsNotFound(StatusFromResponse(404, "", "")));
  EXPECT_TRUE(IsForbidden(StatusFromResponse(403, "{}", "")));
  EXPECT_TRUE(IsUnauthorized(StatusFromResponse(401, "Unauthorized", "")));
  EXPECT_TRUE(IsTimeout(StatusFromResponse(504, "", "")));
  EXPECT_TRUE(IsInternalError(StatusFromResponse(500, "", "")));
  EXPECT_TRUE(IsMethodNotAllowed(StatusFromResponse(405, "", "")));
  EXPECT_EQ(StatusFromResponse(502, "", "").code(), StatusCode::kUnavailable);
}

TEST(ErrorsTest, StatusJsonRoundTrip) {
  Status s = NewInvalid("Pod", "p", {{"FieldValueInvalid", "spec.x", "bad"}});
  Status back = StatusFromStatusJson(StatusToJson(s));
  EXPECT_EQ(back, s);
  Status t = NewTooManyRequests("later", 5);
  EXPECT_EQ(StatusFromStatusJson(StatusToJson(t)).retry_after_seconds(), 5);
  EXPECT_EQ(StatusFromStatusJson("{not json").code(), StatusCode::kInternal);
  EXPECT_EQ(StatusFromStatusJson(R"({"kind":"Pod"})").code(), StatusCode::kInternal);
  EXPECT_TRUE(IsTransportError(UnavailableError("connection refused")));
  EXPECT_FALSE(IsTransportError(NewServiceUnavailable("x")));
}

// The bytes an API server sends: details carry the subject, empty optional fields are left out.
TEST(ErrorsTest, StatusJsonNamesTheSubjectAndLeavesEmptyFieldsOut) {
  EXPECT_EQ(
      StatusToJson(NewNotFound("podgroups.scheduling.run.ai", "pg"),
                   {.name = "pg", .group = "scheduling.run.ai", .kind = "podgroups"}),
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"("message":"podgroups.scheduling.run.ai \"pg\" not found","reason":"NotFound",)"
      R"("details":{"name":"pg","group":"scheduling.run.ai","kind":"podgroups"},"code":404})");
  Status no_field = NewBadRequest("bad");
  no_field.AddCause({"FieldValueInvalid", "", "whole body"});
  EXPECT_EQ(StatusToJson(no_field),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"bad","reason":"BadRequest","details":{"causes":[)"
            R"({"reason":"FieldValueInvalid","message":"whole body"}]},"code":400})");
  EXPECT_EQ(StatusToJson(Status::OK()),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":200})");
}

// What the server builds, the client decodes to the same reason, code and message.
TEST(ErrorsTest, ServerErrorsDecodeAsTheyWereBuilt) {
  const Status built[] = {
      NewNotFound("pods", "p"),
      NewAlreadyExists("pods", "p"),
      NewConflict("pods", "p", "why"),
      NewExpired("too old"),
      NewGone("gone"),
      NewBadRequest("bad"),
      NewForbidden("no"),
      NewUnauthorized("who"),
      NewInternalError("oops"),
      NewServiceUnavailable("down"),
      NewTimeout("slow"),
      NewMethodNotAllowed("verb"),
      NewNotAcceptable("accept"),
      NewRequestEntityTooLarge("big"),
      NewUnsupportedMediaType("type"),
  };
  for (const Status& s : built) {
    SCOPED_TRACE(s.ToString());
    Status back = StatusFromResponse(s.http_code(), StatusToJson(s), "");
    EXPECT_EQ(back.reason(), s.reason());
    EXPECT_EQ(back.code(), s.code());
    EXPECT_EQ(back.http_code(), s.http_code());
    EXPECT_EQ(back.message(), s.message());
  }
  EXPECT_EQ(NewConflict("pods", "p", "why").message(),
            "Operation cannot be fulfilled on pods \"p\": why");
  EXPECT_EQ(NewUnsupportedMediaType("x").http_code(), 415);
  EXPECT_EQ(NewUnsupportedMediaType("x").reason(), "UnsupportedMediaType");
  EXPECT_TRUE(IsMethodNotAllowed(NewMethodNotAllowed("x")));
}

TEST(ResourceTest, Paths) {
  EXPECT_EQ(ResourcePath({"", "v1", "pods"}, "ns", "p", "status"),
            "/api/v1/namespaces/ns/pods/p/status");
  EXPECT_EQ(ResourcePath({"", "v1", "pods"}, ""), "/api/v1/pods");
  EXPECT_EQ(ResourcePath({"scheduling.run.ai", "v2", "queues"}, "", "q"),
            "/apis/scheduling.run.ai/v2/queues/q");
  EXPECT_EQ(ResourcePath({"", "v1", "namespaces"}, "kai", "kai"), "/api/v1/namespaces/kai");
  EXPECT_EQ(ResourcePath({"", "v1", "configmaps"}, "a b", "x/y"),
            "/api/v1/namespaces/a%20b/configmaps/x%2Fy");
  EXPECT_EQ((GroupVersionResource{"scheduling.run.ai", "v2alpha2", "podgroups"}.GroupResource()),
            "podgroups.scheduling.run.ai");
}

// Advances `clock` whenever some thread waits on it, until `done`.
void DriveClock(FakeClock& clock, const std::atomic<bool>& done, Duration step) {
  while (!done.load()) {
    if (clock.NumWaiters() > 0) clock.Advance(step);
    std::this_thread::yield();
  }
}

TEST(RetryTest, RetryOnConflictRetriesOnlyConflicts) {
  FakeClock clock;
  SeededRandom random(1);
  std::atomic<bool> done{false};
  int calls = 0;
  std::vector<MonoTime> at;
  Status result;
  std::thread t([&] {
    result = RetryOnConflict(
        kDefaultRetry,
        [&] {
          ++calls;
          at.push_back(clock.NowMonotonic());
          return calls < 3 ? NewConflict("pods", "p", "stale") : Status::OK();
        },
        &clock, &random);
    done = true;
  });
  DriveClock(clock, done, std::chrono::milliseconds(1));
  t.join();
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(calls, 3);
  // Each retry waited at least DefaultRetry's 10 ms.
  ASSERT_EQ(at.size(), 3u);
  EXPECT_GE(at[1] - at[0], std::chrono::milliseconds(10));
  EXPECT_GE(at[2] - at[1], std::chrono::milliseconds(10));

  calls = 0;
  Status other = RetryOnConflict(
      kDefaultRetry,
      [&] {
        ++calls;
        return NewNotFound("pods", "p");
      },
      &clock, &random);
  EXPECT_TRUE(IsNotFound(other));
  EXPECT_EQ(calls, 1);
}

TEST(RetryTest, GivesUpAfterSteps) {
  FakeClock clock;
  std::atomic<bool> done{false};
  int calls = 0;
  Status result;
  std::thread t([&] {
    result = RetryOnConflict(
        kDefaultRetry,
        [&] {
          ++calls;
          return NewConflict("pods", "p", "stale");
        },
        &clock);
    done = true;
  });
  DriveClock(clock, done, std::chrono::milliseconds(5));
  t.join();
  EXPECT_TRUE(IsConflict(result));
  EXPECT_EQ(calls, 5);
}

TEST(TokenBucketTest, BurstThenRate) {
  FakeClock clock;
  TokenBucket bucket(5, 10, &clock);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(bucket.TryAccept()) << i;
  EXPECT_FALSE(bucket.TryAccept());
  EXPECT_EQ(bucket.Delay(), std::chrono::milliseconds(200));
  clock.Advance(std::chrono::milliseconds(199));
  EXPECT_FALSE(bucket.TryAccept());
  clock.Advance(std::chrono::milliseconds(1));
  EXPECT_TRUE(bucket.TryAccept());
  // Accept() blocks on the clock until a token is due.
  std::atomic<bool> done{false};
  const MonoTime start = clock.NowMonotonic();
  MonoTime accepted;
  std::thread t([&] {
    EXPECT_TRUE(bucket.Accept());
    accepted = clock.NowMonotonic();
    done = true;
  });
  DriveClock(clock, done, std::chrono::milliseconds(10));
  t.join();
  EXPECT_GE(accepted - start, std::chrono::milliseconds(200));
  // A new rate applies at once; qps <= 0 disables limiting.
  bucket.SetRate(0, 1);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(bucket.TryAccept());
  bucket.SetRate(1, 1);
  bucket.Stop();
  EXPECT_FALSE(bucket.Accept());
}

// A rate so small that a token is due in 1e300 s: the delay is capped (an hour), not a cast of a
// double beyond int64 (undefined; the sanitizer build fails on it).
TEST(TokenBucketTest, ATinyRateWaitsAtMostAnHourAtATime) {
  FakeClock clock;
  TokenBucket bucket(1e-300, 1, &clock);
  EXPECT_TRUE(bucket.TryAccept());
  EXPECT_FALSE(bucket.TryAccept());
  EXPECT_EQ(bucket.Delay(), std::chrono::hours(1));
}

}  // namespace
}  // namespace kai::kube
