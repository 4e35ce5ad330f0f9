#!/usr/bin/env python3
"""Renders compact scenario specs into scenario YAML files (test/scenarios/FORMAT.md).

A spec is a Python dict describing nodes, queues, departments and jobs with the same vocabulary
as KAI's test fixtures (GPUs per task, priority, queue, task states), so a behaviour case is a
dozen lines instead of two hundred lines of Kubernetes objects. The rendering follows the
conventions of FORMAT.md ("Rendering of KAI's fake objects") so that generated cases behave
exactly like the converted acceptance cases.

Usage: scengen.py SPECFILE OUTDIR   (SPECFILE defines CASES = [spec, ...])
"""
import datetime
import json
import os
import re
import sys

NOW = datetime.datetime(2025, 1, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)

DEFAULT_PLUGINS = [
    ("predicates", None), ("proportion", None), ("priority", None), ("elastic", None),
    ("kubeflow", None), ("ray", None), ("nodeavailability", None), ("gpusharingorder", None),
    ("gpupack", None), ("resourcetype", None), ("subgrouporder", None), ("taskorder", None),
    ("nominatednode", None), ("dynamicresources", None),
    ("nodeplacement", {"cpu": "binpack", "gpu": "binpack"}), ("minruntime", None),
    ("topology", None), ("snapshot", None),
]
ALL_PLUGINS = [p for p, _ in DEFAULT_PLUGINS] + ["podaffinity", "gpuspread"]
PRIORITY_NAMES = {50: "train", 75: "build-preemptible", 100: "build", 125: "inference"}


def ts(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def q(v):
    """A YAML scalar: JSON quoting is valid YAML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return json.dumps(str(v))


def flow(d):
    return "{" + ", ".join(f"{k}: {q(v) if not isinstance(v, (dict, list)) else flowv(v)}"
                           for k, v in d.items()) + "}"


def flowv(v):
    if isinstance(v, dict):
        return flow(v)
    return "[" + ", ".join(flowv(x) if isinstance(x, (dict, list)) else q(x) for x in v) + "]"


def kname(name):
    return name.replace("_", "-")


def fmt_num(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


def priority_class(p):
    if p is None:
        return "prio-0", 0
    return PRIORITY_NAMES.get(p, f"prio-{p}"), p


class Out:
    def __init__(self):
        self.lines = []

    def add(self, indent, text):
        self.lines.append(" " * indent + text)


def render_resources(out, indent, res):
    out.add(indent, "gpu: " + flow(res["gpu"]))
    out.add(indent, "cpu: " + flow(res["cpu"]))
    out.add(indent, "memory: " + flow(res["memory"]))


def queue_resources(spec, department=False):
    deserved = spec.get("deserved", 0)
    gpu = {"quota": deserved,
           "limit": spec.get("limit", -1),
           "overQuotaWeight": spec.get("oqw", deserved if department else 0)}
    cpu = {"quota": spec.get("cpu_quota", -1), "limit": spec.get("cpu_limit", -1),
           "overQuotaWeight": spec.get("cpu_oqw", 1)}
    mem = {"quota": spec.get("mem_quota", -1), "limit": spec.get("mem_limit", -1),
           "overQuotaWeight": spec.get("mem_oqw", 1)}
    return {"gpu": gpu, "cpu": cpu, "memory": mem}


def render(spec):
    out = Out()
    name = spec["name"]
    out.add(0, f"# {spec.get('comment', 'Behaviour case of the project (not converted from KAI).')}")
    if spec.get("ref"):
        out.add(0, f"# Expectation from docs: /work/shared/reference/kai-reference.md {spec['ref']}.")
    for line in spec.get("why", "").strip().splitlines():
        out.add(0, "# " + line.strip())
    out.add(0, "name: " + q(name))
    out.add(0, "source: " + q(spec.get("source", "project:" + spec.get("slug", name))))
    out.add(0, "reference: " + q(spec.get("ref", "")))
    out.add(0, "actions: [" + ", ".join(spec["actions"]) + "]")
    out.add(0, "now: " + q(ts(NOW)))
    if spec.get("cycles"):
        out.add(0, f"cycles: {spec['cycles']}")
    out.add(0, "cluster:")

    jobs = spec.get("jobs", [])
    # Priority classes.
    prios = []
    for j in jobs:
        pc = priority_class(j.get("priority"))
        if pc not in prios:
            prios.append(pc)
    for pname, pval in prios:
        out.add(2, "- apiVersion: scheduling.k8s.io/v1")
        out.add(2, "  kind: PriorityClass")
        out.add(2, f"  metadata: {{name: {pname}}}")
        out.add(2, f"  value: {pval}")
        out.add(2, "  globalDefault: false")

    # Scheduling shard.
    out.add(2, "- apiVersion: kai.scheduler/v1")
    out.add(2, "  kind: SchedulingShard")
    out.add(2, "  metadata: {name: default}")
    out.add(2, "  spec:")
    args = {"max-consolidation-preemptees": "-1", "allow-consolidating-reclaim": "true",
            "default-staleness-grace-period": "0s"}
    args.update(spec.get("args", {}))
    out.add(4, "  args:")
    for k, v in args.items():
        out.add(8, f"{k}: {q(v)}")
    plugins = spec.get("plugins", DEFAULT_PLUGINS)
    out.add(4, "  plugins:")
    prio = 100 * (len(plugins) + 1)
    listed = set()
    for pname, pargs in plugins:
        listed.add(pname)
        if pargs:
            out.add(8, f"{pname}:")
            out.add(10, "enabled: true")
            out.add(10, f"priority: {prio}")
            out.add(10, "arguments: " + flow(pargs))
        else:
            out.add(8, f"{pname}: {{enabled: true, priority: {prio}}}")
        prio -= 100
    for pname in ALL_PLUGINS:
        if pname not in listed:
            out.add(8, f"{pname}: {{enabled: false}}")

    for topo in spec.get("topologies", []):
        out.add(2, "- apiVersion: kai.scheduler/v1alpha1")
        out.add(2, "  kind: Topology")
        out.add(2, f"  metadata: {{name: {topo['name']}}}")
        out.add(2, "  spec:")
        out.add(2, "    levels:")
        for level in topo["levels"]:
            out.add(6, f"  - nodeLabel: {level}")

    # Queues.
    departments = spec.get("departments", [])
    queues = spec.get("queues", [])
    base = NOW - datetime.timedelta(days=1)
    if not departments and not spec.get("no_default_parent"):
        out.add(2, "- apiVersion: scheduling.run.ai/v2")
        out.add(2, "  kind: Queue")
        out.add(2, f"  metadata: {{name: default, creationTimestamp: {q(ts(base))}}}")
        out.add(2, "  spec:")
        out.add(2, "    resources:")
        render_resources(out, 8, {"gpu": {"quota": -1, "limit": -1, "overQuotaWeight": -1},
                                  "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                                  "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}})
    for i, d in enumerate(departments):
        out.add(2, "- apiVersion: scheduling.run.ai/v2")
        out.add(2, "  kind: Queue")
        created = base + datetime.timedelta(minutes=i)
        out.add(2, f"  metadata: {{name: {d['name']}, creationTimestamp: {q(ts(created))}}}")
        out.add(2, "  spec:")
        if d.get("priority") is not None:
            out.add(2, f"    priority: {d['priority']}")
        if d.get("parent"):
            out.add(2, f"    parentQueue: {d['parent']}")
        for key, field in (("preempt_min_runtime", "preemptMinRuntime"),
                           ("reclaim_min_runtime", "reclaimMinRuntime")):
            if d.get(key):
                out.add(2, f"    {field}: {q(d[key])}")
        out.add(2, "    resources:")
        render_resources(out, 8, queue_resources(d, department=True))
    for i, qu in enumerate(queues):
        out.add(2, "- apiVersion: scheduling.run.ai/v2")
        out.add(2, "  kind: Queue")
        created = base + datetime.timedelta(minutes=i)
        out.add(2, f"  metadata: {{name: {qu['name']}, creationTimestamp: {q(ts(created))}}}")
        out.add(2, "  spec:")
        out.add(2, f"    displayName: {qu['name']}")
        parent = qu.get("parent", None if departments else "default")
        if spec.get("no_default_parent") and "parent" not in qu:
            parent = None
        if parent:
            out.add(2, f"    parentQueue: {parent}")
        if qu.get("priority") is not None:
            out.add(2, f"    priority: {qu['priority']}")
        for key, field in (("preempt_min_runtime", "preemptMinRuntime"),
                           ("reclaim_min_runtime", "reclaimMinRuntime")):
            if qu.get(key):
                out.add(2, f"    {field}: {q(qu[key])}")
        out.add(2, "    resources:")
        render_resources(out, 8, queue_resources(qu))

    # Nodes.
    for nname, n in spec.get("nodes", {}).items():
        gpus = n.get("gpus", 0)
        mig = n.get("mig", {})
        strategy = n.get("mig_strategy")
        labels = {"nvidia.com/gpu.count": str(n.get("gpu_count", gpus)),
                  "nvidia.com/gpu.memory": str(n.get("gpu_memory", 100)),
                  "node-role.kubernetes.io/mig-enabled": "true" if strategy or mig else "false"}
        if n.get("no_gpu_memory_label"):
            del labels["nvidia.com/gpu.memory"]
        if strategy:
            labels["nvidia.com/mig.strategy"] = strategy
        labels["kai.scheduler/type"] = nname
        labels.update(n.get("labels", {}))
        out.add(2, "- apiVersion: v1")
        out.add(2, "  kind: Node")
        out.add(2, "  metadata:")
        out.add(2, f"    name: {nname}")
        out.add(2, "    labels:")
        for k, v in labels.items():
            out.add(6, f"  {k}: {q(v)}")
        if n.get("taints") or n.get("unschedulable"):
            out.add(2, "  spec:")
            if n.get("unschedulable"):
                out.add(2, "    unschedulable: true")
            if n.get("taints"):
                out.add(2, "    taints:")
                for t in n["taints"]:
                    out.add(6, "  - " + flow(t))
        out.add(2, "  status:")
        cpu = n.get("cpu")
        mem = n.get("memory")
        gpu_alloc = 0 if strategy == "mixed" else gpus
        for section, dcpu, dmem in (("capacity", "30000", "30G"), ("allocatable", "20000", "20G")):
            out.add(2, f"    {section}:")
            out.add(6, f"  cpu: {q(fmt_num(cpu) if cpu is not None else dcpu)}")
            out.add(6, f"  memory: {q(fmt_num(mem) if mem is not None else dmem)}")
            out.add(6, f"  nvidia.com/gpu: {q(str(gpu_alloc))}")
            for prof, cnt in mig.items():
                out.add(6, f"  nvidia.com/mig-{prof}: {q(str(cnt))}")
            for r, v in n.get("extended", {}).items():
                out.add(6, f"  {r}: {q(str(v))}")
            out.add(6, f"  pods: {q(str(n.get('pods', 110)))}")
        out.add(2, "    conditions:")
        out.add(6, "  - type: Ready")
        out.add(6, f"    status: {q('False' if n.get('not_ready') else 'True')}")

    # Jobs, created in priority order (highest first).
    order = sorted(range(len(jobs)), key=lambda i: -(jobs[i].get("priority") or 0))
    created_at = {}
    for pos, i in enumerate(order):
        j = jobs[i]
        if j.get("age_min") is not None:
            created_at[i] = NOW - datetime.timedelta(minutes=j["age_min"])
        else:
            created_at[i] = NOW - datetime.timedelta(minutes=len(jobs) - pos)
    for i, j in enumerate(jobs):
        render_job(out, j, created_at[i])

    # Expectations.
    out.add(0, "expect:")
    exp = spec.get("expect", {})
    if exp:
        out.add(2, "pods:")
        for key, want in exp.items():
            out.add(4, f"{pod_key(key)}: " + flow(want))
    if spec.get("counts"):
        out.add(2, "counts: " + flow(spec["counts"]))
    if spec.get("expect_queues"):
        out.add(2, "queues:")
        for qn, fs in spec["expect_queues"].items():
            out.add(4, f"{qn}: {{fairShare: {flow(fs)}}}")
    if spec.get("expect_reasons"):
        out.add(2, "podGroups:")
        for pg, subs in spec["expect_reasons"].items():
            out.add(4, f"{pod_key(pg)}:")
            out.add(6, "unschedulableReasonContains:")
            for s in subs:
                out.add(8, "- " + q(s))
    return "\n".join(out.lines) + "\n"


def pod_key(key):
    if "/" in key:
        return key
    return "default/" + kname(key)


def render_job(out, j, created):
    jname = kname(j["name"])
    ns = j.get("namespace", "default")
    tasks = j.get("tasks", [{"state": "Pending"}])
    pname, _ = priority_class(j.get("priority"))
    running = any(t.get("state", "Pending") in ("Running", "Releasing") for t in tasks)
    ann = {}
    if running and not j.get("no_last_start"):
        ann["kai.scheduler/last-start-timestamp"] = ts(
            NOW - datetime.timedelta(minutes=j.get("last_start_min", 1)))
    if j.get("stale_sec") is not None:
        ann["kai.scheduler/stale-podgroup-timestamp"] = ts(
            NOW - datetime.timedelta(seconds=j["stale_sec"]))
    out.add(2, "- apiVersion: scheduling.run.ai/v2alpha2")
    out.add(2, "  kind: PodGroup")
    out.add(2, "  metadata:")
    out.add(2, f"    name: {jname}")
    out.add(2, f"    namespace: {ns}")
    out.add(2, f"    creationTimestamp: {q(ts(created))}")
    if ann:
        out.add(2, "    annotations: " + flow(ann))
    out.add(2, "  spec:")
    subgroups = j.get("subgroups")
    if subgroups:
        minm = sum(s.get("min", 1) for s in subgroups if "min" in s)
    else:
        minm = j.get("min_available", len(tasks))
    out.add(2, f"    minMember: {minm}")
    out.add(2, f"    queue: {j['queue']}")
    out.add(2, f"    priorityClassName: {pname}")
    if j.get("preemptibility"):
        out.add(2, f"    preemptibility: {j['preemptibility']}")
    if j.get("topology"):
        out.add(2, "    topologyConstraint: " + flow(j["topology"]))
    if subgroups:
        out.add(2, "    subGroups:")
        for s in subgroups:
            d = {"name": s["name"]}
            if s.get("parent"):
                d["parent"] = s["parent"]
            if "min" in s:
                d["minMember"] = s["min"]
            if s.get("topology"):
                d["topologyConstraint"] = s["topology"]
            out.add(6, "  - " + flow(d))
    for idx, t in enumerate(tasks):
        render_pod(out, j, t, f"{jname}-{idx}", ns, created)


def render_pod(out, j, t, pod, ns, created):
    state = t.get("state", "Pending")
    gpus = t.get("gpus", j.get("gpus", 0))
    gpu_memory = t.get("gpu_memory", j.get("gpu_memory"))
    devices = t.get("num_devices", j.get("num_devices"))
    mig = t.get("mig", j.get("mig", {}))
    labels = {"kai.scheduler/queue": j["queue"], "job-name": pod}
    if t.get("subgroup"):
        labels["kai.scheduler/subgroup-name"] = t["subgroup"]
    if t.get("task_priority") is not None:
        labels["kai.scheduler/task-priority"] = str(t["task_priority"])
    labels.update(j.get("labels", {}))
    labels.update(t.get("labels", {}))
    groups = t.get("gpu_groups") or ([t["gpu_group"]] if t.get("gpu_group") else [])
    fractional = (0 < gpus < 1) or gpu_memory or (devices and gpus)
    holds = state in ("Running", "Releasing")
    if holds and fractional and not groups:
        groups = [f"{pod}-gpu-group"]
    if len(groups) == 1:
        labels["runai-gpu-group"] = groups[0]
    else:
        for g in groups:
            labels[f"runai-gpu-group/{g}"] = g
    ann = {"pod-group-name": kname(j["name"])}
    if gpu_memory:
        ann["gpu-memory"] = str(gpu_memory)
    elif fractional:
        ann["gpu-fraction"] = fmt_num(gpus)
    if devices:
        ann["gpu-fraction-num-devices"] = str(devices)
    if holds:
        if mig:
            ann["received-resource-type"] = "MigInstance"
        elif fractional and not gpu_memory:
            ann["received-resource-type"] = "Fraction"
        else:
            ann["received-resource-type"] = "Regular"
    ann.update(t.get("annotations", {}))
    out.add(2, "- apiVersion: v1")
    out.add(2, "  kind: Pod")
    out.add(2, "  metadata:")
    out.add(2, f"    name: {pod}")
    out.add(2, f"    namespace: {ns}")
    out.add(2, f"    creationTimestamp: {q(ts(created))}")
    out.add(2, "    labels: " + flow(labels))
    out.add(2, "    annotations: " + flow(ann))
    if state == "Releasing":
        out.add(2, f"    deletionTimestamp: {q(ts(NOW))}")
        if t.get("keep_terminating"):
            out.add(2, "    finalizers: [kai.scheduler/simulation-keep-terminating]")
    out.add(2, "  spec:")
    out.add(2, "    schedulerName: " + j.get("scheduler", "kai-scheduler"))
    if holds or state in ("Succeeded", "Failed"):
        out.add(2, f"    nodeName: {t['node']}")
    if j.get("node_selector"):
        out.add(2, "    nodeSelector: " + flow(j["node_selector"]))
    if j.get("node_affinity"):
        out.add(2, "    affinity:")
        out.add(2, "      nodeAffinity:")
        out.add(2, "        requiredDuringSchedulingIgnoredDuringExecution:")
        out.add(2, "          nodeSelectorTerms:")
        out.add(2, "            - matchExpressions:")
        out.add(2, "                - {key: kai.scheduler/type, operator: In, values: " +
                flowv(j["node_affinity"]) + "}")
    if j.get("tolerations"):
        out.add(2, "    tolerations:")
        for tol in j["tolerations"]:
            out.add(6, "- " + flow(tol))
    requests = {}
    limits = {}
    if not j.get("best_effort"):
        requests["cpu"] = fmt_num(t.get("cpu", j.get("cpu", "1")))
        requests["memory"] = fmt_num(t.get("memory", j.get("memory", "1G")))
    if gpus >= 1 and not devices:
        requests["nvidia.com/gpu"] = fmt_num(gpus)
        limits["nvidia.com/gpu"] = fmt_num(gpus)
    for prof, cnt in mig.items():
        requests[f"nvidia.com/mig-{prof}"] = str(cnt)
        limits[f"nvidia.com/mig-{prof}"] = str(cnt)
    for r, v in t.get("extended", j.get("extended", {})).items():
        requests[r] = str(v)
        limits[r] = str(v)
    out.add(2, "    containers:")
    out.add(6, "  - name: main")
    out.add(6, "    image: busybox")
    if requests or limits:
        out.add(6, "    resources:")
        if requests:
            out.add(6, "      requests: " + flow(requests))
        if limits:
            out.add(6, "      limits: " + flow(limits))
    phase = {"Releasing": "Running"}.get(state, state)
    out.add(2, f"  status: {{phase: {phase}}}")


def slugify(s):
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")[:60]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ns = {}
    with open(sys.argv[1]) as f:
        exec(compile(f.read(), sys.argv[1], "exec"), ns)
    for spec in ns["CASES"]:
        d = os.path.join(sys.argv[2], spec.get("dir", "misc"))
        os.makedirs(d, exist_ok=True)
        fname = f"{spec['id']}-{spec.get('slug') or slugify(spec['name'])}.yaml"
        with open(os.path.join(d, fname), "w") as f:
            f.write(render(spec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
