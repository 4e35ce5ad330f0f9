#include "controllers/common/list_watch.h"

#include <glog/logging.h>

#include "kube/rest/errors.h"

namespace kai::controllers {

ListWatch::ListWatch(kube::Client* client, ListWatchOptions options, ListWatchHandlers handlers)
    : client_(client),
      options_(std::move(options)),
      handlers_(std::move(handlers)),
      clock_(options_.clock != nullptr ? options_.clock : RealClock::Get()) {}

ListWatch::~ListWatch() { Stop(); }

void ListWatch::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stopped_ = false;
  thread_ = std::thread([this] { Run(); });
}

void ListWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    if (watcher_) watcher_->Stop();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ListWatch::Wait(Duration d) {
  std::unique_lock<std::mutex> lock(mu_);
  MonoTime deadline = clock_->NowMonotonic() + d;
  while (!stopped_ && clock_->NowMonotonic() < deadline) {
    clock_->WaitUntil(cv_, lock, deadline);
  }
  return !stopped_;
}

void ListWatch::Run() {
  const std::string what = options_.gvr.GroupResource();
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
    }
    kube::ListOptions lo;
    lo.label_selector = options_.label_selector;
    lo.field_selector = options_.field_selector;
    auto list = kube::ListAll(*client_, options_.gvr, options_.namespace_, lo);
    if (!list.ok()) {
      LOG(WARNING) << "list " << what << ": " << list.status();
      if (!Wait(options_.retry_delay)) return;
      continue;
    }
    if (handlers_.on_list) handlers_.on_list(list->items);
    ++lists_;
    synced_ = true;
    std::string rv = list->resource_version;

    // Watch until the history is gone (then re-list) or we are stopped.
    bool relist = false;
    while (!relist) {
      kube::WatchOptions wo;
      wo.label_selector = options_.label_selector;
      wo.field_selector = options_.field_selector;
      wo.resource_version = rv;
      wo.allow_bookmarks = true;
      wo.timeout_seconds = options_.watch_timeout_seconds;
      auto opened = client_->Watch(options_.gvr, options_.namespace_, wo);
      if (!opened.ok()) {
        if (kube::IsResourceExpired(opened.status())) break;
        LOG(WARNING) << "watch " << what << ": " << opened.status();
        if (!Wait(options_.retry_delay)) return;
        continue;
      }
      std::shared_ptr<kube::Watcher> w(std::move(*opened));
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopped_) return;
        watcher_ = w;
      }
      kube::WatchEvent e;
      while (w->Next(&e)) {
        if (e.type == kube::WatchEventType::kBookmark) {
          if (!e.resource_version.empty()) rv = e.resource_version;
          continue;
        }
        if (e.type == kube::WatchEventType::kError) {
          if (!kube::IsResourceExpired(e.error)) {
            LOG(WARNING) << "watch " << what << ": " << e.error;
          }
          relist = true;
          break;
        }
        if (handlers_.on_event) handlers_.on_event(e.type, e.object);
        if (!e.resource_version.empty()) rv = e.resource_version;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        watcher_.reset();
        if (stopped_) return;
      }
      if (!relist && !w->Result().ok()) {
        LOG(WARNING) << "watch " << what << " ended: " << w->Result();
        if (!Wait(options_.retry_delay)) return;
      }
    }
  }
}

}  // namespace kai::controllers
