#!/usr/bin/env python3
"""Writes crds/*.yaml: the six KAI CustomResourceDefinitions (apiextensions.k8s.io/v1).

The field sets follow the KAI reference's CRD tables (shared/reference/kai-reference.md section 2)
so that objects written for upstream KAI apply unchanged; the schemas are composed here from small
building blocks (Kubernetes core types such as Affinity, Toleration, ResourceRequirements) so that
every manifest stays structural and consistent.

  hack/gen_crds.py           rewrite crds/*.yaml
  hack/gen_crds.py --check   exit 1 if crds/ differs from what this script generates

Only the standard library is used (the machine may have no PyYAML); the YAML emitter below quotes
scalars the way go-yaml v2 (kubectl) needs them.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "crds")

# ---------------------------------------------------------------------------------------------
# Schema building blocks
# ---------------------------------------------------------------------------------------------


def obj(props=None, desc=None, required=None, **extra):
    s = {"type": "object"}
    if desc:
        s["description"] = desc
    if props is not None:
        s["properties"] = props
    if required:
        s["required"] = required
    s.update(extra)
    return s


def string(desc=None, **extra):
    s = {"type": "string"}
    if desc:
        s["description"] = desc
    s.update(extra)
    return s


def integer(desc=None, fmt=None, **extra):
    s = {"type": "integer"}
    if fmt:
        s["format"] = fmt
    if desc:
        s["description"] = desc
    s.update(extra)
    return s


def int32(desc=None, **extra):
    return integer(desc, "int32", **extra)


def int64(desc=None, **extra):
    return integer(desc, "int64", **extra)


def number(desc=None, **extra):
    s = {"type": "number"}
    if desc:
        s["description"] = desc
    s.update(extra)
    return s


def boolean(desc=None, **extra):
    s = {"type": "boolean"}
    if desc:
        s["description"] = desc
    s.update(extra)
    return s


def array(items, desc=None, **extra):
    s = {"type": "array", "items": items}
    if desc:
        s["description"] = desc
    s.update(extra)
    return s


def string_map(desc=None):
    s = {"type": "object", "additionalProperties": {"type": "string"}}
    if desc:
        s["description"] = desc
    return s


def date_time(desc=None):
    return string(desc, format="date-time")


# Go time.ParseDuration syntax (metav1.Duration): "90s", "1h30m", "0".
DURATION_PATTERN = r"^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$"


def duration(desc):
    return string(desc + " A Go duration such as 30s, 5m or 1h30m.", pattern=DURATION_PATTERN)


QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")


def quantity():
    return {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "pattern": QUANTITY_PATTERN,
        "x-kubernetes-int-or-string": True,
    }


def resource_list(desc=None):
    s = {"type": "object", "additionalProperties": quantity()}
    if desc:
        s["description"] = desc
    return s


# Label-key syntax (a qualified name with an optional DNS-subdomain prefix).
LABEL_KEY_PATTERN = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                     r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")


def port(desc):
    return integer(desc, minimum=1, maximum=65535)


def replicas(desc):
    return int32(desc, minimum=0)


def core(schema):
    """Marks a Kubernetes core type: its inner descriptions are dropped when rendering, since
    `kubectl explain` on the core type documents them and the Config CRD would otherwise exceed
    the 256 KiB that client-side `kubectl apply` can store in its last-applied annotation."""
    schema["_core"] = True
    return schema


def finalize(schema, inside_core=False):
    """Strips the core markers (and the descriptions below a core type's root)."""
    if isinstance(schema, dict):
        is_core = schema.pop("_core", False)
        out = {}
        for k, v in schema.items():
            if k == "description" and inside_core:
                continue
            child_core = inside_core or is_core
            if k in ("properties",):
                out[k] = {name: finalize(sub, child_core) for name, sub in v.items()}
            elif isinstance(v, (dict, list)):
                out[k] = finalize(v, child_core)
            else:
                out[k] = v
        return out
    if isinstance(schema, list):
        return [finalize(x, inside_core) for x in schema]
    return schema


# ---- Kubernetes core/v1 and meta/v1 types (the subset of fields a Deployment's pod uses) ----


def node_selector_requirement():
    return obj({
        "key": string("The label key that the selector applies to."),
        "operator": string("One of In, NotIn, Exists, DoesNotExist, Gt, Lt."),
        "values": array(string(), "Values for In/NotIn (one or more), Gt/Lt (exactly one).",
                        **{"x-kubernetes-list-type": "atomic"}),
    }, "A node selector requirement.", required=["key", "operator"])


def node_selector_term():
    return obj({
        "matchExpressions": array(node_selector_requirement(), "Requirements on node labels.",
                                  **{"x-kubernetes-list-type": "atomic"}),
        "matchFields": array(node_selector_requirement(), "Requirements on node fields.",
                             **{"x-kubernetes-list-type": "atomic"}),
    }, "Node selector requirements, ANDed.", **{"x-kubernetes-map-type": "atomic"})


def node_selector(desc):
    return core(obj({
        "nodeSelectorTerms": array(node_selector_term(), "Node selector terms, ORed.",
                                   **{"x-kubernetes-list-type": "atomic"}),
    }, desc, required=["nodeSelectorTerms"], **{"x-kubernetes-map-type": "atomic"}))


def label_selector(desc):
    return core(obj({
        "matchExpressions": array(obj({
            "key": string("The label key that the selector applies to."),
            "operator": string("One of In, NotIn, Exists, DoesNotExist."),
            "values": array(string(), "Values for In/NotIn.",
                            **{"x-kubernetes-list-type": "atomic"}),
        }, "A label selector requirement.", required=["key", "operator"]),
            "Label selector requirements, ANDed.", **{"x-kubernetes-list-type": "atomic"}),
        "matchLabels": string_map("Labels that must all match."),
    }, desc, **{"x-kubernetes-map-type": "atomic"}))


def pod_affinity_term():
    return obj({
        "labelSelector": label_selector("Pods this term applies to."),
        "namespaceSelector": label_selector("Namespaces this term applies to."),
        "namespaces": array(string(), "Namespaces this term applies to.",
                            **{"x-kubernetes-list-type": "atomic"}),
        "topologyKey": string("Node label key that defines co-location."),
        "matchLabelKeys": array(string(), "Pod label keys merged into labelSelector (In).",
                                **{"x-kubernetes-list-type": "atomic"}),
        "mismatchLabelKeys": array(string(), "Pod label keys merged into labelSelector (NotIn).",
                                   **{"x-kubernetes-list-type": "atomic"}),
    }, "A set of pods to be co-located with (or not).", required=["topologyKey"])


def weighted_pod_affinity_term():
    return obj({
        "podAffinityTerm": pod_affinity_term(),
        "weight": int32("Weight in the range 1-100."),
    }, "A pod affinity term with a weight.", required=["podAffinityTerm", "weight"])


def pod_affinity(desc):
    return obj({
        "preferredDuringSchedulingIgnoredDuringExecution": array(
            weighted_pod_affinity_term(), "Soft terms.", **{"x-kubernetes-list-type": "atomic"}),
        "requiredDuringSchedulingIgnoredDuringExecution": array(
            pod_affinity_term(), "Hard terms.", **{"x-kubernetes-list-type": "atomic"}),
    }, desc)


def affinity(desc):
    return core(obj({
        "nodeAffinity": obj({
            "preferredDuringSchedulingIgnoredDuringExecution": array(obj({
                "preference": node_selector_term(),
                "weight": int32("Weight in the range 1-100."),
            }, "A node selector term with a weight.", required=["preference", "weight"]),
                "Soft node affinity terms.", **{"x-kubernetes-list-type": "atomic"}),
            "requiredDuringSchedulingIgnoredDuringExecution": node_selector(
                "Hard node affinity."),
        }, "Node affinity rules."),
        "podAffinity": pod_affinity("Pod affinity rules."),
        "podAntiAffinity": pod_affinity("Pod anti-affinity rules."),
    }, desc))


def toleration():
    return obj({
        "effect": string("NoSchedule, PreferNoSchedule or NoExecute; empty matches all."),
        "key": string("Taint key; empty with operator Exists matches all taints."),
        "operator": string("Exists or Equal (the default)."),
        "tolerationSeconds": int64("How long a NoExecute taint is tolerated."),
        "value": string("Taint value for operator Equal."),
    }, "A toleration of a node taint.")


def tolerations(desc):
    return core(array(toleration(), desc))


def security_context(desc):
    return core(obj({
        "allowPrivilegeEscalation": boolean("Whether a process can gain more privileges."),
        "appArmorProfile": obj({
            "localhostProfile": string("Profile loaded on the node (type Localhost)."),
            "type": string("Localhost, RuntimeDefault or Unconfined."),
        }, "AppArmor options.", required=["type"]),
        "capabilities": obj({
            "add": array(string(), "Added capabilities.", **{"x-kubernetes-list-type": "atomic"}),
            "drop": array(string(), "Dropped capabilities.",
                          **{"x-kubernetes-list-type": "atomic"}),
        }, "POSIX capabilities to add or drop."),
        "privileged": boolean("Run the container in privileged mode."),
        "procMount": string("Default or Unmasked."),
        "readOnlyRootFilesystem": boolean("Mount the root filesystem read-only."),
        "runAsGroup": int64("GID of the container process."),
        "runAsNonRoot": boolean("Require a non-root user."),
        "runAsUser": int64("UID of the container process."),
        "seLinuxOptions": obj({
            "level": string("SELinux level."),
            "role": string("SELinux role."),
            "type": string("SELinux type."),
            "user": string("SELinux user."),
        }, "SELinux context."),
        "seccompProfile": obj({
            "localhostProfile": string("Profile file on the node (type Localhost)."),
            "type": string("Localhost, RuntimeDefault or Unconfined."),
        }, "Seccomp options.", required=["type"]),
        "windowsOptions": obj({
            "gmsaCredentialSpec": string("Inlined GMSA credential spec."),
            "gmsaCredentialSpecName": string("Name of the GMSA credential spec."),
            "hostProcess": boolean("Run as a Windows host process."),
            "runAsUserName": string("Windows user name."),
        }, "Windows-specific settings."),
    }, desc))


def resource_requirements(desc):
    return core(obj({
        "claims": array(obj({
            "name": string("Name of an entry of pod.spec.resourceClaims."),
            "request": string("Name of a request in that claim."),
        }, "A resource claim used by the container.", required=["name"]),
            "DRA claims used by the container.",
            **{"x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map"}),
        "limits": resource_list("Maximum amounts of compute resources."),
        "requests": resource_list("Minimum amounts of compute resources."),
    }, desc))


def metav1_condition():
    """metav1.Condition with the validation upstream types carry."""
    return obj({
        "lastTransitionTime": date_time("When the condition last changed status."),
        "message": string("Human-readable details.", maxLength=32768),
        "observedGeneration": int64("The .metadata.generation the condition was set for.",
                                    minimum=0),
        "reason": string("Programmatic CamelCase reason.", maxLength=1024, minLength=1,
                         pattern=r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"),
        "status": string("True, False or Unknown.", enum=["True", "False", "Unknown"]),
        "type": string("Condition type in CamelCase or foo.example.com/CamelCase.",
                       maxLength=316, pattern=LABEL_KEY_PATTERN),
    }, "One aspect of the current state of the object.",
        required=["lastTransitionTime", "message", "reason", "status", "type"])


def root(spec, status=None, desc=None, required=None):
    props = {
        "apiVersion": string("Versioned schema of this representation of an object."),
        "kind": string("The REST resource this object represents, in CamelCase."),
        "metadata": {"type": "object"},
        "spec": spec,
    }
    if status is not None:
        props["status"] = status
    return obj(props, desc, required=required)


# ---------------------------------------------------------------------------------------------
# scheduling.run.ai/v2 Queue
# ---------------------------------------------------------------------------------------------


def queue_resource(desc):
    return obj({
        "limit": number("Hard cap. -1 means unlimited; 0 or unset allows nothing of this "
                        "resource (always set it explicitly)."),
        "overQuotaWeight": number("Weight when dividing resources left after quotas. 0 gives "
                                  "no over-quota share."),
        "quota": number("Deserved (guaranteed) amount. -1 means the queue deserves everything; "
                        "0 or unset means no guarantee."),
    }, desc)


def queue_crd():
    spec = obj({
        "displayName": string("Human name used in logs, messages and metrics."),
        "parentQueue": string("Name of the parent Queue; empty for a top-level queue."),
        "preemptMinRuntime": duration("Minimum runtime of a job in this queue before it may be "
                                      "preempted."),
        "priority": integer("Queue priority (default 100 when unset): over-quota resources go "
                            "first to higher priorities, which are also considered first for "
                            "allocation and last for reclaim."),
        "reclaimMinRuntime": duration("Minimum runtime of a job in this queue before it may be "
                                      "reclaimed."),
        "resources": obj({
            "cpu": queue_resource("CPU in millicores (1000 = 1 CPU)."),
            "gpu": queue_resource("GPUs in devices; fractions allowed (0.5 = half a GPU)."),
            "memory": queue_resource("Memory in megabytes (1 = 10^6 bytes)."),
        }, "Quota, over-quota weight and limit per resource. Required by the queue admission "
           "webhook."),
    }, "The desired state of a Queue.")
    status = obj({
        "allocated": resource_list("Resources allocated to running and scheduled jobs of this "
                                   "queue and its children."),
        "allocatedNonPreemptible": resource_list("The non-preemptible part of allocated."),
        "childQueues": array(string(), "Queues whose parentQueue is this queue."),
        "conditions": array(obj({
            "lastProbeTime": date_time("When the condition was last probed."),
            "lastTransitionTime": date_time("When the condition last changed status."),
            "message": string("Human-readable details."),
            "reason": string("One-word CamelCase reason."),
            "status": string("True, False or Unknown."),
            "type": string("Condition type."),
        }, "A queue condition.", required=["status", "type"]), "Current conditions."),
        "requested": resource_list("Resources requested by running and pending jobs of this "
                                   "queue and its children."),
    }, "The observed state of a Queue, written by the queue controller.")
    return crd(
        group="scheduling.run.ai", kind="Queue", plural="queues", singular="queue",
        scope="Cluster", version="v2",
        schema=root(spec, status, "A KAI scheduling queue: quota, priority and limits for the "
                                  "jobs submitted to it."),
        columns=[
            col("Priority", "string", ".spec.priority"),
            col("Parent", "string", ".spec.parentQueue"),
            col("Children", "string", ".status.childQueues"),
            col("DisplayName", "string", ".spec.displayName"),
            col("Age", "date", ".metadata.creationTimestamp"),
        ])


# ---------------------------------------------------------------------------------------------
# scheduling.run.ai/v2alpha2 PodGroup
# ---------------------------------------------------------------------------------------------


def topology_constraint(desc):
    return obj({
        "preferredTopologyLevel": string("Topology level (node label key) the scheduler tries "
                                         "to keep the pods within."),
        "requiredTopologyLevel": string("Topology level (node label key) all pods must share."),
        "topology": string("Name of the Topology object describing the levels."),
    }, desc)


def podgroup_crd():
    spec = obj({
        "backoffLimit": int32("Informational; not used by the scheduler."),
        "completions": int32("Informational (copied from the workload)."),
        "markUnschedulable": boolean("Set PodScheduled=False/Unschedulable on pods that cannot "
                                     "be placed (true when unset)."),
        "minMember": int32("Gang size: the minimum number of pods that must be scheduled "
                           "together. Used only when subGroups is empty.", minimum=1),
        "parallelism": int32("Informational (copied from the workload)."),
        "preemptibility": string("Explicit preemptibility; when unset, jobs with priority below "
                                 "100 are preemptible.",
                                 enum=["preemptible", "non-preemptible"]),
        "priorityClassName": string("Name of the PriorityClass giving the job its priority."),
        "queue": string("Name of the leaf Queue the job is submitted to."),
        "schedulingBackoff": int32("-1 (unset): retry every cycle; 1: try once per node pool."),
        "subGroups": array(obj({
            "minMember": int32("Gang size of this subgroup (a leaf needs at least one pod; 0 is "
                               "allowed for subgroups whose size can be zero, e.g. the workers "
                               "of a one-pod LeaderWorkerSet).", minimum=0),
            "name": string("Subgroup name, unique within the PodGroup.", minLength=1),
            "parent": string("Name of the parent subgroup; empty for a top-level subgroup."),
            "topologyConstraint": topology_constraint("Topology constraint of this subgroup."),
        }, "A subgroup of the gang.", required=["name"]),
            "Hierarchical gang definition. Names must be unique, parents must exist and the "
            "parent graph must be acyclic (checked by the PodGroup admission webhook)."),
        "topologyConstraint": topology_constraint("Topology constraint of the whole group."),
    }, "The desired state of a PodGroup.")
    queue_details = obj({
        "name": string("Queue name."),
        "podGroupRequestedNonPreemptibleResources": resource_list(
            "Non-preemptible resources requested by the group."),
        "podGroupRequestedResources": resource_list("Resources requested by the group's minimum."),
        "queueAllocatedNonPreemptibleResources": resource_list(
            "Non-preemptible resources allocated in the queue."),
        "queueAllocatedResources": resource_list("Resources allocated in the queue."),
        "queueDeservedResources": resource_list("The queue's deserved resources."),
        "queueRequestedResources": resource_list("Resources requested in the queue."),
        "queueResourceLimits": resource_list("The queue's limits."),
    }, "Queue figures at the time of the decision (queue-capacity reasons).")
    status = obj({
        "conditions": array(obj({
            "lastTransitionTime": date_time("When the condition last changed."),
            "message": string("Human-readable details."),
            "reason": string("One-word CamelCase reason."),
            "status": string("Status of the condition."),
            "transitionID": string("ID of the transition."),
            "type": string("Condition type."),
        }, "A PodGroup condition (legacy)."), "Legacy conditions."),
        "failed": int32("Legacy counter of failed pods."),
        "pending": int32("Legacy counter of pending pods."),
        "phase": string("Legacy phase."),
        "resourcesStatus": obj({
            "allocated": resource_list("Resources allocated to the group's pods."),
            "allocatedNonPreemptible": resource_list("The non-preemptible part of allocated."),
            "requested": resource_list("Resources requested by the group's pods."),
        }, "Resource usage, written by the podgroup controller."),
        "running": int32("Legacy counter of running pods."),
        "schedulingConditions": array(obj({
            "lastTransitionTime": date_time("When the condition last changed."),
            "message": string("Joined explanation (deprecated: use reasons)."),
            "nodePool": string("Node pool (shard) the condition applies to."),
            "reason": string("Reason (deprecated: use reasons)."),
            "reasons": array(obj({
                "details": obj({"queueDetails": queue_details},
                               "Structured details of the reason."),
                "message": string("Human-readable explanation."),
                "reason": string("NonPreemptibleOverQuota, OverLimit, QueueDoesNotExist, "
                                 "PodSchedulingErrors or OverCapacity."),
            }, "Why the group is unschedulable."), "Reasons the group is unschedulable."),
            "status": string("Status of the condition."),
            "transitionID": string("Incrementing ID of the transition."),
            "type": string("UnschedulableOnNodePool."),
        }, "A scheduling condition per node pool."), "Scheduling conditions, written by the "
           "scheduler."),
        "succeeded": int32("Legacy counter of succeeded pods."),
    }, "The observed state of a PodGroup.")
    return crd(group="scheduling.run.ai", kind="PodGroup", plural="podgroups",
               singular="podgroup", scope="Namespaced", version="v2alpha2", short_names=["pg"],
               schema=root(spec, status, "A gang of pods scheduled together by KAI."))


# ---------------------------------------------------------------------------------------------
# scheduling.run.ai/v1alpha2 BindRequest
# ---------------------------------------------------------------------------------------------


def allocation_result():
    """resource.k8s.io/v1 AllocationResult (the DRA allocator's output)."""
    return obj({
        "allocationTimestamp": date_time("When the resources were allocated."),
        "devices": obj({
            "config": array(obj({
                "opaque": obj({
                    "driver": string("Driver the parameters are for."),
                    "parameters": {"type": "object", "description": "Driver-specific parameters.",
                                   "x-kubernetes-preserve-unknown-fields": True},
                }, "Driver-specific configuration.", required=["driver", "parameters"]),
                "requests": array(string(), "Requests the configuration applies to (all when "
                                  "empty).", **{"x-kubernetes-list-type": "atomic"}),
                "source": string("FromClass or FromClaim."),
            }, "Configuration of allocated devices.", required=["source"]),
                "Configuration parameters of the claim and its class.",
                **{"x-kubernetes-list-type": "atomic"}),
            "results": array(obj({
                "adminAccess": boolean("Allocated for administrative access."),
                "bindingConditions": array(string(), "Conditions copied from the "
                                           "ResourceSlice.", **{"x-kubernetes-list-type": "atomic"}),
                "bindingFailureConditions": array(string(), "Failure conditions copied from the "
                                                  "ResourceSlice.",
                                                  **{"x-kubernetes-list-type": "atomic"}),
                "consumedCapacity": resource_list("Capacity consumed per device."),
                "device": string("Device name within the pool."),
                "driver": string("DRA driver name."),
                "pool": string("Resource pool of the device."),
                "request": string("Request of the claim this device satisfies."),
                "shareID": string("ID of this share of a shareable device."),
                "tolerations": array(obj({
                    "effect": string("NoSchedule or NoExecute; empty matches all."),
                    "key": string("Taint key."),
                    "operator": string("Exists or Equal.", default="Equal"),
                    "tolerationSeconds": int64("How long a NoExecute taint is tolerated."),
                    "value": string("Taint value."),
                }, "A device taint toleration."), "Tolerations copied from the request.",
                    **{"x-kubernetes-list-type": "atomic"}),
            }, "One allocated device.", required=["device", "driver", "pool", "request"]),
                "Allocated devices.", **{"x-kubernetes-list-type": "atomic"}),
        }, "The allocated devices."),
        "nodeSelector": node_selector("Nodes where the allocated resources are available."),
    }, "The allocation to write into the ResourceClaim's status.")


def bindrequest_crd():
    spec = obj({
        "backoffLimit": int32("Failed attempts allowed before the request fails for good "
                              "(unset: one attempt)."),
        "podName": string("Pod to bind, in the BindRequest's namespace."),
        "receivedGPU": obj({
            "count": integer("Number of GPU devices."),
            "portion": string("Portion of each device, two decimals (\"0.50\", \"1.00\")."),
        }, "GPUs granted to the pod."),
        "receivedResourceType": string("Regular, Fraction or MigInstance."),
        "resourceClaimAllocations": array(obj({
            "allocation": allocation_result(),
            "name": string("Claim name as referenced in the pod spec."),
        }, "A DRA claim allocation."), "DRA claims to allocate before binding."),
        "selectedGPUGroups": array(string(), "GPU-sharing group ids (one per device)."),
        "selectedNode": string("Node the pod is bound to."),
    }, "The binding decision made by the scheduler.")
    status = obj({
        "failedAttempts": int32("Number of failed bind attempts."),
        "phase": string("Pending, Succeeded or Failed."),
        "reason": string("Why the request is in this phase."),
    }, "Progress of the binding, written by the binder.")
    return crd(group="scheduling.run.ai", kind="BindRequest", plural="bindrequests",
               singular="bindrequest", scope="Namespaced", version="v1alpha2",
               schema=root(spec, status, "A scheduling decision for one pod, carried out by the "
                                         "KAI binder."))


# ---------------------------------------------------------------------------------------------
# kai.scheduler/v1 Config
# ---------------------------------------------------------------------------------------------


def image(desc):
    return obj({
        "name": string("Image name."),
        "pullPolicy": string("Always, IfNotPresent (default) or Never."),
        "repository": string("Registry/repository prefix (default: the operator's)."),
        "tag": string("Image tag (default: the operator's)."),
    }, desc)


def k8s_client_config():
    return obj({
        "burst": integer("Client burst (default 100).", minimum=0),
        "qps": integer("Client QPS (default 20).", minimum=0),
    }, "Kubernetes API client rate limits.")


def service(desc="Deployment settings of this operand."):
    return obj({
        "affinity": affinity("Affinity of the operand's pods (overrides global.affinity)."),
        "enabled": boolean("Deploy this operand."),
        "image": image("Image of the operand."),
        "k8sClientConfig": k8s_client_config(),
        "resources": resource_requirements("Resources of the operand's container."),
    }, desc)


def port_mapping(desc):
    return obj({
        "name": string("Port name."),
        "port": port("Service port."),
        "targetPort": port("Container port."),
    }, desc)


def controller_webhooks(desc):
    return obj({
        "enableValidation": boolean("Deploy the validating webhook (default true)."),
        "webhookConfigurationNamePrefix": string("Prefix of the webhook configuration name."),
    }, desc)


def config_crd():
    global_cfg = obj({
        "additionalImagePullSecrets": array(string(), "Extra image pull secrets for every "
                                            "operand."),
        "affinity": affinity("Affinity of every operand (the operator adds a default pod "
                             "anti-affinity)."),
        "daemonsetsTolerations": tolerations("Extra tolerations for daemonsets."),
        "imagesPullSecret": string("Deprecated single pull secret (as the Helm chart writes "
                                   "it); merged into additionalImagePullSecrets."),
        "namespaceLabelSelector": string_map("Only namespaces with these labels are handled by "
                                             "the webhooks and the pod grouper."),
        "nodePoolLabelKey": string("Node label that assigns nodes to shards (default "
                                   "kai.scheduler/node-pool)."),
        "nodeSelector": string_map("Node selector of every operand."),
        "openshift": boolean("Install on OpenShift (no default security context)."),
        "podLabelSelector": string_map("Only pods with these labels are handled."),
        "queueLabelKey": string("Pod/workload label naming the queue (default "
                                "kai.scheduler/queue)."),
        "replicaCount": replicas("Replicas of operands without their own setting (default 1)."),
        "requireDefaultPodAntiAffinityTerm": boolean("Make the default pod anti-affinity "
                                                     "required instead of preferred."),
        "schedulerName": string("Scheduler name pods must set in spec.schedulerName (default "
                                "kai-scheduler)."),
        "securityContext": security_context("Security context of every operand container."),
        "tolerations": tolerations("Tolerations of every operand."),
    }, "Settings shared by all operands.")
    pod_grouper = obj({
        "args": obj({
            "defaultPrioritiesConfigMapName": string("ConfigMap with per-kind default priority "
                                                     "classes."),
            "defaultPrioritiesConfigMapNamespace": string("Namespace of that ConfigMap."),
            "gangScheduleKnative": boolean("Gang-schedule Knative revisions (default true)."),
        }, "Pod grouper flags."),
        "maxConcurrentReconciles": integer("Concurrent reconcile workers.", minimum=1),
        "replicas": replicas("Replicas."),
        "service": service(),
    }, "The pod grouper.")
    binder = obj({
        "cdiEnabled": boolean("The GPU device plugin uses CDI; unset: detected from the NVIDIA "
                              "GPU operator's ClusterPolicy."),
        "maxConcurrentReconciles": integer("Concurrent reconcile workers.", minimum=1),
        "metricsPort": port("Metrics port (default 8080)."),
        "probePort": port("Health probe port (default 8081)."),
        "replicas": replicas("Replicas."),
        "resourceReservation": obj({
            "allocationTimeout": integer("Seconds to wait for a reservation pod to get its "
                                         "GPU.", minimum=0),
            "appLabel": string("Value of the app label of reservation pods (default "
                               "kai-resource-reservation)."),
            "image": image("Reservation pod image (name resource-reservation)."),
            "namespace": string("Namespace of reservation pods (default "
                                "kai-resource-reservation)."),
            "podResources": resource_requirements("Resources of reservation pods."),
            "runtimeClassName": string("Runtime class of reservation pods (default nvidia)."),
            "serviceAccountName": string("Service account of reservation pods (default "
                                         "kai-resource-reservation)."),
        }, "GPU-sharing reservation pods."),
        "service": service(),
        "volumeBindingTimeoutSeconds": integer("Volume binding timeout in seconds.", minimum=0),
    }, "The binder.")
    admission = obj({
        "gpuPodRuntimeClassName": string("Runtime class set on GPU pods (default nvidia; empty "
                                         "disables)."),
        "gpuSharing": boolean("Accept fractional GPU requests (default false)."),
        "mutatingWebhookConfigurationName": string("Default mutating-kai-admission."),
        "queueLabelSelector": boolean("Only namespaces carrying the queue label are handled."),
        "replicas": replicas("Replicas."),
        "service": service(),
        "validatingWebhookConfigurationName": string("Default validating-kai-admission."),
        "webhook": obj({
            "metricsPort": port("Metrics port (default 8080)."),
            "port": port("Service port (default 443)."),
            "probePort": port("Health probe port (default 8081)."),
            "targetPort": port("Container port (default 9443)."),
        }, "Webhook ports."),
    }, "The admission webhooks.")
    scheduler = obj({
        "GOGC": integer("GOGC of the scheduler container (default 400).", minimum=-1),
        "replicas": replicas("Replicas of each shard's scheduler."),
        "schedulerService": obj({
            "port": port("Service port (default 8080)."),
            "targetPort": port("Container port (default 8080)."),
            "type": string("Service type (default ClusterIP)."),
        }, "Service of each shard's scheduler."),
        "service": service(),
    }, "The scheduler (one Deployment per SchedulingShard).")
    queue_controller = obj({
        "controllerService": obj({
            "metrics": port_mapping("Metrics port (8080/8080, name metrics)."),
            "webhook": port_mapping("Webhook port (443/9443, name webhook)."),
        }, "Service of the queue controller."),
        "metricsNamespace": string("Prefix namespace of the queue metrics."),
        "queueLabelToDefaultMetricValue": string("Default metric label values for queues "
                                                 "missing a label."),
        "queueLabelToMetricLabel": string("Queue labels exported as metric labels."),
        "replicas": replicas("Replicas."),
        "service": service(),
        "webhooks": controller_webhooks("Queue validating webhook (prefix "
                                        "kai-queue-validation-)."),
    }, "The queue controller.")
    podgroup_controller = obj({
        "controllerService": obj({
            "webhook": port_mapping("Webhook port (443/9443, name webhook)."),
        }, "Service of the podgroup controller."),
        "maxConcurrentReconciles": integer("Concurrent reconcile workers.", minimum=1),
        "replicas": replicas("Replicas."),
        "service": service(),
        "webhooks": controller_webhooks("PodGroup validating webhook (prefix "
                                        "kai-podgroup-validation-)."),
    }, "The podgroup controller.")
    node_scale_adjuster = obj({
        "args": obj({
            "gpuMemoryToFractionRatio": number("Ratio used to turn GPU-memory requests into "
                                               "fractions.", minimum=0),
            "nodeScaleNamespace": string("Namespace of scaling pods (default "
                                         "kai-scale-adjust)."),
            "nodeScaleServiceAccount": string("Service account of scaling pods (default "
                                              "kai-scale-adjust)."),
            "scalingPodImage": image("Scaling pod image (name scalingpod)."),
        }, "Node scale adjuster flags."),
        "service": service(),
    }, "The node scale adjuster (cluster autoscaling with shared GPUs).")
    prometheus = obj({
        "accountingLabelKey": string("Label selecting accounted ServiceMonitors (default "
                                     "kai.scheduler/accounting)."),
        "accountingLabelValue": string("Its value (default \"true\")."),
        "enablePersistentStorage": boolean("Use persistent storage for the TSDB."),
        "enabled": boolean("Deploy a KAI-managed Prometheus (default false)."),
        "externalPrometheusHealthProbe": obj({
            "interval": integer("Seconds between probes (default 30).", minimum=1),
            "maxRetries": integer("Retries before reporting failure (default 5).", minimum=0),
            "timeout": integer("Probe timeout in seconds (default 10).", minimum=1),
        }, "Connectivity checks of the external Prometheus."),
        "externalPrometheusUrl": string("Use this Prometheus instead of deploying one."),
        "instanceName": string("Name of the Prometheus object (default prometheus)."),
        "retentionPeriod": string("Data retention, e.g. 2w (default)."),
        "sampleInterval": string("Scrape interval, e.g. 1m (default)."),
        "serviceMonitor": obj({
            "bearerTokenFile": string("Bearer token file used for scraping."),
            "enabled": boolean("Create ServiceMonitors (default true)."),
            "interval": string("Scrape interval (default 30s)."),
            "scrapeTimeout": string("Scrape timeout (default 10s)."),
        }, "ServiceMonitors for KAI services."),
        "storageClassName": string("Storage class of the TSDB (default standard)."),
        "storageSize": string("TSDB volume size (50Gi when unset)."),
    }, "Prometheus for time-based fair share.")
    spec = obj({
        "admission": admission,
        "binder": binder,
        "global": global_cfg,
        "namespace": string("Namespace the operands are deployed in (default kai-scheduler)."),
        "nodeScaleAdjuster": node_scale_adjuster,
        "podGroupController": podgroup_controller,
        "podGrouper": pod_grouper,
        "prometheus": prometheus,
        "queueController": queue_controller,
        "scheduler": scheduler,
    }, "The desired KAI installation. Unset fields take the operator's defaults.")
    status = obj({
        "conditions": array(metav1_condition(), "Reconciling, Deployed, Available, "
                            "DependenciesFulfilled and Ready."),
    }, "The operator's view of the installation.")
    return crd(group="kai.scheduler", kind="Config", plural="configs", singular="config",
               scope="Cluster", version="v1",
               schema=root(spec, status, "The KAI installation, reconciled by the KAI operator. "
                                         "Only the object named kai-config is used."))


# ---------------------------------------------------------------------------------------------
# kai.scheduler/v1 SchedulingShard
# ---------------------------------------------------------------------------------------------


def schedulingshard_crd():
    spec = obj({
        "actions": {
            "type": "object",
            "description": "Overrides of the built-in actions (allocate 500, consolidation 400, "
                           "reclaim 300, preempt 200, stalegangeviction 100) by name; new names "
                           "add actions.",
            "additionalProperties": obj({
                "enabled": boolean("Whether the action runs (default true)."),
                "priority": integer("Order: higher runs first."),
            }, "Overrides of one action."),
        },
        "args": {
            "type": "object",
            "description": "Extra scheduler flags (name without -- to value); they override the "
                           "operator's. Unknown names are ignored.",
            "additionalProperties": {"type": "string"},
        },
        "kValue": number("Sensitivity of time-based fair share to historical usage "
                         "(proportion plugin kValue)."),
        "minRuntime": obj({
            "preemptMinRuntime": duration("Default minimum runtime before a job may be "
                                          "preempted."),
            "reclaimMinRuntime": duration("Default minimum runtime before a job may be "
                                          "reclaimed."),
        }, "Default minimum runtimes (minruntime plugin)."),
        "partitionLabelValue": string("Node-pool label value of the nodes this shard "
                                      "schedules; empty for nodes without the label."),
        "placementStrategy": obj({
            "cpu": string("binpack (default) or spread.", enum=["binpack", "spread"]),
            "gpu": string("binpack (default) or spread.", enum=["binpack", "spread"]),
        }, "Node placement strategy per resource."),
        "plugins": {
            "type": "object",
            "description": "Overrides of the built-in plugins by name; new names add plugins.",
            "additionalProperties": obj({
                "arguments": {
                    "type": "object",
                    "description": "Plugin arguments; they replace the built-in ones.",
                    "additionalProperties": {"type": "string"},
                },
                "enabled": boolean("Whether the plugin runs (default true)."),
                "priority": integer("Order: higher runs earlier."),
            }, "Overrides of one plugin."),
        },
        "queueDepthPerAction": {
            "type": "object",
            "description": "Maximum jobs per leaf queue considered by an action, by action "
                           "name.",
            "additionalProperties": {"type": "integer"},
        },
        "scenarioSearchBudgets": obj({
            "maxActionSearchDuration": {
                "type": "object",
                "description": "Per action (reclaim, preempt, consolidation), with default for "
                               "the others; once spent, the action tries no further job this "
                               "cycle.",
                "additionalProperties": {"type": "string"},
            },
            "maxJobSearchDuration": string("Limit of one pending job's victim search."),
            "minJobSearchDuration": string("Search time every tried job gets even when the "
                                           "action's budget is nearly spent; below "
                                           "maxJobSearchDuration."),
            "maxGeneratorSearchDuration": {
                "type": "object",
                "description": "Per scenario generator; default applies to the accumulated "
                               "pod-scenario generator this scheduler runs.",
                "additionalProperties": {"type": "string"},
            },
            "minFailedSearchBackoff": {
                "type": "object",
                "description": "Per action (or default): after a victim search that ran out of "
                               "scenarios, the job is not searched again by that action for "
                               "this long (doubling per failure); unset = off.",
                "additionalProperties": {"type": "string"},
            },
            "maxFailedSearchBackoff": {
                "type": "object",
                "description": "Per action (or default): the longest failed-search backoff "
                               "(default and at least the minimum).",
                "additionalProperties": {"type": "string"},
            },
        }, "Time budgets of the victim searches of consolidation, reclaim and preempt (alpha, "
           "as KAI v0.15). Go durations; 0s means unlimited. Defaults: 20s per action, 10s per "
           "job, 0s minimum per job, 5s per scenario generator."),
        "usageDBConfig": obj({
            "clientType": string("prometheus (or fake / fake-with-history for tests)."),
            "connectionString": string("Prometheus URL; filled by the operator when unset."),
            "connectionStringEnvVar": string("Environment variable holding the URL."),
            "usageParams": obj({
                "cronString": string("Cron schedule resetting cron windows."),
                "extraParams": string_map("Client-specific parameters (metric names, "
                                          "usageQueryTimeout, queryResolution)."),
                "fetchInterval": duration("How often usage is fetched (default 1m)."),
                "halfLifePeriod": duration("Half-life of usage decay; unset or 0 disables "
                                           "decay."),
                "stalenessPeriod": duration("Age after which usage is stale (default 5m)."),
                "tumblingWindowStartTime": date_time("Start of the first tumbling window."),
                "waitTimeout": duration("Startup wait for the first usage data (default 1m)."),
                "windowSize": string("Usage window length (default 1w).",
                                     pattern=r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?"
                                             r"(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?"
                                             r"(([0-9]+)ms)?)$"),
                "windowType": string("sliding (default), tumbling or cron.",
                                     enum=["sliding", "tumbling", "cron"]),
            }, "Usage window and decay."),
        }, "Usage database for time-based fair share.", required=["clientType"]),
    }, "The desired state of a scheduler shard.")
    status = obj({
        "conditions": array(metav1_condition(), "Same condition set as the Config."),
    }, "The operator's view of the shard.")
    return crd(group="kai.scheduler", kind="SchedulingShard", plural="schedulingshards",
               singular="schedulingshard", scope="Cluster", version="v1",
               schema=root(spec, status, "One KAI scheduler instance and the nodes (node pool) "
                                         "it schedules."))


# ---------------------------------------------------------------------------------------------
# kai.scheduler/v1alpha1 Topology
# ---------------------------------------------------------------------------------------------


def topology_crd():
    spec = obj({
        "levels": array(obj({
            "nodeLabel": string("Node label key of this level, e.g. "
                                "topology.kubernetes.io/zone or kubernetes.io/hostname.",
                                maxLength=316, minLength=1, pattern=LABEL_KEY_PATTERN),
        }, "One topology level.", required=["nodeLabel"]),
            "Levels from the widest (e.g. zone, block) to the narrowest (e.g. hostname). Each "
            "node label may appear once. Immutable, and kubernetes.io/hostname may only be the "
            "last level (both checked by the admission webhook).",
            minItems=1, maxItems=16,
            **{"x-kubernetes-list-map-keys": ["nodeLabel"], "x-kubernetes-list-type": "map"}),
    }, "The desired state of a Topology.", required=["levels"])
    return crd(group="kai.scheduler", kind="Topology", plural="topologies", singular="topology",
               scope="Cluster", version="v1alpha1",
               schema=root(spec, None, "The layout of a cluster's network topology as a list of "
                                       "node-label levels.", required=["spec"]),
               status_subresource=False)


# ---------------------------------------------------------------------------------------------
# CRD assembly
# ---------------------------------------------------------------------------------------------

CATEGORY = "kai"


def col(name, typ, path, **extra):
    c = {"jsonPath": path, "name": name, "type": typ}
    c.update(extra)
    return c


def crd(group, kind, plural, singular, scope, version, schema, short_names=None, columns=None,
        status_subresource=True):
    names = {"categories": [CATEGORY], "kind": kind, "listKind": kind + "List",
             "plural": plural}
    if short_names:
        names["shortNames"] = short_names
    names["singular"] = singular
    v = {}
    if columns:
        v["additionalPrinterColumns"] = columns
    v["name"] = version
    v["schema"] = {"openAPIV3Schema": schema}
    v["served"] = True
    v["storage"] = True
    if status_subresource:
        v["subresources"] = {"status": {}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": plural + "." + group},
        "spec": {"group": group, "names": names, "scope": scope, "versions": [v]},
    }


CRDS = [
    ("scheduling.run.ai_queues.yaml", queue_crd),
    ("scheduling.run.ai_podgroups.yaml", podgroup_crd),
    ("scheduling.run.ai_bindrequests.yaml", bindrequest_crd),
    ("kai.scheduler_configs.yaml", config_crd),
    ("kai.scheduler_schedulingshards.yaml", schedulingshard_crd),
    ("kai.scheduler_topologies.yaml", topology_crd),
]

# ---------------------------------------------------------------------------------------------
# YAML emitter (block style, go-yaml v2 safe)
# ---------------------------------------------------------------------------------------------

# Plain scalars go-yaml v2 would resolve to something other than a string (YAML 1.1 rules).
_SPECIAL = re.compile(r"^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|"
                      r"ON|off|Off|OFF|null|Null|NULL|~|[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)"
                      r"([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)|0x[0-9a-fA-F_]+|"
                      r"[-+]?0b[01_]+|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?)$")


def plain_ok(s):
    """Whether s can be written as a plain (unquoted) block scalar and read back as this string."""
    if not s or s != s.strip() or _SPECIAL.match(s):
        return False
    if s[0] in "-?:,[]{}#&*!|>'\"%@`":
        return False
    if ": " in s or s.endswith(":") or " #" in s or "\n" in s or "\t" in s:
        return False
    return True


def scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    s = str(v)
    if plain_ok(s):
        return s
    return "'" + s.replace("'", "''") + "'"


def emit(v, indent, out):
    pad = " " * indent
    if isinstance(v, dict):
        for k, val in v.items():
            key = scalar(k)
            if isinstance(val, dict):
                if not val:
                    out.append(f"{pad}{key}: {{}}")
                else:
                    out.append(f"{pad}{key}:")
                    emit(val, indent + 2, out)
            elif isinstance(val, list):
                if not val:
                    out.append(f"{pad}{key}: []")
                else:
                    out.append(f"{pad}{key}:")
                    emit(val, indent, out)
            else:
                out.append(f"{pad}{key}: {scalar(val)}")
    elif isinstance(v, list):
        for item in v:
            if isinstance(item, dict) and item:
                lines = []
                emit(item, indent + 2, lines)
                first = lines[0]
                out.append(f"{pad}- {first[indent + 2:]}")
                out.extend(lines[1:])
            elif isinstance(item, list):
                raise ValueError("nested lists are not used")
            else:
                out.append(f"{pad}- {scalar(item) if item != {} else '{}'}")
    else:
        raise ValueError("emit() takes a dict or a list")


HEADER = """\
# Generated by hack/gen_crds.py from the KAI reference's CRD tables. Do not edit by hand:
# change the generator and run `hack/gen_crds.py` (a unit test checks this file is current).
"""


def render(doc):
    out = []
    emit(finalize(doc), 0, out)
    return HEADER + "---\n" + "\n".join(out) + "\n"


def main(argv):
    check = "--check" in argv
    stale = []
    for name, fn in CRDS:
        text = render(fn())
        path = os.path.join(OUT_DIR, name)
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
        else:
            os.makedirs(OUT_DIR, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if stale:
        print("gen_crds: out of date (run hack/gen_crds.py): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    if check:
        print("gen_crds: crds/ is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
