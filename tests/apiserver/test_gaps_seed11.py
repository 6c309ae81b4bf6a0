"""Answers of the API server's helpers that no client of the conformance suite can provoke: a kubectl
three-way diff of a list item without its merge key, and go-yaml's verdict on an apply body whose
well-formed two-byte sequence precedes a malformed one."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver.patching import utf8_problem
from volcano.apiserver.threeway import ApplyPatchError, kubectl_apply_patch, with_last_applied


def _pod(container: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [container]}}


def test_a_manifest_item_without_its_merge_key_names_the_key() -> None:
    """kubectl's strategic three-way diff refuses a container without ``name``: upstream's
    ``ErrNoMergeKey``, ``map: <item as a Go map> does not contain declared merge key: name``."""
    live = with_last_applied(_pod({"name": "c", "image": "busybox"}))
    with pytest.raises(ApplyPatchError) as err:
        kubectl_apply_patch(live, _pod({"image": "busybox:1.37"}))
    assert str(err.value) == "map: map[image:busybox:1.37] does not contain declared merge key: name"


@pytest.mark.parametrize(("data", "problem"), [
    (b"\xc2\x80", None),                                   # U+0080, the smallest two-byte value
    (b"\xc2\x80\xff", "invalid leading UTF-8 octet"),      # the malformed octet after it is named
    (b"\xc1\xbf", "invalid length of a UTF-8 sequence"),   # U+007F written in two bytes (overlong)
    (b"\xe0\xa0\x80\xc0\x80", "invalid length of a UTF-8 sequence"),  # U+0800 fine, then an overlong NUL
])
def test_the_smallest_value_of_a_width_is_well_formed(data: bytes, problem: str | None) -> None:
    """go-yaml's reader checks a sequence's value against the smallest of its width (0x80 for two
    bytes, 0x800 for three): a sequence at that value is well formed, one below it is overlong."""
    assert utf8_problem(data) == problem
