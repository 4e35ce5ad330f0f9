#include "kube/cache/factory.h"

namespace kai::kube {

SharedInformerFactory::SharedInformerFactory(Client* client, SharedInformerFactoryOptions options)
    : client_(client), options_(std::move(options)) {}

SharedInformerFactory::~SharedInformerFactory() { Shutdown(); }

SharedInformer* SharedInformerFactory::InformerFor(const GroupVersionResource& gvr,
                                                   Decoder decoder) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = informers_.find(gvr);
  if (it != informers_.end()) return it->second.get();
  InformerOptions opts;
  opts.reflector.ns = options_.ns;
  opts.reflector.decoder = decoder ? std::move(decoder) : RawDecoder();
  opts.reflector.clock = options_.clock;
  opts.reflector.random = options_.random;
  opts.reflector.backoff = options_.backoff;
  opts.reflector.min_watch_timeout = options_.min_watch_timeout;
  opts.reflector.page_size = options_.page_size;
  auto informer = std::make_unique<SharedInformer>(client_, gvr, std::move(opts));
  SharedInformer* raw = informer.get();
  if (shutting_down_) raw->Stop();  // never runs; its waits return at once
  informers_.emplace(gvr, std::move(informer));
  return raw;
}

void SharedInformerFactory::Start() {
  std::lock_guard<std::mutex> l(mu_);
  if (shutting_down_) return;
  for (auto& [gvr, informer] : informers_) {
    if (started_[gvr]) continue;
    started_[gvr] = true;
    informer->Start();
  }
}

bool SharedInformerFactory::WaitForCacheSync(Duration timeout) {
  std::vector<SharedInformer*> started;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto& [gvr, informer] : informers_) {
      if (started_[gvr]) started.push_back(informer.get());
    }
  }
  return kube::WaitForCacheSync(started, timeout);
}

void SharedInformerFactory::Shutdown() {
  std::lock_guard<std::mutex> l(mu_);
  shutting_down_ = true;
  for (auto& [gvr, informer] : informers_) informer->Stop();
}

bool SharedInformerFactory::IsShutDown() const {
  std::lock_guard<std::mutex> l(mu_);
  return shutting_down_;
}

std::vector<GroupVersionResource> SharedInformerFactory::Resources() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<GroupVersionResource> out;
  for (const auto& [gvr, informer] : informers_) out.push_back(gvr);
  return out;
}

}  // namespace kai::kube
