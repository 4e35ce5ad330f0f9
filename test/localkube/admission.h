// Internal: the admission hook the store calls on every write (webhooks live in webhooks.cc).
#pragma once

#include <string>
#include <vector>

#include "kube/base/status.h"
#include "test/localkube/json.h"
#include "test/localkube/resource.h"
#include "test/localkube/store.h"

namespace kai::localkube {

struct AdmissionAttributes {
  const ResourceInfo* resource = nullptr;  // as requested (its version is the request's)
  std::string operation;                   // CREATE, UPDATE, DELETE, CONNECT
  std::string subresource;
  std::string ns;
  std::string name;
  const Json* old_object = nullptr;  // UPDATE/DELETE
  const UserInfo* user = nullptr;
  bool dry_run = false;
  std::string options_kind;  // CreateOptions, UpdateOptions, DeleteOptions, PatchOptions
  std::string field_manager;
  std::vector<std::string>* warnings = nullptr;  // webhook warnings for the response
};

class Admission {
 public:
  virtual ~Admission() = default;
  // False when no webhook is configured (skips the work of building review requests).
  virtual bool Enabled() const = 0;
  // Mutating webhooks; may change *obj.
  virtual Status Mutate(const AdmissionAttributes& attrs, JsonDoc* obj) = 0;
  // Validating webhooks. `obj` is null for DELETE.
  virtual Status Validate(const AdmissionAttributes& attrs, const Json* obj) = 0;
};

}  // namespace kai::localkube
