#!/usr/bin/env python3
"""Runs `kubectl apply --dry-run=client --validate=false` over the shipped manifests.

kubectl needs API discovery even for a client-side dry run, so this starts a minimal, read-only
discovery server on 127.0.0.1 (built-in groups the samples use, plus the KAI CRD groups) that
answers 404 to every object GET. kubectl thereby parses every document with its real decoders
(sigs.k8s.io/yaml, kustomize for -k) and maps every kind to a resource, which catches YAML that
our own parser would accept but kubectl would not.

  hack/kubectl-dry-run.py            exit 0 when every manifest is accepted
Exit code 77 (CTest's "skipped") when kubectl is not installed.
"""

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# group -> version -> [(resource, kind, namespaced, shortNames)]
RESOURCES = {
    "": {"v1": [("pods", "Pod", True, ["po"]), ("namespaces", "Namespace", False, ["ns"]),
                ("configmaps", "ConfigMap", True, ["cm"])]},
    "batch": {"v1": [("jobs", "Job", True, [])]},
    "scheduling.k8s.io": {"v1": [("priorityclasses", "PriorityClass", False, ["pc"])]},
    "apiextensions.k8s.io": {"v1": [("customresourcedefinitions", "CustomResourceDefinition",
                                     False, ["crd", "crds"])]},
    "scheduling.run.ai": {
        "v2": [("queues", "Queue", False, [])],
        "v2alpha2": [("podgroups", "PodGroup", True, ["pg"])],
        "v1alpha2": [("bindrequests", "BindRequest", True, [])],
    },
    "kai.scheduler": {
        "v1": [("configs", "Config", False, []), ("schedulingshards", "SchedulingShard", False,
                                                   [])],
        "v1alpha1": [("topologies", "Topology", False, [])],
    },
}


def resource_list(group, version):
    gv = version if not group else f"{group}/{version}"
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": gv,
        "resources": [{
            "name": name,
            "singularName": kind.lower(),
            "namespaced": namespaced,
            "kind": kind,
            "shortNames": short,
            "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
        } for name, kind, namespaced, short in RESOURCES[group][version]],
    }


def group_list():
    groups = []
    for group, versions in RESOURCES.items():
        if not group:
            continue
        vs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
        groups.append({"name": group, "versions": vs, "preferredVersion": vs[0]})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_json(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = self.path.split("?")[0].rstrip("/")
        parts = path.strip("/").split("/")
        if path == "/api":
            return self.send_json(200, {"kind": "APIVersions", "versions": ["v1"]})
        if path == "/apis":
            return self.send_json(200, group_list())
        if path == "/api/v1":
            return self.send_json(200, resource_list("", "v1"))
        if len(parts) == 3 and parts[0] == "apis" and parts[1] in RESOURCES and \
                parts[2] in RESOURCES[parts[1]]:
            return self.send_json(200, resource_list(parts[1], parts[2]))
        self.send_json(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                             "reason": "NotFound", "code": 404, "message": "not found"})


def main():
    kubectl = shutil.which("kubectl")
    if not kubectl:
        print("kubectl-dry-run: kubectl not found; skipping", file=sys.stderr)
        return 77
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    runs = [
        ["-f", os.path.join(ROOT, "crds")],
        ["-k", os.path.join(ROOT, "config", "samples")],
        ["-k", os.path.join(ROOT, "config", "samples", "workloads")],
        ["-f", os.path.join(ROOT, "config", "samples", "scheduling.run.ai_v2alpha2_podgroup.yaml")],
        ["-f", os.path.join(ROOT, "config", "samples",
                            "scheduling.run.ai_v1alpha2_bindrequest.yaml")],
    ]
    failed = False
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, HOME=home, KUBECONFIG=os.path.join(home, "none"))
        for args in runs:
            cmd = [kubectl, "apply", "--dry-run=client", "--validate=false", f"--server={url}",
                   "--namespace=default", "--request-timeout=20s"] + args
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
            print("$ kubectl apply --dry-run=client " + " ".join(args))
            print(proc.stdout.strip())
            if proc.returncode != 0:
                print(proc.stderr.strip(), file=sys.stderr)
                failed = True
    server.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
