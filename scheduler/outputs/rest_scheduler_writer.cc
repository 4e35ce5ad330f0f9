#include "scheduler/outputs/rest_scheduler_writer.h"

#include "api/podgroup.h"
#include "api/rapidjson_util.h"
#include "kube/rest/resource.h"

namespace kai::scheduler {

namespace {

const kube::GroupVersionResource& Pods() {
  static const auto* gvr = new kube::GroupVersionResource{"", "v1", "pods"};
  return *gvr;
}

// metadata.resourceVersion of an API answer ("" when absent).
std::string ResourceVersionOf(std::string_view json) {
  auto doc = api::ParseJsonDocument(json);
  if (!doc.ok()) return "";
  const rapidjson::Value* meta = api::FindMember(*doc, "metadata");
  if (meta == nullptr) return "";
  const rapidjson::Value* rv = api::FindMember(*meta, "resourceVersion");
  return rv != nullptr && rv->IsString() ? rv->GetString() : "";
}

}  // namespace

StatusOr<api::BindRequest> RestSchedulerWriter::CreateBindRequest(const api::BindRequest& br) {
  KAI_ASSIGN_OR_RETURN(std::string created,
                       client_->Create(kube::GvrOf<api::BindRequest>(), br.metadata.namespace_,
                                       api::EncodeJson(br)));
  return api::Decode<api::BindRequest>(created);
}

StatusOr<api::BindRequest> RestSchedulerWriter::GetBindRequest(const std::string& ns,
                                                               const std::string& name) {
  KAI_ASSIGN_OR_RETURN(std::string got, client_->Get(kube::GvrOf<api::BindRequest>(), ns, name));
  return api::Decode<api::BindRequest>(got);
}

Status RestSchedulerWriter::DeleteBindRequest(const std::string& ns, const std::string& name,
                                              const std::string& uid) {
  kube::DeleteOptions o;
  o.precondition_uid = uid;
  return client_->Delete(kube::GvrOf<api::BindRequest>(), ns, name, o).status();
}

Status RestSchedulerWriter::DeletePod(const std::string& ns, const std::string& name,
                                      const std::string& uid) {
  kube::DeleteOptions o;
  o.precondition_uid = uid;
  return client_->Delete(Pods(), ns, name, o).status();
}

Status RestSchedulerWriter::PatchPod(const std::string& ns, const std::string& name,
                                     std::string_view patch) {
  return client_->Patch(Pods(), ns, name, kube::PatchType::kStrategicMerge, patch).status();
}

Status RestSchedulerWriter::PatchPodStatus(const std::string& ns, const std::string& name,
                                           std::string_view patch) {
  kube::PatchOptions o;
  o.subresource = "status";
  return client_->Patch(Pods(), ns, name, kube::PatchType::kStrategicMerge, patch, o).status();
}

StatusOr<std::string> RestSchedulerWriter::PatchPodGroup(const std::string& ns,
                                                         const std::string& name,
                                                         const std::string& uid,
                                                         std::string_view patch) {
  KAI_ASSIGN_OR_RETURN(
      std::string out,
      kube::PatchJsonWithUid(*client_, kube::GvrOf<api::PodGroup>(), ns, name, uid, patch));
  return ResourceVersionOf(out);
}

StatusOr<std::string> RestSchedulerWriter::PatchPodGroupStatus(const std::string& ns,
                                                               const std::string& name,
                                                               const std::string& uid,
                                                               std::string_view patch) {
  kube::PatchOptions o;
  o.subresource = "status";
  KAI_ASSIGN_OR_RETURN(
      std::string out,
      kube::PatchJsonWithUid(*client_, kube::GvrOf<api::PodGroup>(), ns, name, uid, patch, o));
  return ResourceVersionOf(out);
}

}  // namespace kai::scheduler
