"""nodeorder's and binpack's weights at their limits (scheduler reference §2.3, §5.7, §5.8).

Weights are read as Volcano's ``Arguments.GetInt`` reads them: YAML ints only, so a quoted number keeps
the default; binpack's negative resource weights count as 1 and ``binpack.weight: 0`` registers no
scorer. ``enableNodeOrder: false`` on an entry switches that plugin's scorer off. Two workers of 4 CPUs
and 16Gi, no control-plane node; a ``holder`` pod pinned to one worker, then the pod ``new`` placed by
the scores alone. Each table is built so that one value of the weight under test makes the two workers
tie exactly (the tie goes to the first worker by name, ``worker-0``), and the values on each side break
the tie either way; the holder sits on either worker so that each value is told apart from its
neighbours. ``imagelocality.weight`` weighs Kubernetes' ImageLocality score of images the workers list
in ``status.images``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from volcano.conformance.backends.base import Cluster
from volcano.conformance.lib.builders import pod
from volcano.conformance.lib.waits import bound

pytestmark = [pytest.mark.scheduling_base, pytest.mark.cluster(workers=2, cpu="4", memory="16Gi",
                                                               control_plane=False)]


def _conf(nodeorder: str = "", binpack: str | None = None, nodeorder_flag: str = "", binpack_flag: str = "") -> str:
    """predicates, proportion, nodeorder with ``nodeorder`` arguments (``;``-separated YAML lines), and
    binpack with ``binpack`` arguments when given."""
    def entry(name: str, args: str, flag: str = "") -> str:
        out = f"  - name: {name}\n" + (f"    {flag}\n" if flag else "")
        if args:
            out += "    arguments:\n" + "".join(f"      {line}\n" for line in args.split(";"))
        return out
    return ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            "- plugins:\n  - name: predicates\n  - name: proportion\n" + entry("nodeorder", nodeorder, nodeorder_flag)
            + (entry("binpack", binpack, binpack_flag) if binpack is not None else ""))


def _workers(cluster: Cluster) -> list[str]:
    """The worker names, sorted (read before any taint: a tainted worker is not listed as one)."""
    return sorted(w["metadata"]["name"] for w in cluster.worker_nodes())


def _place(cluster: Cluster, holder_on: int, holder_req: dict[str, str], req: dict[str, str],
           new: dict[str, object] | None = None, workers: list[str] | None = None) -> int:
    """Pin ``holder`` (``holder_req``) to worker ``holder_on``, then create ``new`` (``req``, extra spec
    fields ``new``); the index of the worker ``new`` binds to."""
    workers = workers or _workers(cluster)
    cluster.apply(pod("holder", req=holder_req, labels={"app": "holder"},
                      node_selector={"kubernetes.io/hostname": workers[holder_on]}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "holder")), 60, "holder binds")
    p = pod("new", req=req)
    p["spec"].update(new or {})
    cluster.apply(p)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "new")), 60, "new binds")
    return workers.index(cluster.get("Pod", "new")["spec"]["nodeName"])


BUSY = {"cpu": "2", "memory": "8Gi"}
SMALL = {"cpu": "1", "memory": "1Gi"}


def _cases(table: list[tuple[str, int, int]], make: Callable[[str], str]) -> list[Any]:
    """Parameters (holder's worker, chosen worker) of a table of nodeorder arguments."""
    return [pytest.param(holder, chosen, id=f"{args}@{holder}", marks=pytest.mark.scheduler_conf(make(args)))
            for args, holder, chosen in table]


# leastrequested against mostrequested (holder 2 CPUs 8Gi, new 1 CPU 1Gi): least scores the holder's
# worker 34 and the empty one 84, most 65 and 15, balanced 90 on both; with least at 1, most at 1 ties.
MOST = [
    ("mostrequested.weight: 0", 0, 1), ("mostrequested.weight: 1", 0, 0), ("mostrequested.weight: 2", 0, 0),
    ("mostrequested.weight: 1", 1, 0), ("mostrequested.weight: 2", 1, 1),
    ('mostrequested.weight: "2"', 1, 0),  # quoted: not an int, the default 0
    ("mostrequested.weight: 2;leastrequested.weight: 3", 1, 0),  # 102 + 90 + 30 against 252 + 90 + 130
    ("mostrequested.weight: 1;leastrequested.weight: 0", 1, 1),
]


@pytest.mark.parametrize(("holder", "chosen"), _cases(MOST, lambda a: _conf(a)))
def test_most_against_least_requested(cluster: Cluster, holder: int, chosen: int) -> None:
    """The weights of least- and most-requested decide between a half-full and an empty worker."""
    assert _place(cluster, holder, BUSY, SMALL) == chosen


# balancedresource (holder 8Gi of memory and no CPU, new 2 CPUs and no memory): least scores the empty worker 74
# and the holder's 49 (the new pod counts 200Mi of memory), balanced 75 and 100: at weights 1 and 1 a tie.
BALANCED = [
    ("balancedresource.weight: 0", 1, 0), ("balancedresource.weight: 1", 1, 0),
    ("balancedresource.weight: 2", 1, 1), ("balancedresource.weight: 1", 0, 0),
    ("balancedresource.weight: 0", 0, 1), ('balancedresource.weight: "2"', 1, 0),
    ("balancedresource.weight: 1;leastrequested.weight: 0", 1, 1),
]


@pytest.mark.parametrize(("holder", "chosen"), _cases(BALANCED, lambda a: _conf(a)))
def test_balanced_resource_weight(cluster: Cluster, holder: int, chosen: int) -> None:
    """A memory-less pod prefers the worker whose memory use matches its CPU share as far as
    balancedresource's weight outweighs least-requested."""
    assert _place(cluster, holder, {"memory": "8Gi"}, {"cpu": "2"}) == chosen


def _prefer_holder_node(weight: int = 1) -> dict[str, object]:
    return {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": weight, "preference": {"matchExpressions": [
            {"key": "opts-holder", "operator": "In", "values": ["yes"]}]}}]}}}


def _against_least(plugin: str) -> list[tuple[str, int, int]]:
    """Rows (arguments, holder's worker, chosen worker) of least-requested at weight 2 against ``plugin`` at
    weight 0, at 1 (the holder on either worker), at 2 and left at its default."""
    least = "leastrequested.weight: 2"
    return [(f"{least};{plugin}.weight: 0", 0, 1), (f"{least};{plugin}.weight: 1", 0, 0),
            (f"{least};{plugin}.weight: 1", 1, 0), (f"{least};{plugin}.weight: 2", 1, 1), (least, 1, 1)]


# nodeaffinity (least at 2: the empty worker leads by 100; the preferred term gives the holder's 100 x w);
# its default weight is 2
AFFINITY = [
    *_against_least("nodeaffinity"),
    ('leastrequested.weight: 2;nodeaffinity.weight: "0"', 1, 1),  # quoted: the default
]


@pytest.mark.parametrize(("holder", "chosen"), _cases(AFFINITY, lambda a: _conf(a)))
def test_node_affinity_weight(cluster: Cluster, holder: int, chosen: int) -> None:
    """A preferred node-affinity term for the holder's worker against least-requested at weight 2."""
    workers = _workers(cluster)
    cluster.patch("Node", workers[holder], {"metadata": {"labels": {"opts-holder": "yes"}}}, namespace="")
    assert _place(cluster, holder, BUSY, SMALL, _prefer_holder_node()) == chosen


# tainttoleration (least at 2: the empty worker leads by 100; a PreferNoSchedule taint on it costs 100 x w)
TAINTS = _against_least("tainttoleration")  # its default weight is 3


@pytest.mark.parametrize(("holder", "chosen"), _cases(TAINTS, lambda a: _conf(a)))
def test_taint_toleration_weight(cluster: Cluster, holder: int, chosen: int) -> None:
    """A PreferNoSchedule taint on the empty worker against least-requested at weight 2."""
    workers = _workers(cluster)
    cluster.patch("Node", workers[1 - holder], {"spec": {"taints": [
        {"key": "opts", "value": "soft", "effect": "PreferNoSchedule"}]}}, namespace="")
    assert _place(cluster, holder, BUSY, SMALL, workers=workers) == chosen


# podaffinity (least at 2: the empty worker leads by 100; a preferred term for the holder gives 100 x w)
POD_AFFINITY = [
    ("leastrequested.weight: 2;podaffinity.weight: 0", 0, 1),
    ("leastrequested.weight: 2;podaffinity.weight: 1", 0, 0),
    ("leastrequested.weight: 2;podaffinity.weight: 1", 1, 0),
    ("leastrequested.weight: 2;podaffinity.weight: 2", 1, 1),
]


@pytest.mark.parametrize(("holder", "chosen"), _cases(POD_AFFINITY, lambda a: _conf(a)))
def test_pod_affinity_weight(cluster: Cluster, holder: int, chosen: int) -> None:
    """A preferred pod-affinity term for the holder against least-requested at weight 2."""
    term = {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "holder"}},
                                              "topologyKey": "kubernetes.io/hostname"}}
    preferred = {"preferredDuringSchedulingIgnoredDuringExecution": [term]}
    extra: dict[str, object] = {"affinity": {"podAffinity": preferred}}
    assert _place(cluster, holder, BUSY, SMALL, extra) == chosen


# binpack.weight against least-requested (holder 2 CPUs 8Gi, new 1 CPU 1Gi): binpack scores the
# holder's worker 65.625 x w and the empty one 15.625 x w, least 34 and 84: at binpack.weight 1 a tie.
BINPACK = [
    ("binpack.weight: 0", 0, 1), ("binpack.weight: 1", 0, 0), ("binpack.weight: 2", 0, 0),
    ("binpack.weight: 1", 1, 0), ("binpack.weight: 2", 1, 1), ('binpack.weight: "2"', 1, 0),
    ('binpack.weight: "0"', 0, 0),  # quoted: the default 1, a tie
]


@pytest.mark.parametrize(("holder", "chosen"), [
    pytest.param(h, c, id=f"{a}@{h}", marks=pytest.mark.scheduler_conf(_conf(binpack=a))) for a, h, c in BINPACK])
def test_binpack_weight(cluster: Cluster, holder: int, chosen: int) -> None:
    """binpack's plugin weight against nodeorder's least-requested."""
    assert _place(cluster, holder, BUSY, SMALL) == chosen


# binpack's cpu and memory weights, binpack alone scoring (nodeorder's scorers at 0): the holder on
# worker-0 is CPU-heavy (3 CPUs, 1Gi), the one on worker-1 memory-heavy (a pod of 500m and 12Gi); new asks
# 500m and 1Gi. worker-0's fractions after it: cpu .875, memory .125; worker-1's: .25, .8125.
NO_NODEORDER = ("leastrequested.weight: 0;balancedresource.weight: 0;nodeaffinity.weight: 0;"
                "tainttoleration.weight: 0;podaffinity.weight: 0")
RESOURCE_WEIGHTS = [
    ("binpack.cpu: 1", 1), ("binpack.cpu: 2", 0), ("binpack.cpu: 0", 1),
    ("binpack.cpu: -2;binpack.memory: 0", 0),  # negative: 1, CPU alone (kept: -1.75 against -0.5)
    ('binpack.cpu: "2"', 1),  # quoted: the default 1
    ("binpack.memory: 0", 0), ("binpack.memory: -1", 1), ('binpack.memory: "0"', 1),
    ("binpack.cpu: 3;binpack.memory: 2", 0),  # 3.125 / 5 against 2.375 / 5
    ("binpack.weight: 0", 0),  # no scorer at all: a tie, the first worker
]


@pytest.mark.parametrize(("chosen",), [
    pytest.param(c, id=a, marks=pytest.mark.scheduler_conf(_conf(NO_NODEORDER, binpack=a)))
    for a, c in RESOURCE_WEIGHTS])
def test_binpack_resource_weights(cluster: Cluster, chosen: int) -> None:
    """binpack's per-resource weights decide between a CPU-full and a memory-full worker."""
    workers = _workers(cluster)
    cluster.apply(pod("mem-holder", req={"cpu": "500m", "memory": "12Gi"},
                      node_selector={"kubernetes.io/hostname": workers[1]}))
    cluster.wait_until(lambda: bound(cluster.get("Pod", "mem-holder")), 60, "mem-holder binds")
    assert _place(cluster, 0, {"cpu": "3", "memory": "1Gi"}, {"cpu": "500m", "memory": "1Gi"}) == chosen


@pytest.mark.parametrize(("chosen",), [
    pytest.param(1, id="on", marks=pytest.mark.scheduler_conf(_conf())),
    pytest.param(0, id="off", marks=pytest.mark.scheduler_conf(_conf(nodeorder_flag="enableNodeOrder: false"))),
])
def test_enable_node_order_flag(cluster: Cluster, chosen: int) -> None:
    """``enableNodeOrder: false`` on nodeorder's entry leaves every worker at score 0 (the first wins)."""
    assert _place(cluster, 0, BUSY, SMALL) == chosen


GPU = "nvidia.com/gpu"
GPU_WEIGHTS = [
    # (binpack arguments, chosen): the holder has 2 of worker-1's 4 GPUs; new asks 1 GPU (and 100m CPU)
    (f"binpack.resources: {GPU};binpack.resources.{GPU}: -1", 1),  # negative: 1 (kept: the emptier one)
    (f"binpack.resources: {GPU};binpack.resources.{GPU}: 0", 0),  # nothing weighed: a tie, worker-0
    (f"binpack.resources: {GPU};binpack.resources.{GPU}: 1", 1),
    (f"binpack.resources: {GPU};binpack.resources.{GPU}: \"3\"", 1),  # quoted: the default 1
    (f"binpack.resources.{GPU}: 1", 0),  # a weight for a resource not listed: not weighed
]


@pytest.mark.cluster(workers=2, cpu="4", memory="16Gi", gpu=4, control_plane=False)
@pytest.mark.parametrize(("chosen",), [
    pytest.param(c, id=a, marks=pytest.mark.scheduler_conf(
        _conf(NO_NODEORDER, binpack="binpack.cpu: 0;binpack.memory: 0;" + a))) for a, c in GPU_WEIGHTS])
def test_binpack_extra_resource_weight(cluster: Cluster, chosen: int) -> None:
    """An extra resource's binpack weight, the only one weighed: GPU packing picks the fuller worker."""
    assert _place(cluster, 1, {"cpu": "100m", GPU: "2"}, {"cpu": "100m", GPU: "1"}) == chosen


@pytest.mark.parametrize(("chosen",), [
    pytest.param(1, id="on", marks=pytest.mark.scheduler_conf(_conf(binpack="binpack.weight: 2"))),
    pytest.param(0, id="off", marks=pytest.mark.scheduler_conf(
        _conf(binpack="binpack.weight: 2", binpack_flag="enableNodeOrder: false"))),
])
def test_binpack_enable_node_order_flag(cluster: Cluster, chosen: int) -> None:
    """``enableNodeOrder: false`` on binpack's entry leaves least-requested alone to spread the pod
    (binpack at weight 2 would pack it onto the holder's worker-1)."""
    assert _place(cluster, 1, BUSY, SMALL) == chosen


IMAGE = "registry.example/opts/tool"
LOCALITY = [
    # (nodeorder arguments, image size in MiB, workers listing it, node image name, holder on worker-1, chosen)
    # One of two workers listing a 1000 MiB image: 500 MiB counted, (500 - 23) * 100 // 977 = 48.
    ("", 1000, (1,), IMAGE + ":latest", False, 1),  # the default weight 1; untagged means :latest
    ("imagelocality.weight: 0", 1000, (1,), IMAGE + ":latest", False, 0),
    ('imagelocality.weight: "0"', 1000, (1,), IMAGE + ":latest", False, 1),  # quoted: the default
    ("", 1000, (0, 1), IMAGE + ":latest", False, 0),  # on both: a tie
    ("", 40, (1,), IMAGE + ":latest", False, 0),  # 20 MiB counted: under the 23 MiB floor, 0
    ("", 1000, (1,), IMAGE + ":v2", False, 0),  # another tag: not the pod's image
    # least-requested favours the empty worker-0 by 50 (84 against 34)
    ("", 1000, (1,), IMAGE + ":latest", True, 0),  # 48 x 1
    ("imagelocality.weight: 2", 1000, (1,), IMAGE + ":latest", True, 1),  # 48 x 2
    ("", 2200, (1,), IMAGE + ":latest", True, 1),  # 1100 MiB counted: the 1000 MiB ceiling, 100
    ("leastrequested.weight: 2", 2200, (1,), IMAGE + ":latest", True, 0),  # 100 against 100: a tie
]


@pytest.mark.parametrize(("size", "listing", "name", "holder", "chosen"), [
    pytest.param(size, listing, name, holder, chosen, id=f"{args or 'default'}-{size}-{listing}-{name[-6:]}-{holder}",
                 marks=pytest.mark.scheduler_conf(_conf(args)))
    for args, size, listing, name, holder, chosen in LOCALITY])
def test_image_locality_weight(cluster: Cluster, size: int, listing: tuple[int, ...], name: str, holder: bool,
                               chosen: int) -> None:
    """Kubernetes' ImageLocality score of the pod's image, times ``imagelocality.weight`` (not
    normalised): the image's size times the share of nodes listing it, between 23 MiB and 1000 MiB per
    container, scaled to 0-100."""
    workers = _workers(cluster)
    for i in listing:
        cluster.patch("Node", workers[i], {"status": {"images": [{"names": [name], "sizeBytes": size * 1024 * 1024}]}},
                      namespace="", subresource="status")
    new: dict[str, object] = {"containers": [{**pod("x", req=SMALL)["spec"]["containers"][0], "image": IMAGE}]}
    if holder:
        assert _place(cluster, 1, BUSY, SMALL, new, workers=workers) == chosen
        return
    p = pod("new", req=SMALL)
    p["spec"].update(new)
    cluster.apply(p)
    cluster.wait_until(lambda: bound(cluster.get("Pod", "new")), 60, "new binds")
    assert workers.index(cluster.get("Pod", "new")["spec"]["nodeName"]) == chosen
