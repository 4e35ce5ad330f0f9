# Behaviour cases of the project, rendered by scengen.py into test/scenarios/cases/behaviour/.
#
#   python3 test/scenarios/tools/scengen.py test/scenarios/tools/behaviour_cases.py \
#       test/scenarios/cases/behaviour
#
# Each case covers a variant the acceptance cases converted from KAI's tests do not, and its
# expectation is derived from the rules of the reference (kai-reference.md, section in `ref`), not
# from what the implementation prints. Units follow FORMAT.md: whole GPUs per task, node CPU and
# memory as Kubernetes quantities, queue cpu quota in millicores and memory in MB.

from scengen import DEFAULT_PLUGINS

ALLOCATE = ["allocate"]
ALL = ["allocate", "consolidation", "reclaim", "preempt", "stalegangeviction"]


def plugins_with(replace=None, add=None, drop=()):
    """The default plugin list with some plugins replaced, added or dropped."""
    out = []
    for name, args in DEFAULT_PLUGINS:
        if name in drop:
            continue
        if replace and name in replace:
            rname, rargs = replace[name]
            out.append((rname, rargs))
        else:
            out.append((name, args))
    for extra in add or []:
        out.append(extra)
    return out


def running(name, gpus, prio, queue, node, n=1, group=None, groups=None, **kw):
    task = dict(state="Running", node=node)
    if group:
        task["gpu_group"] = group
    if groups:
        task["gpu_groups"] = groups
    return dict(name=name, gpus=gpus, priority=prio, queue=queue,
                tasks=[dict(task) for _ in range(n)], **kw)


def pending(name, gpus, prio, queue, n=1, **kw):
    return dict(name=name, gpus=gpus, priority=prio, queue=queue,
                tasks=[dict(state="Pending") for _ in range(n)], **kw)


CASES = []


def case(dir, id, name, ref, **kw):
    d = dict(dir=dir, id=id, name=name, ref=ref, actions=kw.pop("actions", ALLOCATE))
    d.update(kw)
    CASES.append(d)


# ---------------------------------------------------------------- GPU sharing (§12, §8)

case("gpusharing", "001", "multi-device fraction takes two distinct whole GPUs", "§12.1, §12.3",
     why="0.5 x 2 devices needs N=2 distinct GPU groups; node0 has two free GPUs.",
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=2)],
     jobs=[pending("frac", 0.5, 50, "queue0", num_devices=2)],
     expect={"frac-0": dict(after="Bound", node="node0", gpuGroupsCount=2)})

case("gpusharing", "002", "multi-device fraction skips a node with one GPU", "§12.3",
     why="floor(idle whole GPUs) + fitting shared groups must reach N=2: node-a has 1 GPU.",
     nodes={"node-a": dict(gpus=1), "node-b": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=3)],
     jobs=[pending("frac", 0.5, 50, "queue0", num_devices=2)],
     expect={"frac-0": dict(after="Bound", node="node-b", gpuGroupsCount=2)})

case("gpusharing", "003", "multi-device fraction combines a shared group and a whole GPU", "§12.3",
     why="node0: one GPU shared (group g1, 0.5 used) + one idle GPU = 2 candidate devices; "
         "gpupack puts the fullest shared group first, so g1 is one of the two groups.",
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=2)],
     jobs=[running("shared", 0.5, 50, "queue0", "node0", group="g1"),
           pending("frac", 0.5, 50, "queue0", num_devices=2)],
     expect={"frac-0": dict(after="Bound", node="node0", gpuGroupsCount=2,
                            gpuGroupsInclude=["g1"])})

case("gpusharing", "004", "multi-device fraction over the queue limit stays pending", "§9.5, §12.7",
     why="0.6 x 2 devices = 1.2 GPUs against a limit of 1 -> OverLimit.",
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=1, limit=1)],
     jobs=[pending("frac", 0.6, 50, "queue0", num_devices=2)],
     expect={"frac-0": dict(after="Pending")},
     expect_reasons={"frac": ["OverLimit", "quota has reached the allowable limit of GPUs"]})

case("gpusharing", "005", "gpu-memory request lands on the node whose GPUs are large enough",
     "§12.3",
     why="2000 MiB is 2 GPUs' worth on a 1000 MiB node (invalid portion) and half a GPU on a "
         "4000 MiB node.",
     nodes={"small": dict(gpus=1, gpu_memory=1000), "big": dict(gpus=1, gpu_memory=4000)},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[dict(name="mem", gpu_memory=2000, priority=50, queue="queue0")],
     expect={"mem-0": dict(after="Bound", node="big", gpuGroupsCount=1)})

case("gpusharing", "006", "gpu-memory with two devices needs two GPUs on one node", "§12.1, §12.3",
     why="2 x 3000 MiB: node 'one' has a single 4000 MiB GPU, node 'two' has two.",
     nodes={"one": dict(gpus=1, gpu_memory=4000), "two": dict(gpus=2, gpu_memory=4000)},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[dict(name="mem", gpu_memory=3000, num_devices=2, priority=50, queue="queue0")],
     expect={"mem-0": dict(after="Bound", node="two", gpuGroupsCount=2)})

case("gpusharing", "007", "gpu-memory request needs a node with known GPU memory", "§8.1 (3)",
     why="GPU-memory requests require GpuMemorySynced: the node without the "
         "nvidia.com/gpu.memory label is skipped even though it is listed first.",
     nodes={"a-unlabelled": dict(gpus=2, no_gpu_memory_label=True),
            "b-labelled": dict(gpus=2, gpu_memory=1000)},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[dict(name="mem", gpu_memory=100, priority=50, queue="queue0")],
     expect={"mem-0": dict(after="Bound", node="b-labelled")})

case("gpusharing", "008", "gpupack puts a fraction on the fullest shared GPU", "§8 (gpupack), §12.3",
     why="node0 has a shared GPU g1 with 0.5 used and a free GPU; gpupack scores the shared "
         "group by its used portion and a whole GPU 0.",
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=2)],
     jobs=[running("shared", 0.5, 50, "queue0", "node0", group="g1"),
           pending("frac", 0.25, 50, "queue0")],
     expect={"frac-0": dict(after="Bound", node="node0", gpuGroups=["g1"])})

case("gpusharing", "009", "gpuspread puts a fraction on a whole free GPU", "§8 (gpuspread), §12.3",
     why="Same cluster as 008 with gpuspread instead of gpupack: a whole GPU scores 1, the "
         "shared group 1 - 0.5; the new group is a fresh id, not g1.",
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=2)],
     plugins=plugins_with(replace={"gpupack": ("gpuspread", None)}),
     jobs=[running("shared", 0.5, 50, "queue0", "node0", group="g1"),
           pending("frac", 0.25, 50, "queue0")],
     expect={"frac-0": dict(after="Bound", node="node0", gpuGroupsCount=1,
                            gpuGroupsExclude=["g1"])})

case("gpusharing", "010", "node affinity beats the shared-GPU preference", "§8.1 (6), §8",
     why="gpusharingorder would prefer node0 (+1000, shared group with room) but the pod's "
         "required node affinity only allows node1.",
     nodes={"node0": dict(gpus=2), "node1": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=4)],
     jobs=[running("shared", 0.5, 50, "queue0", "node0", group="g1"),
           pending("frac", 0.25, 50, "queue0", node_affinity=["node1"])],
     expect={"frac-0": dict(after="Bound", node="node1")})

case("gpusharing", "011", "untolerated NoSchedule taint excludes the shared node", "§8.1 (6)",
     why="node0 holds a shared GPU with room but carries a NoSchedule taint the pod does not "
         "tolerate.",
     nodes={"node0": dict(gpus=2, taints=[dict(key="dedicated", value="x", effect="NoSchedule")]),
            "node1": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=4)],
     jobs=[running("shared", 0.5, 50, "queue0", "node0", group="g1",
                   tolerations=[dict(key="dedicated", operator="Exists")]),
           pending("frac", 0.25, 50, "queue0")],
     expect={"frac-0": dict(after="Bound", node="node1")})

case("gpusharing", "012", "tolerated taint keeps the shared-GPU preference", "§8.1 (6), §8",
     why="Same as 011 but the pending pod tolerates the taint: gpusharingorder (+1000) picks "
         "node0 and gpupack the shared group g1.",
     nodes={"node0": dict(gpus=2, taints=[dict(key="dedicated", value="x", effect="NoSchedule")]),
            "node1": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=4)],
     jobs=[running("shared", 0.5, 50, "queue0", "node0", group="g1",
                   tolerations=[dict(key="dedicated", operator="Exists")]),
           pending("frac", 0.25, 50, "queue0", tolerations=[dict(key="dedicated",
                                                                 operator="Exists")])],
     expect={"frac-0": dict(after="Bound", node="node0", gpuGroups=["g1"])})

case("gpusharing", "013", "a fraction opening a new GPU group needs two pod slots", "§8.1 (4), §12.3",
     why="node0 allows 2 pods and runs one: a new shared group needs the pod plus its "
         "reservation pod, so the fraction goes to node1.",
     nodes={"node0": dict(gpus=2, pods=2), "node1": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=4)],
     jobs=[running("whole", 1, 50, "queue0", "node0"),
           pending("frac", 0.5, 50, "queue0")],
     expect={"frac-0": dict(after="Bound", node="node1")})

case("gpusharing", "014", "a whole-GPU pod uses the last pod slot", "§8.1 (4)",
     why="Control for 013: a non-shared pod needs a single free slot, so node0 (fuller, "
         "bin-packing) takes it.",
     nodes={"node0": dict(gpus=2, pods=2), "node1": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=4)],
     jobs=[running("whole", 1, 50, "queue0", "node0"),
           pending("next", 1, 50, "queue0")],
     expect={"next-0": dict(after="Bound", node="node0")})

case("gpusharing", "015", "the GPU memory label is floored to 100 MiB", "§12.3 (KAI snapshot)",
     why="An A100-40GB reports 40960 MiB; KAI uses 40900, so a 40950 MiB request does not fit a "
         "device while 40900 MiB does (docs/scheduler-behaviour.md).",
     nodes={"a100": dict(gpus=1, gpu_memory=40960), "a100-b": dict(gpus=1, gpu_memory=40960)},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[dict(name="too-big", gpu_memory=40950, priority=50, queue="queue0"),
           dict(name="fits", gpu_memory=40900, priority=50, queue="queue0")],
     expect={"too-big-0": dict(after="Pending"), "fits-0": dict(after="Bound")})

case("gpusharing", "016", "a GPU-memory request larger than one device is not placed", "§12.3",
     why="2000 MiB on 1000 MiB GPUs is not a valid portion; it must not be packed into a single "
         "GPU group.",
     nodes={"node0": dict(gpus=4, gpu_memory=1000)},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[dict(name="mem", gpu_memory=2000, priority=50, queue="queue0")],
     expect={"mem-0": dict(after="Pending")}, counts=dict(binds=0, pipelined=0))

case("gpusharing", "017", "the reservation pod of a new GPU group takes a pod slot", "§8.1 (4), §12.3",
     why="node0 allows 3 pods and runs one. The fraction opens a new group (pod + reservation "
         "pod = 2 slots), so the next pod no longer fits on node0.",
     nodes={"node0": dict(gpus=2, pods=3), "node1": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[running("busy", 1, 125, "queue0", "node0"),
           pending("frac", 0.5, 100, "queue0"),
           pending("whole", 1, 50, "queue0")],
     expect={"frac-0": dict(after="Bound", node="node0"), "whole-0": dict(after="Bound", node="node1")})

# ---------------------------------------------------------------- MIG (§12.6, §8.1)

case("mig", "001", "MIG, whole and fractional pods each go to the compatible node",
     "§8.1 (2), §12.6",
     why="MIG profiles only on MIG nodes; strategy mixed admits only MIG-profile requests, so "
         "whole and fractional GPUs go to the regular GPU node.",
     nodes={"gpu-node": dict(gpus=2), "mig-node": dict(gpus=1, mig_strategy="mixed",
                                                      mig={"1g.10gb": 2})},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[dict(name="mig", mig={"1g.10gb": 1}, priority=50, queue="queue0"),
           pending("whole", 1, 50, "queue0"),
           pending("frac", 0.5, 50, "queue0")],
     expect={"mig-0": dict(after="Bound", node="mig-node"),
             "whole-0": dict(after="Bound", node="gpu-node"),
             "frac-0": dict(after="Bound", node="gpu-node")})

case("mig", "002", "MIG profiles count their compute slices against the queue limit",
     "§12.6, §9.5",
     why="A 3g.40gb instance counts as 3 GPUs; the queue limit is 2, so it stays pending "
         "while a 1g.10gb instance fits.",
     nodes={"mig-node": dict(gpus=1, mig_strategy="mixed", mig={"3g.40gb": 1, "1g.10gb": 1})},
     queues=[dict(name="queue0", deserved=2, limit=2)],
     jobs=[dict(name="big", mig={"3g.40gb": 1}, priority=50, queue="queue0"),
           dict(name="small", mig={"1g.10gb": 1}, priority=50, queue="queue0")],
     expect={"big-0": dict(after="Pending"), "small-0": dict(after="Bound", node="mig-node")},
     expect_reasons={"big": ["OverLimit"]})

case("mig", "003", "strategy single admits only whole-GPU requests", "§8.1 (2)",
     why="On a MIG node with strategy single a fractional request is rejected.",
     nodes={"node0": dict(gpus=2, mig_strategy="single")},
     queues=[dict(name="queue0", deserved=2)],
     jobs=[pending("frac", 0.5, 50, "queue0"), pending("whole", 1, 50, "queue0")],
     expect={"frac-0": dict(after="Pending"), "whole-0": dict(after="Bound", node="node0")})

case("mig", "004", "a MIG profile no node offers is not placed", "§6.5, §8.1 (MaxNodePoolResources)",
     why="Every resource a pod requests is part of the snapshot's resource vector; a MIG "
         "profile that no node advertises exceeds the largest node (0) and the pre-predicate "
         "rejects the pod with \"No node in the <pool> node-pool has <R> resources\". The "
         "other profile on the same node still fits.",
     nodes={"mig-node": dict(gpus=1, mig_strategy="mixed", mig={"1g.5gb": 1})},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[dict(name="ten", mig={"1g.10gb": 1}, priority=50, queue="queue0"),
           dict(name="five", mig={"1g.5gb": 1}, priority=50, queue="queue0")],
     expect={"ten-0": dict(after="Pending"), "five-0": dict(after="Bound", node="mig-node")},
     expect_reasons={"ten": ["No node in the default node-pool has nvidia.com/mig-1g.10gb resources"]})

case("placement", "006", "an extended resource goes only to the node that advertises it",
     "§6.5, §8.1 (MaxNodePoolResources, resource fit)",
     why="A pod requesting an extended resource fits only where the node's allocatable holds "
         "it; a request for a resource no node has is rejected by the pre-predicate.",
     nodes={"plain": dict(gpus=2), "nic": dict(gpus=2, extended={"example.com/nic": 1})},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[pending("withnic", 1, 50, "queue0", extended={"example.com/nic": 1}),
           pending("nonic", 0, 50, "queue0", extended={"example.com/fpga": 1})],
     expect={"withnic-0": dict(after="Bound", node="nic"), "nonic-0": dict(after="Pending")},
     expect_reasons={"nonic": ["No node in the default node-pool has example.com/fpga resources"]})

# ---------------------------------------------------------------- node placement (§8.2, §8)

case("placement", "001", "CPU bin-pack puts a CPU-only pod on the fuller CPU node", "§8.2",
     why="cpu: binpack scores by non-allocated CPU between min and max of the candidates.",
     nodes={"cpu-a": dict(cpu="8", memory="32G"), "cpu-b": dict(cpu="8", memory="32G")},
     queues=[dict(name="queue0", deserved=0)],
     jobs=[running("busy", 0, 50, "queue0", "cpu-a", cpu="6"),
           pending("cpujob", 0, 50, "queue0", cpu="1")],
     expect={"cpujob-0": dict(after="Bound", node="cpu-a")})

case("placement", "002", "CPU spread puts a CPU-only pod on the emptier CPU node", "§8.2",
     why="cpu: spread scores non-allocated / allocatable CPU.",
     nodes={"cpu-a": dict(cpu="8", memory="32G"), "cpu-b": dict(cpu="8", memory="32G")},
     queues=[dict(name="queue0", deserved=0)],
     plugins=plugins_with(replace={"nodeplacement": ("nodeplacement",
                                                     {"cpu": "spread", "gpu": "binpack"})}),
     jobs=[running("busy", 0, 50, "queue0", "cpu-a", cpu="6"),
           pending("cpujob", 0, 50, "queue0", cpu="1")],
     expect={"cpujob-0": dict(after="Bound", node="cpu-b")})

case("placement", "003", "a CPU-only pod prefers a CPU-only node", "§8 (resourcetype)",
     why="Equal free CPU gives both nodes the bin-pack maximum; resourcetype adds 10 to the "
         "node without GPUs.",
     nodes={"a-gpu": dict(gpus=2), "b-cpu": dict(gpus=0)},
     queues=[dict(name="queue0", deserved=0)],
     jobs=[pending("cpujob", 0, 50, "queue0")],
     expect={"cpujob-0": dict(after="Bound", node="b-cpu")})

case("placement", "004", "fitting in idle resources beats bin-packing onto releasing ones",
     "§8 (nodeavailability), §8.2",
     why="node0 is fuller (bin-pack 9) but its only free GPU is being released; node1 fits in "
         "Idle (+100), so the pod is bound there instead of pipelined.",
     nodes={"node0": dict(gpus=4), "node1": dict(gpus=4)},
     queues=[dict(name="queue0", deserved=-1)],
     jobs=[running("full", 1, 50, "queue0", "node0", n=3),
           dict(name="leaving", gpus=1, priority=50, queue="queue0",
                tasks=[dict(state="Releasing", node="node0")]),
           running("half", 1, 50, "queue0", "node1", n=2),
           pending("next", 1, 50, "queue0")],
     expect={"next-0": dict(after="Bound", node="node1")})

case("placement", "005", "GPU spread picks the node with most free GPUs", "§8.2",
     why="gpu: spread scores free GPUs / GPU count: node1 (4/4) beats node0 (1/4).",
     nodes={"node0": dict(gpus=4), "node1": dict(gpus=4)},
     queues=[dict(name="queue0", deserved=-1)],
     plugins=plugins_with(replace={"nodeplacement": ("nodeplacement",
                                                     {"cpu": "binpack", "gpu": "spread"})}),
     jobs=[running("busy", 1, 50, "queue0", "node0", n=3), pending("next", 1, 50, "queue0")],
     expect={"next-0": dict(after="Bound", node="node1")})

# ---------------------------------------------------------------- elastic (§8.4, §7.1, §7.2)

case("elastic", "001", "elastic growth of two queues interleaves by fairness", "§7.1, §7.2, §9.4",
     why="Each elastic job (min 1, 3 pods) gets one pod per attempt and is pushed back; the "
         "queue order alternates, so 4 GPUs end up 2 + 2.",
     nodes={"node0": dict(gpus=4)},
     queues=[dict(name="q0", deserved=1), dict(name="q1", deserved=1)],
     jobs=[pending("ea", 1, 50, "q0", n=3, min_available=1),
           pending("eb", 1, 50, "q1", n=3, min_available=1)],
     expect={"ea-0": dict(after="Bound"), "ea-1": dict(after="Bound"), "ea-2": dict(after="Pending"),
             "eb-0": dict(after="Bound"), "eb-1": dict(after="Bound"), "eb-2": dict(after="Pending")},
     counts=dict(binds=4))

case("elastic", "002", "a gang above its minimum loses single pods to reclaim", "§7.6, §9.5",
     why="q0 (fair share 1) runs an elastic job with 3 pods, min 1; q1 (fair share 2) reclaims 2 "
         "GPUs. Pods above the minimum are separate victims, taken in reverse task order.",
     actions=["reclaim"],
     nodes={"node0": dict(gpus=3)},
     queues=[dict(name="q0", deserved=1), dict(name="q1", deserved=2)],
     jobs=[running("elastic", 1, 50, "q0", "node0", n=3, min_available=1),
           pending("reclaimer", 2, 50, "q1")],
     expect={"elastic-0": dict(after="Running"), "elastic-1": dict(after="Evicted"),
             "elastic-2": dict(after="Evicted"), "reclaimer-0": dict(after="Pipelined")},
     counts=dict(evictions=2))

case("elastic", "003", "elastic job ordering: below-minimum jobs go first", "§7.1 (elastic)",
     why="Same priority and queue; the job not yet at its minimum is ordered before the one "
         "above it even though it was created later.",
     nodes={"node0": dict(gpus=3)},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[dict(name="grown", gpus=1, priority=50, queue="q0", min_available=1, age_min=30,
                tasks=[dict(state="Running", node="node0"), dict(state="Running", node="node0"),
                       dict(state="Pending")]),
           pending("fresh", 1, 50, "q0", n=1, age_min=10)],
     expect={"fresh-0": dict(after="Bound"), "grown-2": dict(after="Pending")})

# ---------------------------------------------------------------- min runtime (§8.3)

case("minruntime", "001", "preempt min-runtime of the victim's queue protects a fresh job",
     "§8.3, §7.5",
     why="queue0 sets preemptMinRuntime 10m; the train job started 1 minute ago, so the build "
         "job cannot preempt it.",
     actions=["preempt"],
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="queue0", deserved=1, preempt_min_runtime="10m")],
     jobs=[running("victim", 1, 50, "queue0", "node0", last_start_min=1),
           pending("build", 1, 100, "queue0")],
     expect={"victim-0": dict(after="Running"), "build-0": dict(after="Pending")},
     counts=dict(evictions=0))

case("minruntime", "002", "an elapsed preempt min-runtime no longer protects", "§8.3, §7.5",
     why="Same as 001 but the victim started 20 minutes ago.",
     actions=["preempt"],
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="queue0", deserved=1, preempt_min_runtime="10m")],
     jobs=[running("victim", 1, 50, "queue0", "node0", last_start_min=20),
           pending("build", 1, 100, "queue0")],
     expect={"victim-0": dict(after="Evicted"), "build-0": dict(after="Pipelined")})

case("minruntime", "003", "defaultPreemptMinRuntime applies when no queue sets one", "§8.3",
     why="minruntime argument defaultPreemptMinRuntime 5m protects a job started 1 minute ago.",
     actions=["preempt"],
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="queue0", deserved=1)],
     plugins=plugins_with(replace={"minruntime": ("minruntime",
                                                  {"defaultPreemptMinRuntime": "5m"})}),
     jobs=[running("victim", 1, 50, "queue0", "node0", last_start_min=1),
           pending("build", 1, 100, "queue0")],
     expect={"victim-0": dict(after="Running"), "build-0": dict(after="Pending")})

case("minruntime", "004", "reclaim min-runtime (lca) protects a non-elastic victim", "§8.3, §7.5",
     why="q0 and q1 share the parent 'default'; lca resolution steps down to q0, whose "
         "reclaimMinRuntime 10m protects the job started 1 minute ago.",
     actions=["reclaim"],
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="q0", deserved=0, reclaim_min_runtime="10m"),
             dict(name="q1", deserved=2)],
     jobs=[running("victim", 2, 50, "q0", "node0", last_start_min=1),
           pending("reclaimer", 2, 50, "q1")],
     expect={"victim-0": dict(after="Running"), "reclaimer-0": dict(after="Pending")},
     counts=dict(evictions=0))

case("minruntime", "005", "a protected elastic victim can lose only pods above its minimum",
     "§8.3, §7.6",
     why="The elastic victim (min 1, 3 pods) is inside its reclaim min-runtime: taking 2 pods "
         "keeps it at its minimum, which the validator allows.",
     actions=["reclaim"],
     nodes={"node0": dict(gpus=3)},
     queues=[dict(name="q0", deserved=0, reclaim_min_runtime="10m"),
             dict(name="q1", deserved=3)],
     jobs=[running("elastic", 1, 50, "q0", "node0", n=3, min_available=1, last_start_min=1),
           pending("reclaimer", 2, 50, "q1")],
     expect={"elastic-0": dict(after="Running"), "elastic-1": dict(after="Evicted"),
             "elastic-2": dict(after="Evicted"), "reclaimer-0": dict(after="Pipelined")})

case("minruntime", "006", "a protected elastic victim is not taken below its minimum",
     "§8.3, §7.6",
     why="As 005 but the reclaimer needs all 3 GPUs: that would take the protected job below "
         "its minimum, so no scenario is valid and nothing is evicted.",
     actions=["reclaim"],
     nodes={"node0": dict(gpus=3)},
     queues=[dict(name="q0", deserved=0, reclaim_min_runtime="10m"),
             dict(name="q1", deserved=3)],
     jobs=[running("elastic", 1, 50, "q0", "node0", n=3, min_available=1, last_start_min=1),
           pending("reclaimer", 3, 50, "q1")],
     expect={"elastic-0": dict(after="Running"), "elastic-1": dict(after="Running"),
             "elastic-2": dict(after="Running"), "reclaimer-0": dict(after="Pending")},
     counts=dict(evictions=0))

# ---------------------------------------------------------------- preemptibility (§4.3)

case("preemptibility", "001", "non-preemptible job over quota stays pending", "§4.3, §9.5",
     why="A build job (priority 100, non-preemptible) would bring allocatedNonPreemptible to 3 "
         "over a quota of 2; the preemptible train job may go over quota.",
     nodes={"node0": dict(gpus=4)},
     queues=[dict(name="queue0", deserved=2)],
     jobs=[running("np-running", 1, 100, "queue0", "node0"),
           pending("np-pending", 2, 100, "queue0"),
           pending("train", 2, 50, "queue0")],
     expect={"np-pending-0": dict(after="Pending"), "train-0": dict(after="Bound")},
     expect_reasons={"np-pending": ["NonPreemptibleOverQuota",
                                    "Non-preemptible workload is over quota"]})

case("preemptibility", "002", "spec.preemptibility=preemptible lets a priority-100 job go over quota",
     "§4.3",
     why="preemptibility overrides the priority rule.",
     nodes={"node0": dict(gpus=4)},
     queues=[dict(name="queue0", deserved=1)],
     jobs=[pending("build", 3, 100, "queue0", preemptibility="preemptible")],
     expect={"build-0": dict(after="Bound")})

case("preemptibility", "003", "spec.preemptibility=non-preemptible limits a train job to quota",
     "§4.3",
     why="A priority-50 job marked non-preemptible may only use the deserved quota.",
     nodes={"node0": dict(gpus=4)},
     queues=[dict(name="queue0", deserved=1)],
     jobs=[pending("train", 3, 50, "queue0", preemptibility="non-preemptible")],
     expect={"train-0": dict(after="Pending")},
     expect_reasons={"train": ["NonPreemptibleOverQuota"]})

case("preemptibility", "004", "non-preemptible running jobs are never preempted", "§4.3, §7.5",
     why="The running job has priority 100 (non-preemptible by default); an inference job of "
         "the same queue cannot preempt it.",
     actions=["preempt"],
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="queue0", deserved=2)],
     jobs=[running("build", 1, 100, "queue0", "node0"),
           pending("inference", 1, 125, "queue0")],
     expect={"build-0": dict(after="Running"), "inference-0": dict(after="Pending")},
     counts=dict(evictions=0))

case("preemptibility", "005", "non-preemptible jobs are never reclaimed", "§4.3, §7.5",
     why="q0 runs a job marked non-preemptible above its fair share; q1 cannot reclaim it.",
     actions=["reclaim"],
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="q0", deserved=0), dict(name="q1", deserved=2)],
     jobs=[running("pinned", 2, 50, "q0", "node0", preemptibility="non-preemptible"),
           pending("reclaimer", 2, 50, "q1")],
     expect={"pinned-0": dict(after="Running"), "reclaimer-0": dict(after="Pending")},
     counts=dict(evictions=0))

# ---------------------------------------------------------------- queue limits (§9.5)

case("limits", "001", "the limit of a parent queue stops a child", "§9.5 (OverLimit)",
     why="Department d1 has a GPU limit of 2 and q0 already uses 2; q1 (also in d1) cannot "
         "add a GPU although it is under its own quota.",
     nodes={"node0": dict(gpus=4)},
     departments=[dict(name="d1", deserved=2, limit=2)],
     queues=[dict(name="q0", deserved=1, parent="d1"), dict(name="q1", deserved=1, parent="d1")],
     jobs=[running("used", 2, 50, "q0", "node0"), pending("blocked", 1, 50, "q1")],
     expect={"blocked-0": dict(after="Pending")},
     expect_reasons={"blocked": ["OverLimit", "d1 quota has reached the allowable limit of GPUs"]})

case("limits", "002", "a CPU limit stops a CPU-only job", "§9.5 (OverLimit)",
     why="The queue's CPU limit is 2000 millicores; the pod asks for 3 cores.",
     nodes={"node0": dict(gpus=0, cpu="16", memory="64G")},
     queues=[dict(name="q0", deserved=0, cpu_quota=1000, cpu_limit=2000)],
     jobs=[pending("cpu", 0, 50, "q0", cpu="3")],
     expect={"cpu-0": dict(after="Pending")},
     expect_reasons={"cpu": ["OverLimit", "CPU cores"]})

case("limits", "003", "a job within the limit is allocated up to it", "§9.5",
     why="Control: limit 3, 2 used, a 1-GPU job fits exactly.",
     nodes={"node0": dict(gpus=4)},
     queues=[dict(name="q0", deserved=1, limit=3)],
     jobs=[running("used", 2, 50, "q0", "node0"), pending("fits", 1, 50, "q0"),
           pending("over", 1, 50, "q0")],
     expect={"fits-0": dict(after="Bound"), "over-0": dict(after="Pending")})

# ---------------------------------------------------------------- hierarchical reclaim (§9.5)

case("hierarchy", "001", "reclaim across departments stops at the reclaimer's fair share",
     "§9.2, §9.5",
     why="d1 and d2 deserve 2 each; d1's queue runs 4 single-GPU jobs. q-b (in d2) reclaims 2: "
         "leveled queues are d1 vs d2, d1 stays above its fair share while 2 jobs are taken.",
     actions=["reclaim"],
     nodes={"node0": dict(gpus=4)},
     departments=[dict(name="d1", deserved=2), dict(name="d2", deserved=2)],
     queues=[dict(name="q-a", deserved=2, parent="d1"), dict(name="q-b", deserved=2, parent="d2")],
     jobs=[running("a0", 1, 50, "q-a", "node0"), running("a1", 1, 50, "q-a", "node0"),
           running("a2", 1, 50, "q-a", "node0"), running("a3", 1, 50, "q-a", "node0"),
           pending("b", 2, 50, "q-b")],
     expect={"b-0": dict(after="Pipelined")},
     counts=dict(evictions=2))

case("hierarchy", "002", "reclaim inside a department levels sibling queues", "§9.5",
     why="d1 (quota 2) holds q-a and q-b (quota 1 each); q-a runs 2 jobs, q-b reclaims one GPU "
         "from its sibling.",
     actions=["reclaim"],
     nodes={"node0": dict(gpus=2)},
     departments=[dict(name="d1", deserved=2)],
     queues=[dict(name="q-a", deserved=1, parent="d1"), dict(name="q-b", deserved=1, parent="d1")],
     jobs=[running("a0", 1, 50, "q-a", "node0"), running("a1", 1, 50, "q-a", "node0"),
           pending("b", 1, 50, "q-b")],
     expect={"b-0": dict(after="Pipelined")},
     counts=dict(evictions=1))

case("hierarchy", "003", "a queue at its fair share cannot reclaim more", "§9.5 (CanReclaim)",
     why="q-b already uses its fair share (1 of 2 GPUs); reclaiming another GPU would put it "
         "above, so nothing is evicted.",
     actions=["reclaim"],
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="q-a", deserved=1), dict(name="q-b", deserved=1)],
     jobs=[running("a", 1, 50, "q-a", "node0"), running("b-run", 1, 50, "q-b", "node0"),
           pending("b", 1, 50, "q-b")],
     expect={"b-0": dict(after="Pending")},
     counts=dict(evictions=0))

# ---------------------------------------------------------------- topology (§11)

TOPO = [dict(name="cluster-topology", levels=["k8s.io/spine", "k8s.io/rack"])]


def rack_node(spine, rack, gpus=2):
    return dict(gpus=gpus, labels={"k8s.io/spine": spine, "k8s.io/rack": rack})


case("topology", "001", "a required rack keeps a gang inside one rack", "§11.3",
     why="rack r1 has 3 free GPUs, rack r2 4: a 4-pod job with required rack must go to r2.",
     topologies=TOPO,
     nodes={"n1": rack_node("s1", "r1"), "n2": rack_node("s1", "r1"),
            "n3": rack_node("s1", "r2"), "n4": rack_node("s1", "r2")},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[running("busy", 1, 50, "q0", "n1"),
           pending("gang", 1, 50, "q0", n=4,
                   topology=dict(topology="cluster-topology", requiredTopologyLevel="k8s.io/rack"))],
     expect={f"gang-{i}": dict(after="Bound", nodeIn=["n3", "n4"]) for i in range(4)})

case("topology", "002", "a preferred level does not block placement across domains", "§11.3",
     why="No rack has 4 free GPUs; with only a preferred rack the gang is spread over racks.",
     topologies=TOPO,
     nodes={"n1": rack_node("s1", "r1"), "n2": rack_node("s1", "r1"),
            "n3": rack_node("s1", "r2"), "n4": rack_node("s1", "r2")},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[running("busy1", 1, 50, "q0", "n1"), running("busy2", 1, 50, "q0", "n3"),
           pending("gang", 1, 50, "q0", n=4,
                   topology=dict(topology="cluster-topology", preferredTopologyLevel="k8s.io/rack"))],
     expect={"gang-0": dict(after="Bound"), "gang-1": dict(after="Bound"),
             "gang-2": dict(after="Bound"), "gang-3": dict(after="Bound")})

case("topology", "003", "a required rack that no rack can satisfy keeps the gang pending",
     "§11.3 (4)",
     why="Same cluster as 002 with a required rack: no rack has 4 free GPUs.",
     topologies=TOPO,
     nodes={"n1": rack_node("s1", "r1"), "n2": rack_node("s1", "r1"),
            "n3": rack_node("s1", "r2"), "n4": rack_node("s1", "r2")},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[running("busy1", 1, 50, "q0", "n1"), running("busy2", 1, 50, "q0", "n3"),
           pending("gang", 1, 50, "q0", n=4,
                   topology=dict(topology="cluster-topology", requiredTopologyLevel="k8s.io/rack"))],
     expect={"gang-0": dict(after="Pending"), "gang-3": dict(after="Pending")},
     counts=dict(binds=0),
     expect_reasons={"gang": ["couldn't be satisfied"]})

case("topology", "004", "a constraint naming a missing topology keeps the job pending",
     "§11.3 (1)",
     why="The Topology object does not exist.",
     topologies=TOPO,
     nodes={"n1": rack_node("s1", "r1")},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[pending("job", 1, 50, "q0",
                   topology=dict(topology="no-such-topology", requiredTopologyLevel="k8s.io/rack"))],
     expect={"job-0": dict(after="Pending")},
     expect_reasons={"job": ["Requested topology no-such-topology does not exist"]})

case("topology", "005", "nodes without the topology labels are not used by constrained jobs",
     "§11.2",
     why="n2 lacks the rack label, so the constrained job can only use n1 (1 GPU) and stays "
         "pending with 2 pods; an unconstrained job may use n2.",
     topologies=TOPO,
     nodes={"n1": rack_node("s1", "r1", gpus=1), "n2": dict(gpus=4)},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[pending("gang", 1, 50, "q0", n=2,
                   topology=dict(topology="cluster-topology", requiredTopologyLevel="k8s.io/rack")),
           pending("free", 1, 50, "q0")],
     expect={"gang-0": dict(after="Pending"), "gang-1": dict(after="Pending"),
             "free-0": dict(after="Bound")})

# ---------------------------------------------------------------- gang (§7.2, §7.3)

case("gang", "001", "a gang that does not fit is not started at all", "§7.2, §7.3",
     why="3 pods x 1 GPU with 2 free GPUs: nothing is bound.",
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[pending("gang", 1, 50, "q0", n=3)],
     expect={"gang-0": dict(after="Pending"), "gang-1": dict(after="Pending"),
             "gang-2": dict(after="Pending")},
     counts=dict(binds=0, pipelined=0),
     expect_reasons={"gang": ["PodSchedulingErrors",
                              "Resources were found for 2 pods while 3 are required for gang "
                              "scheduling"]})

case("gang", "002", "a gang completed only with releasing resources is pipelined as a whole",
     "§7.3 (3)",
     why="Two pods fit in Idle, the third only on a releasing GPU: all three are pipelined.",
     nodes={"node0": dict(gpus=2), "node1": dict(gpus=1)},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[dict(name="leaving", gpus=1, priority=50, queue="q0",
                tasks=[dict(state="Releasing", node="node1")]),
           pending("gang", 1, 50, "q0", n=3)],
     expect={"gang-0": dict(after="Pipelined"), "gang-1": dict(after="Pipelined"),
             "gang-2": dict(after="Pipelined")},
     counts=dict(binds=0))

case("gang", "003", "a job whose gang is incomplete is not ready and not scheduled", "§6.6, §7.1",
     why="minMember 3 with 2 pods: the job is not ready for scheduling.",
     nodes={"node0": dict(gpus=4)},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[pending("short", 1, 50, "q0", n=2, min_available=3)],
     expect={"short-0": dict(after="Pending"), "short-1": dict(after="Pending")},
     expect_reasons={"short": ["Job is not ready for scheduling. Waiting for 3 pods, currently 2 "
                               "exist, 0 are gated"]})

# ---------------------------------------------------------------- stale gangs (§7.8)

def stale_job(stale_sec):
    return dict(name="stale", gpus=1, priority=50, queue="q0", min_available=2,
                stale_sec=stale_sec,
                tasks=[dict(state="Running", node="node0"), dict(state="Pending")])


case("stale", "001", "a gang below its minimum inside the grace period is kept",
     "§7.8", actions=["stalegangeviction"],
     why="Stale for 30 s with a 60 s grace period.",
     args={"default-staleness-grace-period": "60s"},
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[stale_job(30)],
     expect={"stale-0": dict(after="Running")}, counts=dict(evictions=0))

case("stale", "002", "a gang below its minimum past the grace period is evicted",
     "§7.8", actions=["stalegangeviction"],
     why="Stale for 90 s with a 60 s grace period.",
     args={"default-staleness-grace-period": "60s"},
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[stale_job(90)],
     expect={"stale-0": dict(after="Evicted")}, counts=dict(evictions=1))

case("stale", "003", "a negative grace period never evicts", "§7.8", actions=["stalegangeviction"],
     why="default-staleness-grace-period -1s disables stale gang eviction.",
     args={"default-staleness-grace-period": "-1s"},
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[stale_job(3600)],
     expect={"stale-0": dict(after="Running")}, counts=dict(evictions=0))

case("stale", "004", "a gang that has succeeded pods is not stale", "§7.8",
     actions=["stalegangeviction"],
     why="Stale requires no Succeeded pods.",
     args={"default-staleness-grace-period": "0s"},
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="q0", deserved=-1)],
     jobs=[dict(name="done", gpus=1, priority=50, queue="q0", min_available=2, stale_sec=600,
                tasks=[dict(state="Running", node="node0"),
                       dict(state="Succeeded", node="node0")])],
     expect={"done-0": dict(after="Running")}, counts=dict(evictions=0))

# ---------------------------------------------------------------- multi-cycle and fractions

case("cycles", "001", "a preemptor pipelined in one cycle is bound in the next", "§6.8, §7.5",
     why="Cycle 1: preempt evicts the train job and pipelines the inference job (pipelined "
         "decisions are not persisted). Cycle 2: the victim is gone (re-created pending), the "
         "inference pod is bound and the train pod waits.",
     actions=ALL, cycles=2,
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="queue0", deserved=1)],
     jobs=[running("train", 1, 50, "queue0", "node0"), pending("inference", 1, 125, "queue0")],
     expect={"inference-0": dict(after="Bound", node="node0"), "train-0": dict(after="Pending")})

case("fractions", "001", "reclaim takes back a fraction", "§9.5, §12.7",
     why="Fractions count as fractional GPUs: q0 (quota 0) holds 2 x 0.5 on the only GPU; q1 "
         "(quota 1) reclaims one half.",
     actions=["reclaim"],
     nodes={"node0": dict(gpus=1)},
     queues=[dict(name="q0", deserved=0), dict(name="q1", deserved=1)],
     jobs=[running("a", 0.5, 50, "q0", "node0", group="g0"),
           running("b", 0.5, 50, "q0", "node0", group="g0"),
           pending("reclaimer", 0.5, 50, "q1")],
     expect={"reclaimer-0": dict(after="Pipelined", node="node0")},
     counts=dict(evictions=1))

case("fractions", "002", "consolidation packs fractions to free a whole GPU", "§7.4, §12.3",
     why="Two half-GPU pods sit on different GPUs of node0 (2 GPUs); a whole-GPU train job "
         "fits only if one half moves next to the other. The victim queue takes the later job "
         "(b) first; a moved victim reports Pipelined (FORMAT.md), in group g0.",
     actions=["consolidation"],
     nodes={"node0": dict(gpus=2)},
     queues=[dict(name="queue0", deserved=2)],
     jobs=[running("a", 0.5, 50, "queue0", "node0", group="g0"),
           running("b", 0.5, 50, "queue0", "node0", group="g1"),
           pending("whole", 1, 50, "queue0")],
     expect={"whole-0": dict(after="Pipelined", node="node0"),
             "a-0": dict(after="Running", node="node0"),
             "b-0": dict(after="Pipelined", node="node0", gpuGroups=["g0"])},
     counts=dict(evictions=0, pipelined=2))
