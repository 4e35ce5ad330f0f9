// GatedSchedulerWriter: a thread-safe SchedulerWriter in front of a FakeSchedulerWriter whose
// BindRequest creations can be answered out of order and refused per pod: the API server as the
// concurrent creations of deferred binds (OutputSink::SetBindRequestWorkers) see it. Tests only.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "scheduler/outputs/fake_scheduler_writer.h"

namespace kai::scheduler {

class GatedSchedulerWriter : public SchedulerWriter {
 public:
  explicit GatedSchedulerWriter(FakeSchedulerWriter* inner) : inner_(inner) {}

  // The next `total` creations are held until `hold` of them (or all that remain of `total`)
  // wait, then answered in descending name order (deterministic whatever order the workers
  // arrive in). hold 0: answered as they come.
  void Gate(int hold, int total) {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = hold;
    remaining_ = total;
  }
  // Creations of these pods (namespace/name) are refused (429) or get no answer (nothing
  // stored, http code 0: in doubt), whatever their order.
  void Refuse(std::set<std::string> keys) {
    std::lock_guard<std::mutex> lock(mu_);
    refused_ = std::move(keys);
  }
  void Unanswered(std::set<std::string> keys) {
    std::lock_guard<std::mutex> lock(mu_);
    unanswered_ = std::move(keys);
  }
  // namespace/name of every creation in the order it reached the fake (refused ones included).
  std::vector<std::string> answer_order() {
    std::lock_guard<std::mutex> lock(mu_);
    return answer_order_;
  }
  void ClearAnswerOrder() {
    std::lock_guard<std::mutex> lock(mu_);
    answer_order_.clear();
  }

  StatusOr<api::BindRequest> CreateBindRequest(const api::BindRequest& br) override {
    const std::string key = br.metadata.namespace_ + "/" + br.metadata.name;
    std::unique_lock<std::mutex> lock(mu_);
    if (hold_ > 0 && remaining_ > 0) {
      waiting_.push_back(key);
      --remaining_;
      if (static_cast<int>(waiting_.size()) == hold_ || remaining_ == 0) {
        std::sort(waiting_.begin(), waiting_.end(), std::greater<>());
        release_.insert(release_.end(), waiting_.begin(), waiting_.end());
        waiting_.clear();
        cv_.notify_all();
      }
      cv_.wait(lock, [&] { return !release_.empty() && release_.front() == key; });
      release_.erase(release_.begin());
      cv_.notify_all();
    }
    answer_order_.push_back(key);
    if (refused_.count(key) > 0) {
      return UnavailableError("too many requests").SetHttpCode(429).SetReason("TooManyRequests");
    }
    if (unanswered_.count(key) > 0) return UnavailableError("connection reset by peer");
    return inner_->CreateBindRequest(br);
  }
  StatusOr<api::BindRequest> GetBindRequest(const std::string& ns,
                                            const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_->GetBindRequest(ns, name);
  }
  Status DeleteBindRequest(const std::string& ns, const std::string& name,
                           const std::string& uid) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_->DeleteBindRequest(ns, name, uid);
  }
  Status DeletePod(const std::string& ns, const std::string& name,
                   const std::string& uid) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_->DeletePod(ns, name, uid);
  }
  Status PatchPod(const std::string& ns, const std::string& name, std::string_view patch) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_->PatchPod(ns, name, patch);
  }
  Status PatchPodStatus(const std::string& ns, const std::string& name,
                        std::string_view patch) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_->PatchPodStatus(ns, name, patch);
  }
  StatusOr<std::string> PatchPodGroup(const std::string& ns, const std::string& name,
                                      const std::string& uid, std::string_view patch) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_->PatchPodGroup(ns, name, uid, patch);
  }
  StatusOr<std::string> PatchPodGroupStatus(const std::string& ns, const std::string& name,
                                            const std::string& uid,
                                            std::string_view patch) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_->PatchPodGroupStatus(ns, name, uid, patch);
  }
  void RecordEvent(const EventRecord& event) override {
    std::lock_guard<std::mutex> lock(mu_);
    inner_->RecordEvent(event);
  }

 private:
  FakeSchedulerWriter* inner_;
  std::mutex mu_;
  std::condition_variable cv_;
  int hold_ = 0;
  int remaining_ = 0;
  std::vector<std::string> waiting_;  // held creations (namespace/name)
  std::vector<std::string> release_;  // the order held creations are answered in
  std::set<std::string> refused_;
  std::set<std::string> unanswered_;
  std::vector<std::string> answer_order_;
};

}  // namespace kai::scheduler
