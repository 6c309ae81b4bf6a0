#!/usr/bin/env bash
# Run the conformance suite against a real Volcano on a kind cluster.
#
# Needs: docker (with a running engine), kind, kubectl, helm. When any is
# missing the script says which and exits 0 without running anything, so
# `make e2e` is safe everywhere. Environment:
#   VOLCANO_CHART   Helm chart reference for Volcano (default: volcano-sh/volcano)
#   KEEP_CLUSTER=1  keep the kind cluster afterwards
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for tool in docker kind kubectl helm; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]} == 0)) && ! docker info >/dev/null 2>&1; then
  missing+=("a running Docker engine")
fi
if ((${#missing[@]})); then
  echo "e2e: SKIPPED - the kind harness needs: ${missing[*]}."
  echo "e2e: install them, or point the suite at any Volcano cluster with:"
  echo "       .venv/bin/python -m pytest volcano/conformance --backend=kubeconfig --kubeconfig=PATH"
  exit 0
fi

cluster=volcano-conformance
kubeconfig=$(mktemp)
trap 'rm -f "$kubeconfig"; [[ "${KEEP_CLUSTER:-0}" == 1 ]] || kind delete cluster --name "$cluster"' EXIT

kind create cluster --name "$cluster" --config kind-config.yaml --kubeconfig "$kubeconfig" --wait 120s
export KUBECONFIG=$kubeconfig
helm repo add volcano-sh https://volcano-sh.github.io/helm-charts >/dev/null
helm repo update >/dev/null
helm install volcano "${VOLCANO_CHART:-volcano-sh/volcano}" -n volcano-system --create-namespace --wait
.venv/bin/pip install --quiet kubernetes
.venv/bin/python -m pytest volcano/conformance --backend=kubeconfig --kubeconfig "$kubeconfig" \
  --junitxml=out/e2e/junit.xml --conformance-report=out/e2e/report.md
