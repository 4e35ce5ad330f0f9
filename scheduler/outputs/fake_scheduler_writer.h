// FakeSchedulerWriter: records every write in order and fails the ones a test asks it to.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/codec.h"
#include "scheduler/outputs/scheduler_writer.h"

namespace kai::scheduler {

class FakeSchedulerWriter : public SchedulerWriter {
 public:
  struct Call {
    std::string verb;  // CreateBindRequest, DeleteBindRequest, DeletePod, PatchPod,
                       // PatchPodStatus, PatchPodGroup, PatchPodGroupStatus, Event
    std::string key;   // namespace/name
    std::string body;  // JSON body (BindRequest, patch); deletes: the uid precondition;
                       // empty for events
    EventRecord event;
  };

  // The next call of `verb` fails with `s` (queued: several failures fail several calls).
  void FailNext(const std::string& verb, Status s) { failures_[verb].push_back(std::move(s)); }
  // Every call of `verb` after the next `successes` ones fails with `s` until FailNone (the API
  // server went away in the middle of a cycle).
  void FailAfter(const std::string& verb, int successes, Status s) {
    sticky_[verb] = Sticky{successes, std::move(s)};
  }
  void FailNone() { sticky_.clear(); }
  // Called with the verb at the start of every call but RecordEvent (e.g. to advance a fake
  // clock by the call's round trip).
  std::function<void(const std::string& verb)> on_call;

  StatusOr<api::BindRequest> CreateBindRequest(const api::BindRequest& br) override {
    std::string key = br.metadata.namespace_ + "/" + br.metadata.name;
    KAI_RETURN_IF_ERROR(Record("CreateBindRequest", key, api::EncodeJson(br)));
    if (bind_requests.count(key) > 0) {
      return AlreadyExistsError("bindrequests.scheduling.run.ai \"" + br.metadata.name +
                                "\" already exists")
          .SetReason("AlreadyExists")
          .SetHttpCode(409);
    }
    api::BindRequest created = br;
    created.metadata.uid = "uid-" + key;
    created.metadata.resource_version = std::to_string(++resource_version_);
    bind_requests[key] = created;
    if (!lost_answers_.empty()) {
      Status s = std::move(lost_answers_.front());
      lost_answers_.pop_front();
      return s;
    }
    return created;
  }
  // A read: not recorded in `calls`, but FailNext/FailAfter("GetBindRequest") apply.
  StatusOr<api::BindRequest> GetBindRequest(const std::string& ns,
                                            const std::string& name) override {
    KAI_RETURN_IF_ERROR(Fail("GetBindRequest"));
    auto it = bind_requests.find(ns + "/" + name);
    if (it == bind_requests.end()) {
      return NotFoundError("bindrequests.scheduling.run.ai \"" + name + "\" not found")
          .SetReason("NotFound")
          .SetHttpCode(404);
    }
    return it->second;
  }
  // The next CreateBindRequest fails with `s` although the object is stored (the answer was
  // lost: a connection reset after the server committed).
  void LoseNextCreateAnswer(Status s) { lost_answers_.push_back(std::move(s)); }
  // Honours the uid precondition as the API server does.
  Status DeleteBindRequest(const std::string& ns, const std::string& name,
                           const std::string& uid) override {
    KAI_RETURN_IF_ERROR(Record("DeleteBindRequest", ns + "/" + name, uid));
    auto it = bind_requests.find(ns + "/" + name);
    if (it != bind_requests.end() && !uid.empty() && it->second.metadata.uid != uid) {
      return AbortedError("Operation cannot be fulfilled on bindrequests.scheduling.run.ai \"" +
                          name + "\": Precondition failed: UID in precondition: " + uid +
                          ", UID in object meta: " + it->second.metadata.uid)
          .SetReason("Conflict")
          .SetHttpCode(409);
    }
    if (it != bind_requests.end()) bind_requests.erase(it);
    return Status::OK();
  }
  Status DeletePod(const std::string& ns, const std::string& name,
                   const std::string& uid) override {
    return Record("DeletePod", ns + "/" + name, uid);  // body: the uid precondition
  }
  Status PatchPod(const std::string& ns, const std::string& name, std::string_view patch) override {
    return Record("PatchPod", ns + "/" + name, std::string(patch));
  }
  Status PatchPodStatus(const std::string& ns, const std::string& name,
                        std::string_view patch) override {
    return Record("PatchPodStatus", ns + "/" + name, std::string(patch));
  }
  StatusOr<std::string> PatchPodGroup(const std::string& ns, const std::string& name,
                                      const std::string& uid, std::string_view patch) override {
    KAI_RETURN_IF_ERROR(Record("PatchPodGroup", ns + "/" + name, std::string(patch)));
    return std::to_string(++resource_version_);
  }
  StatusOr<std::string> PatchPodGroupStatus(const std::string& ns, const std::string& name,
                                            const std::string& uid,
                                            std::string_view patch) override {
    KAI_RETURN_IF_ERROR(Record("PatchPodGroupStatus", ns + "/" + name, std::string(patch)));
    return std::to_string(++resource_version_);
  }
  void RecordEvent(const EventRecord& e) override {
    Call c;
    c.verb = "Event";
    c.key = e.object.namespace_ + "/" + e.object.name;
    c.event = e;
    calls.push_back(std::move(c));
  }

  // Calls of one verb, in order.
  std::vector<Call> CallsOf(const std::string& verb) const {
    std::vector<Call> out;
    for (const auto& c : calls) {
      if (c.verb == verb) out.push_back(c);
    }
    return out;
  }
  std::vector<EventRecord> Events() const {
    std::vector<EventRecord> out;
    for (const auto& c : calls) {
      if (c.verb == "Event") out.push_back(c.event);
    }
    return out;
  }

  std::vector<Call> calls;
  std::map<std::string, api::BindRequest> bind_requests;

 private:
  Status Record(const std::string& verb, const std::string& key, std::string body) {
    KAI_RETURN_IF_ERROR(Fail(verb));
    calls.push_back(Call{verb, key, std::move(body), {}});
    return Status::OK();
  }
  Status Fail(const std::string& verb) {
    if (on_call) on_call(verb);
    auto it = failures_.find(verb);
    if (it != failures_.end() && !it->second.empty()) {
      Status s = std::move(it->second.front());
      it->second.pop_front();
      return s;
    }
    if (auto st = sticky_.find(verb); st != sticky_.end()) {
      if (st->second.successes <= 0) return st->second.status;
      --st->second.successes;
    }
    return Status::OK();
  }

  struct Sticky {
    int successes = 0;
    Status status;
  };
  std::map<std::string, std::deque<Status>> failures_;
  std::map<std::string, Sticky> sticky_;
  std::deque<Status> lost_answers_;
  int64_t resource_version_ = 1000;  // newer than any seeded object
};

}  // namespace kai::scheduler
