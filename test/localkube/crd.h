// Internal: serves CustomResourceDefinitions: registering a CRD's versions as resources (so
// they are served and discoverable at once), its status (Established, NamesAccepted), schema
// validation/pruning/defaulting, and unregistering when the CRD is gone.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "test/localkube/store.h"

namespace kai::localkube {

class CrdController {
 public:
  explicit CrdController(Store* store);
  // Registers the customresourcedefinitions resource itself (call before the store is built).
  static void RegisterCrdResource(ResourceRegistry* registry);
  // Hooks into the store's change stream.
  void Start();
  // Serves a CRD that is already stored (reloaded by persistence).
  void Serve(const ObjectPtr& crd) { Apply(crd); }

 private:
  void OnChange(const GroupResource& gr, const ObjectPtr& old, const ObjectPtr& now);
  void Apply(const ObjectPtr& crd);
  void Remove(const std::string& crd_name, const GroupResource& storage);

  Store* store_;
  std::mutex mu_;
  std::map<std::string, uint64_t> applied_generation_;  // crd name -> generation served
};

}  // namespace kai::localkube
