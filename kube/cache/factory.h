// SharedInformerFactory: one informer (one LIST+WATCH) per resource per process, shared by every
// consumer (client-go informers.SharedInformerFactory).
//
//   SharedInformerFactory factory(client, {.ns = ""});
//   SharedInformer* pods = factory.InformerFor<api::Pod>();
//   pods->AddEventHandler({...});
//   factory.Start();
//   if (!factory.WaitForCacheSync(std::chrono::minutes(1))) ...
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "kube/cache/informer.h"
#include "kube/cache/typed.h"
#include "kube/rest/resource.h"

namespace kai::kube {

struct SharedInformerFactoryOptions {
  std::string ns;  // "" = all namespaces
  Clock* clock = nullptr;
  Random* random = nullptr;
  BackoffOptions backoff;
  Duration min_watch_timeout{std::chrono::minutes(5)};
  int64_t page_size = 500;
};

class SharedInformerFactory {
 public:
  SharedInformerFactory(Client* client, SharedInformerFactoryOptions options = {});
  ~SharedInformerFactory();

  // The informer of `gvr`, created on first use with `decoder` (default RawDecoder); later calls
  // return the same informer whatever decoder they pass.
  SharedInformer* InformerFor(const GroupVersionResource& gvr, Decoder decoder = nullptr);
  template <class T>
  SharedInformer* InformerFor(bool keep_json = true) {
    return InformerFor(GvrOf<T>(), TypedDecoder<T>(keep_json));
  }

  // Starts every informer not started yet (call again after adding informers); nothing once
  // Shutdown() was called (informers created after it are stopped ones).
  void Start();
  // Every started informer synced within `timeout`.
  bool WaitForCacheSync(Duration timeout);
  // Stops every informer.
  void Shutdown();
  bool IsShutDown() const;

  std::vector<GroupVersionResource> Resources() const;

 private:
  Client* const client_;
  const SharedInformerFactoryOptions options_;
  mutable std::mutex mu_;
  std::map<GroupVersionResource, std::unique_ptr<SharedInformer>> informers_;
  std::map<GroupVersionResource, bool> started_;
  bool shutting_down_ = false;
};

}  // namespace kai::kube
