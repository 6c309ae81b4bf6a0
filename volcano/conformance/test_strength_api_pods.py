"""API conformance: what a pod is given on create, and what its spec may name.

* The ServiceAccount admission plugin: a pod naming no service account runs as ``default``
  (``spec.serviceAccountName``, mirrored in the deprecated ``spec.serviceAccount``); one naming
  only the deprecated field runs as that one; an update does not add one.
* ``spec.serviceAccountName`` must be a DNS subdomain (422 naming it, nothing stored).
* A preferred pod (anti-)affinity term is validated like a required one (its ``topologyKey``),
  beside its weight; a toleration without a key must use ``Exists``.
* A pod that has finished (``Succeeded``) is removed at once by a delete, whatever its grace period.
* A pod's resources may not change through an update; the refusal's diff shows the quantities. An
  updated image may not carry whitespace; a gated pod may not add a required node selector term.

Pods use a scheduler that does not exist, so nothing runs. Every case uses only the
backend-neutral ``cluster`` fixture.
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod as built_pod
from volcano.conformance.test_admission import denial, plain
from volcano.conformance.test_cov_api_nodes import PATTERN
from volcano.conformance.test_strength_api_edges import SUBDOMAIN

__all__: list[str] = []

Obj = dict[str, Any]


def _pod(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "strength-absent-scheduler",
                     "containers": [{"name": "c", "image": "busybox:1.36"}], **spec}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
@pytest.mark.parametrize(("spec", "account"), [
    pytest.param({}, "default", id="none"),
    pytest.param({"serviceAccountName": "builder"}, "builder", id="named"),
    pytest.param({"serviceAccount": "legacy"}, "legacy", id="deprecated-only"),
    pytest.param({"serviceAccountName": "builder", "serviceAccount": "legacy"}, "builder", id="both"),
])
def test_a_pod_runs_as_a_service_account(cluster: Cluster, spec: Obj, account: str) -> None:
    """``serviceAccountName`` (or, when absent, the deprecated ``serviceAccount``, or else
    ``default``) is the pod's account; the stored pod shows it in both fields."""
    made = plain(cluster.create(_pod("sa-pod", **spec)))
    assert (made["spec"]["serviceAccountName"], made["spec"]["serviceAccount"]) == (account, account)
    stored = cluster.get("Pod", "sa-pod")
    assert (stored["spec"]["serviceAccountName"], stored["spec"]["serviceAccount"]) == (account, account)


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_service_account_name_is_a_subdomain(cluster: Cluster) -> None:
    """``serviceAccountName: Bad_Account`` is 422 naming the field and value; nothing is stored."""
    d = denial(lambda: cluster.create(_pod("sa-bad", serviceAccountName="Bad_Account")))
    assert (d.code, d.reason, d.message) == (
        422, "Invalid", f'Pod "sa-bad" is invalid: spec.serviceAccountName: Invalid value: "Bad_Account": '
        f"{SUBDOMAIN}"), d
    assert cluster.try_get("Pod", "sa-bad") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_pod_template_gets_no_service_account(cluster: Cluster) -> None:
    """The plugin admits pods, not the templates of workloads: a Deployment's template keeps no
    ``serviceAccountName``."""
    labels = {"app": "sa-deploy"}
    made = plain(cluster.create({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "sa-deploy"},
        "spec": {"replicas": 0, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels}, "spec": _pod("x")["spec"]}}}))
    assert "serviceAccountName" not in made["spec"]["template"]["spec"]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_preferred_pod_affinity_terms_are_validated(cluster: Cluster) -> None:
    """A preferred podAntiAffinity term with weight 0 and no topologyKey: the weight's error, then the
    key's three (``Required``, then ``ValidateLabelName("")``'s two: an empty name part, and the
    pattern); a valid preferred podAffinity term is stored."""
    term = {"labelSelector": {"matchLabels": {"app": "x"}}}
    bad = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 0, "podAffinityTerm": term}]}}
    d = denial(lambda: cluster.create(_pod("affinity-bad", affinity=bad)))
    soft = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
    assert (d.code, d.message) == (
        422, f'Pod "affinity-bad" is invalid: [{soft}.weight: Invalid value: 0: must be in the range 1-100, '
        f"{soft}.podAffinityTerm.topologyKey: Required value: can not be empty, "
        f'{soft}.podAffinityTerm.topologyKey: Invalid value: "": name part must be non-empty, '
        f'{soft}.podAffinityTerm.topologyKey: Invalid value: "": {PATTERN}]'), d
    good = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": {**term, "topologyKey": "kubernetes.io/hostname"}}]}}
    made = plain(cluster.create(_pod("affinity-good", affinity=good)))
    assert made["spec"]["affinity"] == good


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_toleration_without_key_must_be_exists(cluster: Cluster) -> None:
    """``operator: Equal`` with no key is 422 naming the operator; ``Exists`` with no key is stored."""
    d = denial(lambda: cluster.create(_pod("tol-bad", tolerations=[{"operator": "Equal", "value": "x"}])))
    assert (d.code, d.message) == (
        422, 'Pod "tol-bad" is invalid: spec.tolerations[0].operator: Invalid value: "Equal": operator must be '
        'Exists when `key` is empty, which means "match all values and all keys"'), d
    made = plain(cluster.create(_pod("tol-good", tolerations=[{"operator": "Exists"}])))
    assert made["spec"]["tolerations"] == [{"operator": "Exists"}]


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_finished_pod_is_deleted_at_once(cluster: Cluster) -> None:
    """A bound pod that has Succeeded is removed by its delete straight away, though its grace
    period is ten minutes."""
    cluster.create(built_pod("finished", req={"cpu": "100m"}, duration="1s", grace_seconds=600))
    cluster.wait_until(lambda: (cluster.get("Pod", "finished").get("status") or {}).get("phase") == "Succeeded",
                       120, "the pod succeeds")
    cluster.delete("Pod", "finished")
    assert cluster.try_get("Pod", "finished") is None


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_refused_pod_update_shows_the_changed_quantities(cluster: Cluster) -> None:
    """A pod's resources may not change through an update (``spec: Forbidden: pod updates may not
    change fields ...``, followed by a diff). The diff is Go's on a real server; this server's
    (docs/architecture.md, deliberate differences) shows each changed quantity in milli-units."""
    cluster.create(_pod("pod-cpu", containers=[{"name": "c", "image": "busybox:1.36",
                                                "resources": {"requests": {"cpu": "100m"}}}]))
    change = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "250m"}}}]}}
    d = denial(lambda: cluster.patch("Pod", "pod-cpu", change, patch_type="strategic"))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message.startswith('Pod "pod-cpu" is invalid: spec: Forbidden: pod updates may not change fields '
                                "other than "), d.message
    if cluster.backend == "memory":
        assert "\n- \tcontainers[0].resources.requests.cpu: 100m\n+ \tcontainers[0].resources.requests.cpu: 250m\n" \
            in d.message, d.message
    assert plain(cluster.get("Pod", "pod-cpu"))["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "100m"}}


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_an_updated_image_may_not_carry_whitespace(cluster: Cluster) -> None:
    """A pod's image may change, but not to one with leading or trailing whitespace (422 naming the
    container's image); the stored image stays."""
    cluster.create(_pod("pod-image"))
    change = {"spec": {"containers": [{"name": "c", "image": "busybox:1.37 "}]}}
    d = denial(lambda: cluster.patch("Pod", "pod-image", change, patch_type="strategic"))
    assert (d.code, d.message) == (422, 'Pod "pod-image" is invalid: spec.containers[0].image: Invalid value: '
                                        '"busybox:1.37 ": must not have leading or trailing whitespace'), d
    assert plain(cluster.get("Pod", "pod-image"))["spec"]["containers"][0]["image"] == "busybox:1.36"


NODE_TERMS = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_a_gated_pod_keeps_its_number_of_node_selector_terms(cluster: Cluster) -> None:
    """A pod with scheduling gates may narrow its required node affinity, but not add a term to a
    non-empty ``nodeSelectorTerms`` list (422 naming the list; the value is printed as Go prints it
    on a real server, so only the field and the detail are compared)."""
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    cluster.create(_pod("pod-gated", schedulingGates=[{"name": "example.com/hold"}], affinity=affinity))
    other = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}
    more = {"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [term, other]}}}}}
    d = denial(lambda: cluster.patch("Pod", "pod-gated", more))
    assert (d.code, d.reason) == (422, "Invalid"), d
    assert d.message.startswith(f'Pod "pod-gated" is invalid: {NODE_TERMS}: Invalid value: '), d.message
    assert d.message.endswith(": no additions/deletions to non-empty NodeSelectorTerms list are allowed"), d.message
    stored = plain(cluster.get("Pod", "pod-gated"))["spec"]["affinity"]
    assert stored == affinity, stored


@pytest.mark.admission
@pytest.mark.cluster(workers=1)
def test_init_containers_are_defaulted_like_containers(cluster: Cluster) -> None:
    """An init container gets the container defaults: ``imagePullPolicy`` from its image's tag,
    ``terminationMessagePath`` and ``terminationMessagePolicy``."""
    made = plain(cluster.create(_pod("pod-init", initContainers=[{"name": "init", "image": "busybox:1.36"},
                                                                   {"name": "latest", "image": "busybox"}])))
    init = made["spec"]["initContainers"]
    assert [(c["imagePullPolicy"], c["terminationMessagePath"], c["terminationMessagePolicy"]) for c in init] == [
        ("IfNotPresent", "/dev/termination-log", "File"), ("Always", "/dev/termination-log", "File")], init
