#include "kube/controller/informer_handler.h"

namespace kai::controller {

api::ObjectMeta MinimalMeta(const kube::Object& object) {
  api::ObjectMeta m;
  m.namespace_ = std::string(object.namespace_());
  m.name = std::string(object.name());
  m.resource_version = object.resource_version();
  m.uid = object.uid();
  return m;
}

}  // namespace kai::controller
