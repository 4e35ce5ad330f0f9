// kai-binder: turns BindRequests into bindings (docs/binder.md).
#include <glog/logging.h>

#include <string>
#include <vector>

#include "controllers/binder/binder_app.h"

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  return kai::binder::BinderMain(std::vector<std::string>(argv + 1, argv + argc));
}
