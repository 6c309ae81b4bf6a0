"""Strategic merge patch errors at the edges the other strategic-patch tests leave: a
``$setElementOrder`` list whose item lacks the merge key.

kube-apiserver answers such a patch with 500 and apimachinery's ``ErrNoMergeKey`` text, which
prints the offending item as Go prints a map (``map[image:x]``).
"""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver.patchmeta import schema_for
from volcano.apiserver.smp import SMPError, strategic_merge_patch

POD = schema_for("Pod")


@pytest.mark.parametrize(("order", "shown"), [
    ([{"image": "x"}], "map[image:x]"),
    ([{"name": "a"}, {"image": "x", "ports": {"p": 1}}], "map[image:x ports:map[p:1]]"),
])
def test_element_order_item_without_merge_key(order: list[dict[str, Any]], shown: str) -> None:
    live = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a", "image": "x"}]}}
    patch = {"spec": {"$setElementOrder/containers": order, "containers": [{"name": "a", "image": "y"}]}}
    with pytest.raises(SMPError) as err:
        strategic_merge_patch(live, patch, POD)
    assert (err.value.code, err.value.message) == (500, f"map: {shown} does not contain declared merge key: name")
