#!/usr/bin/env bash
# The conformance suite (and, with E2E_MODE=bench, a benchmark) on a kind cluster running either
# upstream Volcano (IMPL=upstream, from its Helm chart) or this project's implementation
# (IMPL=this: the image built from the Dockerfile, loaded into kind, deployed with deploy/).
#
# Needs: docker (with a running engine), kind, kubectl, helm. When any is missing the script says
# which and exits 0 without running anything, so `make e2e` is safe everywhere. Environment:
#   IMPL                   upstream (default) or this
#   E2E_MODE               conformance (default), bench, or all (both)
#   E2E_NODES              simulated nodes to add with `volcano nodes` (default 0; bench: 50)
#   E2E_BENCH_JOBS         bench workload: gang jobs (default 20) ...
#   E2E_BENCH_REPLICAS     ... of this many pods each (default 10)
#   VOLCANO_CHART          Helm chart reference for Volcano (default: volcano-sh/volcano)
#   VOLCANO_CHART_VERSION  chart version (default: the newest)
#   E2E_IMAGE              this project's image tag (default volcano-py:e2e)
#   E2E_PYTHON             Python that runs the suite and the benchmark (default .venv/bin/python)
#   KEEP_CLUSTER=1         keep the kind cluster afterwards
# Results: out/e2e/<impl>/junit.xml, report.md, bench.json; out/e2e/side-by-side.md puts every
# implementation run so far side by side, with the local runs of `make conformance`,
# `make conformance-http` and `make conformance-wire` when their results exist.
set -euo pipefail
cd "$(dirname "$0")/.."

impl=${IMPL:-upstream}
mode=${E2E_MODE:-conformance}
case "$impl" in upstream | this) ;; *) echo "e2e: IMPL must be upstream or this, not '$impl'" >&2; exit 2 ;; esac
case "$mode" in conformance | bench | all) ;; *) echo "e2e: E2E_MODE must be conformance, bench or all, not '$mode'" >&2; exit 2 ;; esac
nodes=${E2E_NODES:-}
if [[ -z "$nodes" ]]; then
  if [[ "$mode" == conformance ]]; then nodes=0; else nodes=50; fi
fi
if ! [[ "$nodes" =~ ^[0-9]+$ ]]; then echo "e2e: E2E_NODES must be a number, not '$nodes'" >&2; exit 2; fi
python=${E2E_PYTHON:-.venv/bin/python}
image=${E2E_IMAGE:-volcano-py:e2e}
chart=${VOLCANO_CHART:-volcano-sh/volcano}
chart_version=()
if [[ -n "${VOLCANO_CHART_VERSION:-}" ]]; then chart_version=(--version "$VOLCANO_CHART_VERSION"); fi

missing=()
for tool in docker kind kubectl helm; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ! [[ " ${missing[*]} " == *" docker "* ]] && ! docker info >/dev/null 2>&1; then
  missing+=("a running Docker engine")
fi
if ((${#missing[@]})); then
  echo "e2e: SKIPPED (IMPL=$impl) - the kind harness needs: ${missing[*]}."
  echo "e2e: install them, or point the suite at any Volcano cluster with:"
  echo "       .venv/bin/python -m pytest volcano/conformance --backend=kubeconfig --kubeconfig=PATH"
  exit 0
fi

cluster=volcano-conformance
out=out/e2e/$impl
mkdir -p "$out"
work=$(mktemp -d)
kubeconfig=$work/kubeconfig
cleanup() {
  rm -rf "$work"
  if [[ "${KEEP_CLUSTER:-0}" != 1 ]]; then kind delete cluster --name "$cluster"; fi
}
trap cleanup EXIT

kind create cluster --name "$cluster" --config kind-config.yaml --kubeconfig "$kubeconfig" --wait 120s
export KUBECONFIG=$kubeconfig

helm repo add volcano-sh https://volcano-sh.github.io/helm-charts >/dev/null
helm repo update >/dev/null

if [[ "$impl" == this || "$nodes" -gt 0 ]]; then
  docker build -t "$image" .
  kind load docker-image "$image" --name "$cluster"
fi

if [[ "$impl" == upstream ]]; then
  helm install volcano "$chart" "${chart_version[@]}" -n volcano-system --create-namespace --wait
else
  # Volcano's CRDs, from its chart, applied server-side (the jobs CRD is too large for the
  # last-applied annotation of a client-side apply).
  helm pull "$chart" "${chart_version[@]}" --untar --untardir "$work/chart"
  # crd/bases holds the apiextensions.k8s.io/v1 CRDs (crd/v1beta1 the legacy ones, not applied).
  crds=$(find "$work/chart" -path '*/crd/bases/*.yaml' | sort)
  if [[ -z "$crds" ]]; then echo "e2e: no CRDs found in the chart $chart" >&2; exit 1; fi
  for crd in $crds; do kubectl apply --server-side --force-conflicts -f "$crd"; done
  kubectl wait --for=condition=Established crd --all --timeout=120s
  kubectl apply -k deploy/
  for component in volcano-admission volcano-controllers volcano-scheduler; do
    kubectl -n volcano-system rollout status "deployment/$component" --timeout=300s
  done
  # The webhooks register their configurations once they serve.
  for _ in $(seq 60); do
    if kubectl get validatingwebhookconfiguration volcano-admission-service-jobs-validate >/dev/null 2>&1; then break; fi
    sleep 2
  done
fi

if [[ "$nodes" -gt 0 ]]; then
  kubectl get namespace volcano-system >/dev/null 2>&1 || kubectl create namespace volcano-system
  kubectl -n volcano-system create configmap volcano-nodes --from-literal=count="$nodes" \
    --dry-run=client -o yaml | kubectl apply -f -
  kubectl apply -k deploy/nodes/
  kubectl -n volcano-system rollout status deployment/volcano-nodes --timeout=300s
fi

status=0
if [[ "$mode" != bench ]]; then
  "$python" -m pytest volcano/conformance --backend=kubeconfig --kubeconfig "$kubeconfig" \
    --junitxml="$out/junit.xml" --conformance-report="$out/report.md" || status=$?
fi
if [[ "$mode" != conformance ]]; then
  "$python" scripts/e2e_bench.py --kubeconfig "$kubeconfig" --impl "$impl" \
    --jobs "${E2E_BENCH_JOBS:-20}" --replicas "${E2E_BENCH_REPLICAS:-10}" --nodes "$nodes" \
    --out "$out/bench.json" || status=$?
fi
"$python" scripts/e2e_report.py out/e2e --column memory=out/conformance/junit.xml \
  --column http=out/conformance-http/junit.xml --column wire=out/conformance-wire/junit.xml \
  --out out/e2e/side-by-side.md
exit "$status"
