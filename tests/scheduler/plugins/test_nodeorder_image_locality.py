"""nodeorder's ImageLocality scorer: Kubernetes' formula on node objects' ``status.images``
(parsed once per Node version by ``node_images``)."""

from __future__ import annotations

import pytest

from volcano.scheduler.framework.node import node_images
from volcano.scheduler.plugins.nodeorder import (
    MAX_CONTAINER_IMAGE_THRESHOLD,
    MIB,
    MIN_IMAGE_THRESHOLD,
    image_locality,
    image_states,
    normalized_image_name,
)


def _node(*images: tuple[list[str], int]) -> tuple[tuple[str, int], ...]:
    return node_images({"status": {"images": [{"names": names, "sizeBytes": size} for names, size in images]}})


def test_node_images_one_pair_per_name_in_listing_order() -> None:
    """Every name of an image carries its size; a node without images lists nothing."""
    node = {"status": {"images": [{"names": ["a:1", "a@sha"], "sizeBytes": 100}, {"names": ["b:1"]}]}}
    assert node_images(node) == (("a:1", 100), ("a@sha", 100), ("b:1", 0))
    assert node_images({}) == () and node_images({"status": {"images": None}}) == ()


@pytest.mark.parametrize(("name", "normalized"), [
    ("busybox", "busybox:latest"), ("busybox:1.36", "busybox:1.36"),
    ("registry:5000/tool", "registry:5000/tool:latest"), ("registry:5000/tool:v1", "registry:5000/tool:v1"),
])
def test_normalized_image_name(name: str, normalized: str) -> None:
    """``:latest`` is added only when the last path part carries no tag (a registry port is no tag)."""
    assert normalized_image_name(name) == normalized


def test_image_states_count_nodes_per_name() -> None:
    """Each name counts the nodes listing it, whatever other names the image has there."""
    nodes = [_node((["a:1", "a@sha"], 100)), _node((["a:1"], 100), (["b:1"], 7)), _node()]
    assert image_states(nodes) == {"a:1": (100, 2), "a@sha": (100, 1), "b:1": (7, 1)}


def test_image_locality_scales_by_spread_and_clamps() -> None:
    """Size x (nodes listing / all nodes), summed over containers, clamped to [23 MiB, 1000 MiB x
    containers] and scaled to 0-100 with integer division."""
    big = 1000 * MIB
    nodes = [_node((["x:latest"], big)), _node((["x:latest"], big), (["y:1"], 4000 * MIB)), _node(), _node()]
    states = image_states(nodes)
    one = image_locality(["x"], nodes, states, len(nodes))
    # 1000 MiB x 2/4 = 500 MiB on the two listing nodes
    expected = 100 * (500 * MIB - MIN_IMAGE_THRESHOLD) // (MAX_CONTAINER_IMAGE_THRESHOLD - MIN_IMAGE_THRESHOLD)
    assert one.tolist() == [expected, expected, 0, 0]
    two = image_locality(["x", "y:1"], nodes, states, len(nodes))
    top = 2 * MAX_CONTAINER_IMAGE_THRESHOLD
    # node 1: 500 MiB + 4000 MiB x 1/4 = 1500 MiB of a 2000 MiB ceiling
    assert two.tolist()[1] == 100 * (1500 * MIB - MIN_IMAGE_THRESHOLD) // (top - MIN_IMAGE_THRESHOLD)
    assert image_locality(["y:1"], nodes, states, 1).tolist()[1] == 100  # above the ceiling
    assert image_locality(["x"], nodes, states, 100).tolist()[0] == 0  # 10 MiB: under the floor
    assert image_locality([], nodes, states, 4).tolist() == [0, 0, 0, 0]
