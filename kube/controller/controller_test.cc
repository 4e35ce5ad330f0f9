#include "kube/controller/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <stdexcept>
#include <thread>

#include "kube/base/fake_clock.h"
#include "kube/metrics/registry.h"
#include "kube/testing/eventually.h"

namespace kai::controller {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;

using ::kai::testing::Eventually;

// A reconciler whose answers the test scripts per call, recording every call.
class ScriptedReconciler {
 public:
  void Push(Result r) {
    std::lock_guard<std::mutex> l(mu_);
    script_.push_back(std::move(r));
  }
  Result operator()(const Request& req) {
    std::lock_guard<std::mutex> l(mu_);
    calls_.push_back(req.Key());
    if (script_.empty()) return Result::Done();
    Result r = script_.front();
    script_.erase(script_.begin());
    return r;
  }
  int calls() {
    std::lock_guard<std::mutex> l(mu_);
    return static_cast<int>(calls_.size());
  }
  std::vector<std::string> keys() {
    std::lock_guard<std::mutex> l(mu_);
    return calls_;
  }

 private:
  std::mutex mu_;
  std::vector<Result> script_;
  std::vector<std::string> calls_;
};

double Value(metrics::Registry& r, const std::string& family,
             const std::vector<std::string>& labels) {
  return r.RegisterCounter(family, "", {"controller", "result"}).WithLabelValues(labels).Value();
}

class ControllerTest : public ::testing::Test {
 protected:
  std::unique_ptr<Controller> Make(int workers = 1) {
    return std::make_unique<Controller>(ControllerOptions{.name = "test",
                                                          .max_concurrent_reconciles = workers,
                                                          .clock = &clock_,
                                                          .registry = &registry_},
                                        [this](const Request& r) { return reconciler_(r); });
  }
  // The key has been handled completely (reconciled, result applied, Done called).
  bool Idle(Controller& c) {
    return c.queue().Len() == 0 &&
           registry_.RegisterGauge("controller_runtime_active_workers", "", {"controller"})
                   .WithLabelValues({"test"})
                   .Value() == 0;
  }
  std::string Metrics() { return registry_.Expose(); }

  FakeClock clock_;
  metrics::Registry registry_;
  ScriptedReconciler reconciler_;
};

TEST_F(ControllerTest, SuccessIsCountedAndForgetsFailures) {
  auto c = Make();
  ASSERT_TRUE(c->Start().ok());
  c->Enqueue({"ns", "a"});
  ASSERT_TRUE(Eventually([&] { return reconciler_.calls() == 1 && Idle(*c); }));
  EXPECT_EQ(reconciler_.keys()[0], "ns/a");
  const std::string m = Metrics();
  EXPECT_THAT(m, HasSubstr("controller_runtime_reconcile_total{controller=\"test\",result="
                           "\"success\"} 1\n"));
  EXPECT_THAT(m, HasSubstr("controller_runtime_reconcile_total{controller=\"test\",result="
                           "\"error\"} 0\n"));
  EXPECT_THAT(m, HasSubstr("controller_runtime_max_concurrent_reconciles{controller=\"test\"} 1"));
  EXPECT_THAT(m, HasSubstr("controller_runtime_reconcile_time_seconds_count{controller=\"test\"}"
                           " 1\n"));
  EXPECT_THAT(m, HasSubstr("workqueue_adds_total{name=\"test\"} 1\n"));
}

TEST_F(ControllerTest, ErrorIsRequeuedWithExponentialBackoffUntilSuccess) {
  auto c = Make();
  reconciler_.Push(UnavailableError("api down"));  // implicit Status -> Error
  reconciler_.Push(Result::Error(UnavailableError("still down")));
  ASSERT_TRUE(c->Start().ok());
  c->Enqueue({"", "cluster-scoped"});
  ASSERT_TRUE(Eventually([&] { return c->queue().NumWaiting() == 1; }));
  EXPECT_EQ(c->queue().NumRequeues("cluster-scoped"), 1);
  clock_.Advance(milliseconds(5));  // first backoff: 5 ms
  ASSERT_TRUE(Eventually([&] { return reconciler_.calls() == 2 && c->queue().NumWaiting() == 1; }));
  EXPECT_EQ(c->queue().NumRequeues("cluster-scoped"), 2);
  clock_.Advance(milliseconds(9));  // second backoff: 10 ms
  EXPECT_EQ(reconciler_.calls(), 2);
  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(Eventually([&] { return reconciler_.calls() == 3 && Idle(*c); }));
  EXPECT_EQ(c->queue().NumRequeues("cluster-scoped"), 0) << "success forgets the failures";
  EXPECT_EQ(c->queue().NumWaiting(), 0);
  EXPECT_EQ(Value(registry_, "controller_runtime_reconcile_total", {"test", "error"}), 2);
  EXPECT_EQ(Value(registry_, "controller_runtime_reconcile_total", {"test", "success"}), 1);
  EXPECT_THAT(Metrics(), HasSubstr("controller_runtime_reconcile_errors_total{controller=\"test\"}"
                                   " 2\n"));
  EXPECT_THAT(Metrics(), HasSubstr("workqueue_retries_total{name=\"test\"} 2\n"));
}

TEST_F(ControllerTest, TerminalErrorIsNotRequeued) {
  auto c = Make();
  reconciler_.Push(Result::Terminal(InvalidArgumentError("spec.queue: unknown queue")));
  ASSERT_TRUE(c->Start().ok());
  c->Enqueue({"ns", "bad"});
  ASSERT_TRUE(Eventually([&] { return reconciler_.calls() == 1 && Idle(*c); }));
  clock_.Advance(seconds(2000));
  EXPECT_EQ(c->queue().NumWaiting(), 0);
  EXPECT_EQ(c->queue().Len(), 0);
  EXPECT_EQ(reconciler_.calls(), 1);
  const std::string m = Metrics();
  EXPECT_THAT(m, HasSubstr("controller_runtime_terminal_reconcile_errors_total{controller=\"test\"}"
                           " 1\n"));
  EXPECT_THAT(m, HasSubstr("controller_runtime_reconcile_errors_total{controller=\"test\"} 1\n"));
  EXPECT_THAT(m, HasSubstr("result=\"error\"} 1\n"));
}

TEST_F(ControllerTest, RequeueAfterForgetsAndWaitsExactlyTheDelay) {
  auto c = Make();
  reconciler_.Push(Result::Error(UnavailableError("x")));
  reconciler_.Push(Result::RequeueAfter(seconds(30)));
  ASSERT_TRUE(c->Start().ok());
  c->Enqueue({"ns", "a"});
  ASSERT_TRUE(Eventually([&] { return c->queue().NumWaiting() == 1; }));
  clock_.Advance(milliseconds(5));
  ASSERT_TRUE(Eventually([&] { return reconciler_.calls() == 2 && c->queue().NumWaiting() == 1; }));
  EXPECT_EQ(c->queue().NumRequeues("ns/a"), 0) << "RequeueAfter forgets the failure history";
  clock_.Advance(seconds(29));
  EXPECT_EQ(c->queue().Len(), 0);
  EXPECT_EQ(reconciler_.calls(), 2);
  clock_.Advance(seconds(1));
  ASSERT_TRUE(Eventually([&] { return reconciler_.calls() == 3 && Idle(*c); }));
  EXPECT_EQ(Value(registry_, "controller_runtime_reconcile_total", {"test", "requeue_after"}), 1);
}

TEST_F(ControllerTest, RequeueUsesTheRateLimiter) {
  auto c = Make();
  reconciler_.Push(Result::Requeue());
  ASSERT_TRUE(c->Start().ok());
  c->Enqueue({"ns", "a"});
  ASSERT_TRUE(Eventually([&] { return c->queue().NumWaiting() == 1; }));
  EXPECT_EQ(c->queue().NumRequeues("ns/a"), 1);
  clock_.Advance(milliseconds(5));
  ASSERT_TRUE(Eventually([&] { return reconciler_.calls() == 2 && Idle(*c); }));
  EXPECT_EQ(Value(registry_, "controller_runtime_reconcile_total", {"test", "requeue"}), 1);
}

TEST_F(ControllerTest, NonPositiveRequeueAfterIsDone) {
  EXPECT_EQ(Result::RequeueAfter(Duration::zero()).kind(), Result::Kind::kDone);
  EXPECT_EQ(Result(Status::OK()).kind(), Result::Kind::kDone);
  EXPECT_EQ(Result(UnknownError("x")).kind(), Result::Kind::kError);
  EXPECT_FALSE(Result::Error(Status::OK()).error().ok());
}

TEST_F(ControllerTest, ExceptionIsCaughtCountedAndRetried) {
  std::atomic<int> calls{0};
  Controller c({.name = "test", .clock = &clock_, .registry = &registry_},
               [&](const Request& r) -> Result {
                 if (++calls == 1) throw std::runtime_error("nil pointer");
                 return Result::Done();
               });
  ASSERT_TRUE(c.Start().ok());
  c.Enqueue({"ns", "a"});
  ASSERT_TRUE(Eventually([&] { return c.queue().NumWaiting() == 1; }));
  EXPECT_THAT(Metrics(), HasSubstr("controller_runtime_reconcile_panics_total{controller=\"test\"}"
                                   " 1\n"));
  clock_.Advance(milliseconds(5));
  ASSERT_TRUE(Eventually([&] { return calls.load() == 2; }));
  ASSERT_TRUE(Eventually([&] { return Idle(c); }));
  EXPECT_EQ(Value(registry_, "controller_runtime_reconcile_total", {"test", "success"}), 1);
}

TEST_F(ControllerTest, WorkersRunInParallelButNeverOnTheSameKey) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::map<std::string, int> in_flight;
  std::atomic<int> concurrent{0}, max_concurrent{0}, same_key{0}, calls{0};
  Controller c(
      {.name = "test", .max_concurrent_reconciles = 4, .clock = &clock_, .registry = &registry_},
      [&](const Request& r) -> Result {
        {
          std::unique_lock<std::mutex> l(mu);
          if (++in_flight[r.Key()] > 1) ++same_key;
          const int now = ++concurrent;
          max_concurrent = std::max(max_concurrent.load(), now);
          cv.wait(l, [&] { return release; });
          --in_flight[r.Key()];
          --concurrent;
        }
        ++calls;
        return Result::Done();
      });
  ASSERT_TRUE(c.Start().ok());
  for (int i = 0; i < 4; ++i) c.Enqueue({"ns", "k" + std::to_string(i)});
  ASSERT_TRUE(Eventually([&] { return concurrent.load() == 4; }));
  EXPECT_THAT(Metrics(), HasSubstr("controller_runtime_active_workers{controller=\"test\"} 4\n"));
  // Re-adding keys that are being reconciled queues them for later, never a 5th parallel call.
  for (int i = 0; i < 4; ++i) c.Enqueue({"ns", "k" + std::to_string(i)});
  EXPECT_EQ(c.queue().Len(), 0);
  {
    std::lock_guard<std::mutex> l(mu);
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(Eventually([&] { return calls.load() == 8 && Idle(c); }));
  EXPECT_EQ(same_key.load(), 0);
  EXPECT_EQ(max_concurrent.load(), 4);
}

TEST_F(ControllerTest, EnqueuedBeforeStartIsReconciledAfterStart) {
  auto c = Make();
  c->Enqueue({"ns", "early"});
  EXPECT_EQ(reconciler_.calls(), 0);
  ASSERT_TRUE(c->Start().ok());
  ASSERT_TRUE(Eventually([&] { return reconciler_.calls() == 1; }));
  EXPECT_FALSE(c->Start().ok()) << "a second Start is refused";
}

TEST_F(ControllerTest, StopWaitsForInFlightAndDropsQueuedWork) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false, entered = false;
  std::atomic<int> calls{0};
  Controller c({.name = "test", .clock = &clock_, .registry = &registry_},
               [&](const Request& r) -> Result {
                 ++calls;
                 std::unique_lock<std::mutex> l(mu);
                 entered = true;
                 cv.notify_all();
                 cv.wait(l, [&] { return release; });
                 return Result::Done();
               });
  ASSERT_TRUE(c.Start().ok());
  c.Enqueue({"ns", "in-flight"});
  {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return entered; });
  }
  c.Enqueue({"ns", "queued"});
  std::atomic<int> stop_result{-1};
  std::thread stopper([&] { stop_result = c.Stop(clock_.NowMonotonic() + seconds(30)) ? 1 : 0; });
  ASSERT_TRUE(Eventually([&] { return c.stopping(); }));
  EXPECT_EQ(stop_result.load(), -1) << "Stop returned while a reconcile was running";
  {
    std::lock_guard<std::mutex> l(mu);
    release = true;
  }
  cv.notify_all();
  stopper.join();
  EXPECT_EQ(stop_result.load(), 1);
  EXPECT_EQ(calls.load(), 1) << "the queued key must not be reconciled after Stop";
  c.Enqueue({"ns", "late"});  // ignored
  EXPECT_EQ(c.queue().Len(), 0);
}

TEST_F(ControllerTest, StopGivesUpAtTheDeadline) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<bool> entered{false};
  Controller c({.name = "test", .clock = &clock_}, [&](const Request& r) -> Result {
    entered = true;
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return release; });
    return Result::Done();
  });
  ASSERT_TRUE(c.Start().ok());
  c.Enqueue({"ns", "stuck"});
  ASSERT_TRUE(Eventually([&] { return entered.load(); }));
  std::atomic<int> stop_result{-1};
  std::thread stopper([&] { stop_result = c.Stop(clock_.NowMonotonic() + seconds(30)) ? 1 : 0; });
  ASSERT_TRUE(Eventually([&] { return clock_.NumWaiters() > 0; }));
  clock_.Advance(seconds(30));
  stopper.join();
  EXPECT_EQ(stop_result.load(), 0);
  {
    std::lock_guard<std::mutex> l(mu);
    release = true;
  }
  cv.notify_all();
  // The destructor joins the worker once its reconcile returns.
}

TEST_F(ControllerTest, WaitsForCachesToSyncBeforeStartingWorkers) {
  std::atomic<bool> synced{false};
  std::atomic<int> calls{0};
  Controller c({.name = "test", .clock = &clock_, .wait_for_sync = {[&] { return synced.load(); }}},
               [&](const Request&) -> Result {
                 ++calls;
                 return Result::Done();
               });
  c.Enqueue({"ns", "a"});
  std::atomic<int> started{-1};
  std::thread starter([&] { started = c.Start().ok() ? 1 : 0; });
  ASSERT_TRUE(Eventually([&] { return clock_.NumWaiters() > 0; }));
  clock_.Advance(seconds(1));
  EXPECT_EQ(calls.load(), 0);
  synced = true;
  clock_.Advance(milliseconds(100));
  starter.join();
  EXPECT_EQ(started.load(), 1);
  ASSERT_TRUE(Eventually([&] { return calls.load() == 1; }));
}

TEST_F(ControllerTest, CacheSyncTimeout) {
  Controller c({.name = "test",
                .clock = &clock_,
                .wait_for_sync = {[] { return false; }},
                .cache_sync_timeout = seconds(120)},
               [](const Request&) { return Result::Done(); });
  Status status;
  std::thread starter([&] { status = c.Start(); });
  ASSERT_TRUE(Eventually([&] { return clock_.NumWaiters() > 0; }));
  clock_.Advance(seconds(119));
  clock_.Advance(seconds(1));
  starter.join();
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(status.message()), HasSubstr("timed out waiting for caches to sync"));
}

TEST_F(ControllerTest, StopDuringCacheSyncCancelsStart) {
  Controller c({.name = "test", .clock = &clock_, .wait_for_sync = {[] { return false; }}},
               [](const Request&) { return Result::Done(); });
  Status status;
  std::thread starter([&] { status = c.Start(); });
  ASSERT_TRUE(Eventually([&] { return clock_.NumWaiters() > 0; }));
  EXPECT_TRUE(c.Stop(clock_.NowMonotonic()));
  starter.join();
  EXPECT_EQ(status.code(), StatusCode::kCancelled);
}

TEST(RequestTest, KeyRoundTrip) {
  EXPECT_EQ((Request{"ns", "a"}).Key(), "ns/a");
  EXPECT_EQ((Request{"", "node-1"}).Key(), "node-1");
  EXPECT_EQ(Request::FromKey("ns/a"), (Request{"ns", "a"}));
  EXPECT_EQ(Request::FromKey("node-1"), (Request{"", "node-1"}));
}

}  // namespace
}  // namespace kai::controller
