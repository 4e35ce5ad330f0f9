// Test helper: a small cluster written as Kubernetes objects, scheduled by the live cycle with a
// FakeSchedulerWriter, so tests see exactly the writes the scheduler would send.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kube/base/fake_clock.h"
#include "kube/base/random.h"
#include "kube/base/time.h"
#include "scheduler/app/cycle.h"
#include "scheduler/cache/cluster_model.h"
#include "scheduler/outputs/fake_scheduler_writer.h"
#include "scheduler/outputs/gated_scheduler_writer.h"
#include "scheduler/outputs/output_sink.h"
#include "scheduler/outputs/status_update_queue.h"

namespace kai::scheduler::outputs_testing {

inline std::string NodeYaml(const std::string& name, int gpus,
                            const std::string& extra_labels = "") {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels:\n    nvidia.com/gpu.memory: \"40000\"\n" + extra_labels +
         "status:\n  allocatable: {cpu: \"16\", memory: 64Gi, pods: \"110\", nvidia.com/gpu: \"" +
         std::to_string(gpus) +
         "\"}\n  capacity: {cpu: \"16\", memory: 64Gi, pods: \"110\", "
         "nvidia.com/gpu: \"" +
         std::to_string(gpus) + "\"}\n---\n";
}

inline std::string QueueYaml(const std::string& name, const std::string& parent = "",
                             int gpu_quota = -1, const std::string& extra_meta = "") {
  std::string y = "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata:\n  name: " + name +
                  "\n  creationTimestamp: \"2025-01-01T00:00:00Z\"\n" + extra_meta + "spec:\n";
  if (!parent.empty()) y += "  parentQueue: " + parent + "\n";
  y += "  resources:\n    gpu: {quota: " + std::to_string(gpu_quota) +
       ", limit: -1, overQuotaWeight: 1}\n    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}\n"
       "    memory: {quota: -1, limit: -1, overQuotaWeight: 1}\n---\n";
  return y;
}

// A PodGroup; `extra_meta` / `extra_spec` are indented YAML lines.
inline std::string PodGroupYaml(const std::string& ns, const std::string& name,
                                const std::string& queue, int min_member,
                                const std::string& extra_spec = "",
                                const std::string& extra_meta = "",
                                const std::string& status = "") {
  return "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata:\n  name: " + name +
         "\n  namespace: " + ns + "\n  uid: pg-" + name +
         "\n  resourceVersion: \"10\"\n  creationTimestamp: \"2025-01-01T00:00:00Z\"\n" +
         extra_meta + "spec:\n  minMember: " + std::to_string(min_member) + "\n  queue: " + queue +
         "\n" + extra_spec + status + "---\n";
}

struct PodOptions {
  std::string node;
  std::string phase = "Pending";
  std::string annotations;  // indented "    k: v" lines
  std::string labels;       // indented "    k: v" lines
  std::string scheduler = "kai-scheduler";
  std::string cpu = "1";
  std::string created = "2025-01-01T00:00:01Z";
  std::string status_extra;  // indented under status
  std::string priority_class;
};

// A pod; an empty `pg` leaves the pod-group-name annotation out (a bare pod).
inline std::string PodYaml(const std::string& ns, const std::string& name, const std::string& pg,
                           int gpus, const PodOptions& o = {}) {
  std::string y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
                  "\n  uid: uid-" + name + "\n  resourceVersion: \"5\"\n  creationTimestamp: \"" +
                  o.created + "\"\n";
  std::string annotations = pg.empty() ? "" : "    pod-group-name: " + pg + "\n";
  annotations += o.annotations;
  if (!annotations.empty()) y += "  annotations:\n" + annotations;
  if (!o.labels.empty()) y += "  labels:\n" + o.labels;
  y += "spec:\n  schedulerName: " + o.scheduler + "\n";
  if (!o.priority_class.empty()) y += "  priorityClassName: " + o.priority_class + "\n";
  if (!o.node.empty()) y += "  nodeName: " + o.node + "\n";
  std::string gpu = gpus > 0 ? ", nvidia.com/gpu: \"" + std::to_string(gpus) + "\"" : "";
  y += "  containers:\n  - name: c\n    image: busybox\n    resources:\n      requests: {cpu: \"" +
       o.cpu + "\", memory: 1Gi" + gpu + "}\n";
  if (gpus > 0) y += "      limits: {nvidia.com/gpu: \"" + std::to_string(gpus) + "\"}\n";
  y += "status:\n  phase: " + o.phase + "\n" + o.status_extra + "---\n";
  return y;
}

inline std::string PriorityClassYaml(const std::string& name, int value) {
  return "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: " + name +
         "\nvalue: " + std::to_string(value) + "\n---\n";
}

// A whole-GPU BindRequest for pod ns/name on `node`; `owner_uid` adds the pod owner reference,
// `status` a status map such as "{phase: Failed}", `uid` the BindRequest's own uid.
inline std::string BindRequestYaml(const std::string& ns, const std::string& name,
                                   const std::string& node, const std::string& owner_uid = "",
                                   const std::string& status = "", const std::string& uid = "") {
  std::string y =
      "apiVersion: scheduling.run.ai/v1alpha2\nkind: BindRequest\nmetadata: {name: " + name +
      ", namespace: " + ns;
  if (!uid.empty()) y += ", uid: " + uid;
  if (!owner_uid.empty()) {
    y += ", ownerReferences: [{apiVersion: v1, kind: Pod, name: " + name + ", uid: " + owner_uid +
         "}]";
  }
  y += "}\nspec: {podName: " + name + ", selectedNode: " + node +
       ", receivedResourceType: Regular}\n";
  if (!status.empty()) y += "status: " + status + "\n";
  return y + "---\n";
}

// The typed form of BindRequestYaml without owner or status, e.g. to put on the fake server.
inline api::BindRequest WholeGpuBindRequest(const std::string& ns, const std::string& name,
                                            const std::string& node, const std::string& uid = "") {
  api::BindRequest br;
  br.metadata.namespace_ = ns;
  br.metadata.name = name;
  br.metadata.uid = uid;
  br.spec.pod_name = name;
  br.spec.selected_node = node;
  br.spec.received_resource_type = "Regular";
  return br;
}

// Everything queued so far, in order.
inline std::vector<StatusUpdate> DrainQueue(StatusUpdateQueue* q) {
  std::vector<StatusUpdate> out;
  while (auto u = q->Pop()) out.push_back(*u);
  return out;
}

// The live scheduler's pieces with fakes at the I/O seams.
class Harness {
 public:
  // `bind_request_workers` > 1: the allocate action's BindRequests are created concurrently,
  // through gate() (OutputSink::SetBindRequestWorkers).
  explicit Harness(SchedulerParams params = {}, int bind_request_workers = 0)
      : params_(std::move(params)),
        clock_(ParseRfc3339("2025-01-01T12:00:00Z").value()),
        random_(7),
        gate_(&writer_),
        sink_(params_, &gate_, &updates_, &clock_) {
    sink_.SetBindRequestWorkers(bind_request_workers);
    conf_ = DefaultSchedulerConfiguration();
    sink_.set_on_bind_request_created([this](const api::BindRequest& br) {
      model_.UpsertBindRequest(std::make_shared<const api::BindRequest>(br));
    });
    sink_.set_on_bind_request_dropped(
        [this](const std::string& key) { model_.DeleteBindRequest(key); });
    sink_.set_on_bind_request_deleted([this](const std::string& key, const std::string& uid) {
      model_.ForgetDeletedBindRequest(key, uid);
    });
    model_.set_podgroup_overlay([this](std::shared_ptr<const api::PodGroup> pg) {
      return updates_.Overlay(std::move(pg));
    });
  }

  void Load(const std::string& yaml) {
    auto objects = LoadObjects(yaml);
    ASSERT_TRUE(objects.ok()) << objects.status();
    model_.AddAll(*objects);
  }

  // As the live scheduler: BindRequests in doubt are read back, then the snapshot is taken.
  CycleResult Cycle() {
    sink_.ResolveInDoubtBindRequests();
    SchedulingCycle cycle(conf_, params_, &sink_, &clock_, &random_);
    std::vector<std::string> warnings;
    CycleResult r = cycle.Run(model_.Snapshot(params_, &warnings));
    model_.Recycle(std::move(r.used_snapshot));  // as the live scheduler
    for (auto& w : warnings) r.warnings.push_back(std::move(w));
    return r;
  }

  ClusterModel& model() { return model_; }
  FakeSchedulerWriter& writer() { return writer_; }
  GatedSchedulerWriter& gate() { return gate_; }
  StatusUpdateQueue& updates() { return updates_; }
  OutputSink& sink() { return sink_; }
  FakeClock& clock() { return clock_; }
  SchedulerConfiguration& conf() { return conf_; }

 private:
  SchedulerParams params_;
  SchedulerConfiguration conf_;
  FakeClock clock_;
  SeededRandom random_;
  FakeSchedulerWriter writer_;
  GatedSchedulerWriter gate_;
  StatusUpdateQueue updates_;
  OutputSink sink_;
  ClusterModel model_;
};

}  // namespace kai::scheduler::outputs_testing
