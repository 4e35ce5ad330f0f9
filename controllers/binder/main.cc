// kai-binder: turns BindRequests into bindings (docs/binder.md).
#include <glog/logging.h>

#include <string>
#include <vector>

#include "controllers/binder/binder_app.h"
#include "kube/app/shutdown_signal.h"

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  // Without static destructors: after a shutdown that overran its timeout a reconcile may still
  // be running (kube/app/shutdown_signal.h).
  kai::app::ExitProcess(kai::binder::BinderMain(std::vector<std::string>(argv + 1, argv + argc)));
}
