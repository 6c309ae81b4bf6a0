"""Field paths and managed fields at the edges the other tests leave: boolean set members, an
update whose body leaves ``managedFields`` out, and CRD schema errors on container values."""

from __future__ import annotations

from typing import Any

import pytest

from volcano.apiserver import ApiServer
from volcano.apiserver.fieldpath import path_string
from volcano.apiserver.validation.crd import schema_errors
from volcano.sim import RandomStreams, SimClock


@pytest.mark.parametrize(("value", "shown"), [(False, ".flags[=false]"), (True, ".flags[=true]"),
                                               (0, ".flags[=0]"), ("false", '.flags[="false"]')])
def test_set_member_paths_print_go_values(value: Any, shown: str) -> None:
    assert path_string((("f", "flags"), ("v", value))) == shown


def test_update_without_managed_fields_keeps_the_entries_of_others() -> None:
    """A client that leaves ``metadata.managedFields`` out of its update does not reset them: the
    server starts from the live object's entries and adds the updater's."""
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"},
                   "data": {"a": "1"}}, field_manager="creator")
    live = server.get("ConfigMap", "cm", "default")
    meta = {k: v for k, v in live["metadata"].items() if k != "managedFields"}
    updated = server.update({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"a": "1", "b": "2"}},
                            field_manager="editor")
    managers = {e["manager"]: e["fieldsV1"] for e in updated["metadata"]["managedFields"]}
    assert managers == {"creator": {"f:data": {".": {}, "f:a": {}}}, "editor": {"f:data": {"f:b": {}}}}


@pytest.mark.parametrize(("spec", "error"), [
    ({"weight": [1]}, 'spec.weight: Invalid value: "array": spec.weight in body must be of type integer: "array"'),
    ({"capability": {"cpu": {"m": 1}}}, 'spec.capability.cpu: Invalid value: "object": spec.capability.cpu in body '
                                        'must be of type integer,string: "object"'),
])
def test_schema_errors_show_containers_by_type(spec: dict[str, Any], error: str) -> None:
    assert error in schema_errors("Queue.scheduling.volcano.sh", {"spec": spec})
