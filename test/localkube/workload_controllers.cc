#include "test/localkube/workload_controllers.h"

#include "test/localkube/deployment_controller.h"
#include "test/localkube/job_controller.h"
#include "test/localkube/replicaset_controller.h"
#include "test/localkube/store.h"

namespace kai::localkube {

WorkloadControllers::WorkloadControllers(Store* store, Duration resync_period,
                                         Duration job_pod_batch_period)
    : resync_period_(resync_period),
      pods_(store, kPodsResource),
      replicasets_(store, kReplicaSetsResource),
      deployments_(store, kDeploymentsResource),
      jobs_(store, kJobsResource),
      resync_("controller-manager-resync", store->clock(), [this](const std::string&) {
        for (ObjectCache* c : {&deployments_, &replicasets_, &jobs_, &pods_}) {
          c->Resync().IgnoreError();
        }
        resync_.AddAfter("resync", resync_period_);
        return Status::OK();
      }) {
  ControllerContext ctx;
  ctx.store = store;
  ctx.clock = store->clock();
  ctx.pods = &pods_;
  ctx.replicasets = &replicasets_;
  ctx.deployments = &deployments_;
  ctx.jobs = &jobs_;
  replicaset_ = std::make_unique<ReplicaSetController>(ctx);
  deployment_ = std::make_unique<DeploymentController>(ctx);
  job_ = std::make_unique<JobController>(ctx, job_pod_batch_period);
  pods_.AddIndex("controller", &ObjectCache::ControllerUidIndex);
  replicasets_.AddIndex("controller", &ObjectCache::ControllerUidIndex);
  pods_.AddHandler([this](const ObjectPtr& old, const ObjectPtr& now) {
    replicaset_->OnPod(old, now);
    deployment_->OnPod(old, now);
    job_->OnPod(old, now);
  });
  replicasets_.AddHandler([this](const ObjectPtr& old, const ObjectPtr& now) {
    replicaset_->OnReplicaSet(old, now);
    deployment_->OnReplicaSet(old, now);
  });
  deployments_.AddHandler(
      [this](const ObjectPtr& old, const ObjectPtr& now) { deployment_->OnDeployment(old, now); });
  jobs_.AddHandler([this](const ObjectPtr& old, const ObjectPtr& now) { job_->OnJob(old, now); });
}

WorkloadControllers::~WorkloadControllers() { Stop(); }

Status WorkloadControllers::Start() {
  // Caches first (their initial lists queue every object), then the workers.
  for (ObjectCache* c : {&pods_, &replicasets_, &deployments_, &jobs_}) {
    KAI_RETURN_IF_ERROR(c->Start());
  }
  replicaset_->Start();
  deployment_->Start();
  job_->Start();
  resync_.Start();
  resync_.AddAfter("resync", resync_period_);
  return Status::OK();
}

void WorkloadControllers::Stop() {
  for (ObjectCache* c : {&pods_, &replicasets_, &deployments_, &jobs_}) c->Stop();
  resync_.Stop();
  if (replicaset_) replicaset_->Stop();
  if (deployment_) deployment_->Stop();
  if (job_) job_->Stop();
}

void WorkloadControllers::WaitIdle() {
  for (;;) {
    const uint64_t before = reconciled();
    replicaset_->loop().WaitIdle();
    deployment_->loop().WaitIdle();
    job_->loop().WaitIdle();
    if (before == reconciled()) return;
  }
}

uint64_t WorkloadControllers::reconciled() const {
  return replicaset_->loop().processed() + deployment_->loop().processed() +
         job_->loop().processed();
}

}  // namespace kai::localkube
