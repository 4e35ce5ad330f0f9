#include "kube/cache/reflector.h"

#include <glog/logging.h>

#include <algorithm>
#include <deque>
#include <thread>

#include "kube/rest/errors.h"

namespace kai::kube {

namespace {

// client-go isTooLargeResourceVersionError: the RV is ahead of the server (e.g. a restarted
// server with a fresh history); only a consistent relist recovers.
bool IsTooLargeResourceVersion(const Status& s) {
  if (s.ok()) return false;
  for (const StatusCause& c : s.causes()) {
    if (c.type == "ResourceVersionTooLarge") return true;
  }
  return s.message().find("Too large resource version") != std::string_view::npos;
}

// The RV the reflector holds cannot be served any more: relist with a consistent read.
bool NeedsFreshList(const Status& s) {
  return IsResourceExpired(s) || IsTooLargeResourceVersion(s);
}

// Decodes list pages on worker threads while the next page is being fetched, keeping the
// objects in list order. The decoder is called from several threads at once.
class DecodePool {
 public:
  DecodePool(const Decoder& decoder, int threads, const std::string& name)
      : decoder_(decoder), name_(name) {
    for (int i = 0; i < std::max(1, threads); ++i) workers_.emplace_back([this] { Work(); });
  }
  ~DecodePool() {
    {
      std::lock_guard<std::mutex> l(mu_);
      closed_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  void Submit(std::vector<std::string> items) {
    std::lock_guard<std::mutex> l(mu_);
    pages_.push_back({std::move(items), {}});
    pending_.push_back(pages_.size() - 1);
    cv_.notify_one();
  }

  // Waits for every submitted page; the objects in submission order.
  std::vector<ObjectPtr> Finish(int64_t* errors) {
    std::unique_lock<std::mutex> l(mu_);
    done_cv_.wait(l, [&] { return pending_.empty() && busy_ == 0; });
    size_t total = 0;
    for (const Page& p : pages_) total += p.objects.size();
    std::vector<ObjectPtr> out;
    out.reserve(total);
    for (Page& p : pages_) {
      for (ObjectPtr& o : p.objects) out.push_back(std::move(o));
    }
    pages_.clear();
    *errors = errors_;
    return out;
  }

 private:
  struct Page {
    std::vector<std::string> items;
    std::vector<ObjectPtr> objects;
  };

  void Work() {
    std::unique_lock<std::mutex> l(mu_);
    while (true) {
      cv_.wait(l, [&] { return closed_ || !pending_.empty(); });
      if (pending_.empty()) return;
      const size_t index = pending_.front();
      pending_.pop_front();
      ++busy_;
      std::vector<std::string> items = std::move(pages_[index].items);
      l.unlock();
      std::vector<ObjectPtr> objects;
      objects.reserve(items.size());
      int64_t errors = 0;
      for (std::string& item : items) {
        StatusOr<ObjectPtr> obj = decoder_(std::move(item));
        if (!obj.ok()) {
          ++errors;
          LOG(ERROR) << name_ << ": skipping undecodable object: " << obj.status();
          continue;
        }
        objects.push_back(std::move(obj).value());
      }
      items.clear();
      l.lock();
      pages_[index].objects = std::move(objects);
      errors_ += errors;
      --busy_;
      if (pending_.empty() && busy_ == 0) done_cv_.notify_all();
    }
  }

  const Decoder& decoder_;
  const std::string& name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  std::deque<Page> pages_;  // deque: references stay valid while pages are appended
  std::deque<size_t> pending_;
  int busy_ = 0;
  int64_t errors_ = 0;
  bool closed_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace

Reflector::Reflector(Client* client, GroupVersionResource gvr, ReflectorOptions options,
                     ReflectorSink* sink)
    : client_(client),
      gvr_(std::move(gvr)),
      options_(std::move(options)),
      sink_(sink),
      clock_(options_.clock != nullptr ? options_.clock : RealClock::Get()),
      random_(options_.random != nullptr ? options_.random : SeededRandom::Default()),
      backoff_(options_.backoff, clock_, random_) {
  if (!options_.decoder) options_.decoder = RawDecoder();
  if (options_.name.empty()) options_.name = gvr_.ToString();
  if (options_.decode_threads <= 0) {
    options_.decode_threads =
        static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  }
}

Reflector::~Reflector() { Stop(); }

void Reflector::Stop() {
  std::lock_guard<std::mutex> l(mu_);
  stopped_.store(true);
  if (current_watch_ != nullptr) current_watch_->Stop();
  cv_.notify_all();
}

std::string Reflector::LastSyncResourceVersion() const {
  std::lock_guard<std::mutex> l(mu_);
  return last_rv_;
}

ReflectorStats Reflector::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

void Reflector::Wait(Duration d) {
  std::unique_lock<std::mutex> l(mu_);
  const MonoTime deadline = clock_->NowMonotonic() + d;
  while (!Stopped() && !clock_->WaitUntil(cv_, l, deadline)) {
  }
}

void Reflector::Run() {
  while (!Stopped()) {
    Status s = ListAndWatch();
    if (Stopped()) break;
    {
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.errors;
    }
    const Duration wait = backoff_.Next();
    LOG(WARNING) << options_.name << ": list/watch failed, retrying in "
                 << std::chrono::duration_cast<std::chrono::milliseconds>(wait).count()
                 << " ms: " << s;
    Wait(wait);
  }
}

StatusOr<std::vector<ObjectPtr>> Reflector::ListDecoded(const ListOptions& base,
                                                        std::string* resource_version,
                                                        int64_t* decode_errors) {
  // The client-go pager (pages of page_size; an expired continue token falls back to one full
  // list), with each page decoded on the pool while the next one is fetched.
  auto pool =
      std::make_unique<DecodePool>(options_.decoder, options_.decode_threads, options_.name);
  ListOptions opts = base;
  opts.limit = options_.page_size;
  bool first = true;
  while (true) {
    StatusOr<ObjectList> page = client_->List(gvr_, options_.ns, opts);
    if (!page.ok()) {
      if (first || !IsResourceExpired(page.status())) return std::move(page).status();
      int64_t ignored = 0;
      pool->Finish(&ignored);
      pool = std::make_unique<DecodePool>(options_.decoder, options_.decode_threads, options_.name);
      ListOptions full = base;
      full.limit = 0;
      page = client_->List(gvr_, options_.ns, full);
      if (!page.ok()) return std::move(page).status();
      *resource_version = page->resource_version;
      pool->Submit(std::move(page->items));
      break;
    }
    if (first) *resource_version = page->resource_version;
    pool->Submit(std::move(page->items));
    if (page->continue_token.empty()) break;
    first = false;
    opts.continue_token = page->continue_token;
    opts.resource_version.clear();
    opts.resource_version_match.clear();
  }
  return pool->Finish(decode_errors);
}

Status Reflector::List() {
  // The first list may be served from the watch cache ("0"); later ones start from the last
  // synced RV, or are consistent reads ("") once that RV is known to be too old.
  std::string rv;
  {
    std::lock_guard<std::mutex> l(mu_);
    rv = !synced_once_ ? "0" : (rv_unavailable_ ? "" : last_rv_);
  }
  ListOptions opts{.label_selector = options_.label_selector,
                   .field_selector = options_.field_selector,
                   .resource_version = rv,
                   .cancel = &stopped_};
  std::string list_rv;
  int64_t decode_errors = 0;
  StatusOr<std::vector<ObjectPtr>> objects = ListDecoded(opts, &list_rv, &decode_errors);
  if (!objects.ok() && NeedsFreshList(objects.status()) && !rv.empty()) {
    {
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.expired;
      rv_unavailable_ = true;
    }
    opts.resource_version.clear();
    objects = ListDecoded(opts, &list_rv, &decode_errors);
  }
  if (!objects.ok()) return objects.status().WithPrefix("list " + options_.name);
  {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.lists;
    stats_.decode_errors += decode_errors;
    last_rv_ = list_rv;
    synced_once_ = true;
    rv_unavailable_ = false;
  }
  sink_->Replace(std::move(objects).value(), list_rv);
  return Status::OK();
}

Status Reflector::ListAndWatch() {
  KAI_RETURN_IF_ERROR(List());
  while (!Stopped()) {
    Status s = WatchOnce();
    if (s.ok()) continue;  // clean close: re-watch from the last RV
    if (Stopped()) return Status::OK();
    if (IsTooManyRequests(s)) {
      // The server is overloaded: back off and re-watch, no relist. (Connection failures
      // relist: the server may have restarted with another history, and a relist from the
      // last RV is answered consistently either way.)
      const Duration wait = backoff_.Next();
      LOG(WARNING) << options_.name << ": watch failed, re-watching in "
                   << std::chrono::duration_cast<std::chrono::milliseconds>(wait).count()
                   << " ms: " << s;
      Wait(wait);
      continue;
    }
    return s;
  }
  return Status::OK();
}

Status Reflector::WatchOnce() {
  std::string rv;
  {
    std::lock_guard<std::mutex> l(mu_);
    rv = last_rv_;
  }
  // Spread reconnects: timeoutSeconds uniformly in [min, 2 x min).
  const int64_t min_s = std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::seconds>(options_.min_watch_timeout).count());
  const int timeout = static_cast<int>(
      min_s + static_cast<int64_t>(random_->Uniform(static_cast<uint64_t>(min_s))));
  const MonoTime start = clock_->NowMonotonic();
  StatusOr<std::unique_ptr<Watcher>> w = client_->Watch(gvr_, options_.ns,
                                                        {.label_selector = options_.label_selector,
                                                         .field_selector = options_.field_selector,
                                                         .resource_version = rv,
                                                         .allow_bookmarks = true,
                                                         .timeout_seconds = timeout,
                                                         .cancel = &stopped_});
  if (!w.ok()) {
    if (NeedsFreshList(w.status())) {
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.expired;
      rv_unavailable_ = true;
    }
    return w.status().WithPrefix("watch " + options_.name);
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    if (Stopped()) return Status::OK();
    current_watch_ = w->get();
    ++stats_.watches;
  }
  struct Clear {
    Reflector* r;
    ~Clear() {
      std::lock_guard<std::mutex> l(r->mu_);
      r->current_watch_ = nullptr;
    }
  } clear{this};

  int64_t delivered = 0;
  WatchEvent event;
  while ((*w)->Next(&event)) {
    if (event.type == WatchEventType::kError) {
      if (NeedsFreshList(event.error)) {
        std::lock_guard<std::mutex> l(mu_);
        ++stats_.expired;
        rv_unavailable_ = true;
      }
      return event.error.WithPrefix("watch " + options_.name);
    }
    if (event.type == WatchEventType::kBookmark) {
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.bookmarks;
      if (!event.resource_version.empty()) last_rv_ = event.resource_version;
      continue;
    }
    const std::string event_rv = event.resource_version;
    StatusOr<ObjectPtr> obj = options_.decoder(std::move(event.object));
    if (!obj.ok()) {
      LOG(ERROR) << options_.name << ": skipping undecodable watch event: " << obj.status();
      std::lock_guard<std::mutex> l(mu_);
      ++stats_.decode_errors;
      if (!event_rv.empty()) last_rv_ = event_rv;
      continue;
    }
    switch (event.type) {
      case WatchEventType::kAdded:
        sink_->Added(std::move(obj).value());
        break;
      case WatchEventType::kModified:
        sink_->Modified(std::move(obj).value());
        break;
      case WatchEventType::kDeleted:
        sink_->Deleted(std::move(obj).value());
        break;
      default:
        break;
    }
    ++delivered;
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.events;
    if (!event_rv.empty()) last_rv_ = event_rv;
  }
  Status result = (*w)->Result();
  if (Stopped()) return Status::OK();
  if (!result.ok()) return result.WithPrefix("watch " + options_.name);
  if (delivered == 0 && clock_->NowMonotonic() - start < std::chrono::seconds(1)) {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.very_short_watches;
    return InternalError("very short watch: " + options_.name +
                         ": unexpected watch close - watch lasted less than a second and no "
                         "items received");
  }
  return Status::OK();
}

}  // namespace kai::kube
