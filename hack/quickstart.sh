#!/usr/bin/env bash
# The main job on a fresh machine: installs dependencies, builds, starts a local cluster
# (localkube with simulated GPU nodes), runs kai-scheduler and kai-binder against it, submits the
# sample workloads and shows where they were placed. The cluster then keeps running until Ctrl-C,
# with KUBECONFIG printed for kubectl.
#
#   KAI_NODES (4), KAI_GPUS_PER_NODE (8)   size of the simulated cluster
#   KAI_QUICKSTART_EXIT=1                  stop everything after the demo (used by CI smoke runs)
#   KAI_QUICKSTART_SKIP_BUILD=1            use the binaries already in build/bin
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${KAI_QUICKSTART_SKIP_BUILD:-0}" != "1" ]; then
  hack/install-deps.sh
  # Only what the demo runs: tests and benchmarks are half of a cold build.
  hack/build.sh release localkube kai-scheduler kai-binder
fi

work="$(mktemp -d /tmp/kai-quickstart.XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== local cluster: ${KAI_NODES:-4} nodes x ${KAI_GPUS_PER_NODE:-8} simulated GPUs (logs in $work)"
build/bin/localkube --listen 127.0.0.1:0 --kubeconfig-out "$work/kubeconfig" \
  --nodes "${KAI_NODES:-4}" --gpus-per-node "${KAI_GPUS_PER_NODE:-8}" \
  >"$work/localkube.log" 2>&1 &
pids+=($!)
export KUBECONFIG="$work/kubeconfig"
for _ in $(seq 1 100); do
  [ -s "$KUBECONFIG" ] && kubectl get --raw /readyz >/dev/null 2>&1 && break
  sleep 0.1
done
kubectl get --raw /readyz >/dev/null || { cat "$work/localkube.log"; exit 1; }

echo "== CRDs, queues, priority classes, Config and SchedulingShard"
kubectl apply -f crds/ >/dev/null
kubectl wait --for condition=established --timeout=30s crd --all >/dev/null
kubectl create namespace kai-resource-reservation >/dev/null
kubectl create namespace team-a >/dev/null
kubectl apply -k config/samples >/dev/null

echo "== kai-scheduler and kai-binder"
build/bin/kai-scheduler run --kubeconfig="$KUBECONFIG" --listen-address=127.0.0.1:0 \
  --plugin-server-port=0 \
  >"$work/scheduler.log" 2>&1 &
pids+=($!)
build/bin/kai-binder --kubeconfig="$KUBECONFIG" --metrics-bind-address=0 \
  --health-probe-bind-address=0 >"$work/binder.log" 2>&1 &
pids+=($!)

echo "== sample workloads (config/samples/workloads) in namespace team-a"
kubectl apply -k config/samples/workloads -n team-a

total=$(kubectl get pods -n team-a --no-headers | wc -l)
for _ in $(seq 1 60); do
  bound=$(kubectl get pods -n team-a -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' |
    grep -c . || true)
  [ "$bound" -ge "$total" ] && break
  sleep 1
done
kubectl get pods -n team-a -o wide
kubectl get podgroups -n team-a
kubectl get queues
echo "$bound of $total pods placed"

if [ "${KAI_QUICKSTART_EXIT:-0}" = "1" ]; then
  [ "$bound" -ge "$total" ] || { tail -n 30 "$work/scheduler.log" "$work/binder.log"; exit 1; }
  exit 0
fi
cat <<EOF

The cluster keeps running. In another shell:
  export KUBECONFIG=$KUBECONFIG
  kubectl get nodes; kubectl get pods -A -o wide; kubectl get queues
Logs: $work/{localkube,scheduler,binder}.log. Ctrl-C stops everything.
EOF
while sleep 3600; do :; done
