// The store's watches: the event history replayed and followed per watcher.
#include <algorithm>
#include <utility>

#include "kube/base/strings.h"
#include "test/localkube/errors.h"
#include "test/localkube/json.h"
#include "test/localkube/store.h"
#include "test/localkube/store_internal.h"
#include "test/localkube/types.h"

namespace kai::localkube {

// ---------------------------------------------------------------------------------------------
// Watch.

class StoreWatch : public Watch {
 public:
  StoreWatch(Store* store, Store::Table* table, std::string ns, LabelSelector ls, FieldSelector fs,
             const WatchOptions& opts)
      : store_(store),
        table_(table),
        ns_(std::move(ns)),
        ls_(std::move(ls)),
        fs_(std::move(fs)),
        opts_(opts),
        epoch_(store->drop_epoch_.load()) {
    const MonoTime now = store->clock_->NowMonotonic();
    if (opts.timeout) deadline_ = now + *opts.timeout;
    next_bookmark_ = now + opts.bookmark_interval;
  }

  ~StoreWatch() override {
    std::lock_guard l(store_->mu_);
    --table_->watchers;
    --store_->active_watches_;
  }

  // Called under the store lock at creation.
  // `error` (410 Expired, 504 too large) is the watch's only event: the real server answers a
  // watch whose resourceVersion parsed with an ERROR event on a 200 stream.
  void InitLocked(bool initial, uint64_t start_rv, const Status& error) {
    ++table_->watchers;
    ++store_->active_watches_;
    if (!error.ok()) {
      expired_ = true;
      pending_.push_back(WatchEvent{EventType::kError, nullptr, 0, false, error, nullptr});
      return;
    }
    if (initial) {
      const std::string prefix = ns_.empty() ? "" : ns_ + "/";
      auto it = prefix.empty() ? table_->objects.begin() : table_->objects.lower_bound(prefix);
      for (; it != table_->objects.end(); ++it) {
        if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
        if (Match(it->second)) {
          pending_.push_back(WatchEvent{EventType::kAdded, it->second, 0, false, {}, nullptr});
        }
      }
      if (opts_.send_initial_events && opts_.allow_bookmarks) {
        WatchEvent b;
        b.type = EventType::kBookmark;
        b.resource_version = store_->rv_;
        b.initial_events_end = true;
        pending_.push_back(std::move(b));
      }
      next_seq_ = table_->first_seq + table_->ring.size();
      return;
    }
    // First event with rv > start_rv. A start_rv ahead of the store (a client that saw a newer
    // RV elsewhere) waits silently, like the watch cache: no event up to it, and no bookmark
    // before the store reaches it.
    min_rv_ = start_rv;
    auto pos = std::upper_bound(
        table_->ring.begin(), table_->ring.end(), start_rv,
        [](uint64_t rv, const std::shared_ptr<const StoredEvent>& e) { return rv < e->rv; });
    next_seq_ = table_->first_seq + static_cast<uint64_t>(pos - table_->ring.begin());
  }

  bool Next(MonoTime deadline, std::vector<WatchEvent>* out) override {
    if (ended_) return false;
    if (!pending_.empty()) {
      const size_t n = std::min<size_t>(pending_.size(), 1000);
      for (size_t i = 0; i < n; ++i) {
        out->push_back(std::move(pending_.front()));
        pending_.pop_front();
      }
      if (expired_) {
        ended_ = true;
        return false;
      }
      return true;
    }
    std::vector<std::shared_ptr<const StoredEvent>> batch;
    std::unique_lock l(store_->mu_);
    while (true) {
      if (stopped_ || table_->dropped || store_->drop_epoch_.load() != epoch_) {
        ended_ = true;
        return false;
      }
      if (next_seq_ < table_->first_seq) {
        // Fell behind the bounded history (a slow watcher): the real server ends it and the
        // client's re-watch from its last resourceVersion is answered with 410.
        ended_ = true;
        const uint64_t compacted = table_->compacted_rv;
        l.unlock();
        Status s = kube::NewExpired("too old resource version: " + std::to_string(last_rv_) + " (" +
                                    std::to_string(compacted) + ")");
        out->push_back(WatchEvent{EventType::kError, nullptr, 0, false, s, nullptr});
        return false;
      }
      const uint64_t end_seq = table_->first_seq + table_->ring.size();
      if (next_seq_ < end_seq) {
        const size_t start = static_cast<size_t>(next_seq_ - table_->first_seq);
        const size_t n = std::min<size_t>(end_seq - next_seq_, 1000);
        batch.assign(table_->ring.begin() + static_cast<std::ptrdiff_t>(start),
                     table_->ring.begin() + static_cast<std::ptrdiff_t>(start + n));
        next_seq_ += n;
        l.unlock();
        const size_t before = out->size();
        for (const auto& ev : batch) {
          if (ev->rv > min_rv_) Filter(*ev, out);
        }
        if (!batch.empty()) last_rv_ = batch.back()->rv;
        if (out->size() > before) return true;
        batch.clear();
        l.lock();
        continue;
      }
      const MonoTime now = store_->clock_->NowMonotonic();
      if (deadline_ && now >= *deadline_) {
        ended_ = true;
        return false;
      }
      if (opts_.allow_bookmarks && now >= next_bookmark_ && store_->rv_ < min_rv_) {
        next_bookmark_ = now + opts_.bookmark_interval;  // nothing to bookmark yet
      }
      if (opts_.allow_bookmarks && now >= next_bookmark_) {
        WatchEvent b;
        b.type = EventType::kBookmark;
        b.resource_version = store_->rv_;
        next_bookmark_ = now + opts_.bookmark_interval;
        out->push_back(std::move(b));
        return true;
      }
      if (now >= deadline) return true;
      MonoTime wake = deadline;
      if (deadline_) wake = std::min(wake, *deadline_);
      if (opts_.allow_bookmarks) wake = std::min(wake, next_bookmark_);
      store_->clock_->WaitUntil(table_->cv, l, wake);
    }
  }

  void Stop() override {
    std::lock_guard l(store_->mu_);
    stopped_ = true;
    table_->cv.notify_all();
  }

 private:
  bool Match(const ObjectPtr& o) const {
    if (!ns_.empty() && o->namespace_() != ns_) return false;
    return Matches(o, ls_, fs_);
  }

  void Filter(const StoredEvent& ev, std::vector<WatchEvent>* out) {
    if (!ns_.empty() && ev.obj->namespace_() != ns_) return;
    const bool simple = ls_.Empty() && fs_.Empty();
    const bool cur = simple || Matches(ev.obj, ls_, fs_);
    if (ev.type == EventType::kModified && !simple) {
      const bool prev = ev.prev && Matches(ev.prev, ls_, fs_);
      if (cur && !prev) {
        out->push_back(WatchEvent{EventType::kAdded, ev.obj, ev.rv, false, {}, nullptr});
        return;
      }
      if (!cur && prev) {
        out->push_back(WatchEvent{
            EventType::kDeleted, WithResourceVersion(ev.prev, ev.rv), ev.rv, false, {}, nullptr});
        return;
      }
    }
    if (!cur) return;
    out->push_back(WatchEvent{ev.type, ev.obj, ev.rv, false, {}, ev.frame});
  }

  Store* store_;
  Store::Table* table_;
  std::string ns_;
  LabelSelector ls_;
  FieldSelector fs_;
  WatchOptions opts_;
  uint64_t epoch_;
  uint64_t next_seq_ = 0;
  uint64_t last_rv_ = 0;
  uint64_t min_rv_ = 0;  // events at or below it are not sent
  std::optional<MonoTime> deadline_;
  MonoTime next_bookmark_;
  std::deque<WatchEvent> pending_;
  bool ended_ = false;
  bool expired_ = false;
  bool stopped_ = false;
};

StatusOr<std::unique_ptr<Watch>> Store::StartWatch(const GroupVersionResource& gvr,
                                                   std::string_view ns_in,
                                                   const WatchOptions& opts) {
  KAI_ASSIGN_OR_RETURN(ResourcePtr r, Resolve(gvr));
  KAI_ASSIGN_OR_RETURN(LabelSelector ls, LabelSelector::Parse(opts.label_selector));
  KAI_ASSIGN_OR_RETURN(FieldSelector fs, FieldSelector::Parse(opts.field_selector));
  KAI_RETURN_IF_ERROR(CheckFieldSelector(*r, fs));
  const std::string ns = r->namespaced ? std::string(ns_in) : "";
  uint64_t start = 0;
  const bool has_rv = !opts.resource_version.empty() && opts.resource_version != "0";
  if (has_rv && !ParseDecimalUint64(opts.resource_version, &start)) {
    return kube::NewBadRequest("invalid resource version \"" + opts.resource_version + "\"");
  }
  if (opts.send_initial_events) {
    if (opts.resource_version_match != "NotOlderThan") {
      return kube::NewInvalid(
          "ListOptions.meta.k8s.io", "",
          {FieldForbidden("resourceVersionMatch",
                          "sendInitialEvents requires setting resourceVersionMatch "
                          "to NotOlderThan")});
    }
    if (!opts.allow_bookmarks) {
      return kube::NewInvalid(
          "ListOptions.meta.k8s.io", "",
          {FieldForbidden("allowWatchBookmarks",
                          "sendInitialEvents requires setting allowWatchBookmarks "
                          "to true")});
    }
  }
  std::unique_lock l(mu_);
  Table* t = FindTable(r->storage);
  if (t == nullptr) return kube::NewNotFound(ResourceWhat(*r), "");
  Status error;
  if (has_rv && opts.send_initial_events) {
    // A watch-list must start from state at least as new as its RV: wait for it (the watch
    // cache's waitUntilFreshAndBlock), else one ERROR event 504.
    error = WaitForResourceVersionLocked(l, start);
  } else if (has_rv && start < t->compacted_rv) {
    error = kube::NewExpired("too old resource version: " + std::to_string(start) + " (" +
                             std::to_string(t->compacted_rv) + ")");
  }
  auto w = std::make_unique<StoreWatch>(this, t, ns, std::move(ls), std::move(fs), opts);
  const bool initial = !has_rv || opts.send_initial_events;
  w->InitLocked(initial, start, error);
  return std::unique_ptr<Watch>(std::move(w));
}

}  // namespace kai::localkube
