"""The repository's fixture manifests load, and the seed manifests round-trip through the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from volcano.api.frozen import thaw
from volcano.api.kinds import kind_for_object
from volcano.api.manifest import load_manifests
from volcano.apiserver import ApiServer
from volcano.apiserver.validation import apply_defaults
from volcano.sim import RandomStreams, SimClock

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ALL_YAML = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".yaml", ".yml"))
SEEDS = ["tensorflow-benchmark-job.yaml", "mpi-job.yaml", "mpi-job-podgroup-observed.yaml"]
SERVER_SET = ("uid", "resourceVersion", "creationTimestamp", "generation")


def test_fixture_directory_is_populated() -> None:
    names = {p.name for p in ALL_YAML}
    assert set(SEEDS) <= names
    assert len(ALL_YAML) > 10


@pytest.mark.parametrize("path", ALL_YAML, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_loads(path: Path) -> None:
    docs = load_manifests(path)
    assert docs, f"{path.name} has no documents"
    for doc in docs:
        assert kind_for_object(doc).kind == doc["kind"]
        assert doc["metadata"].get("name") or doc["metadata"].get("generateName")


def _without_server_fields(obj: dict[str, Any]) -> dict[str, Any]:
    out = thaw(obj)
    for field in SERVER_SET:
        out["metadata"].pop(field, None)
    return out


@pytest.mark.parametrize("name", SEEDS)
def test_seed_manifest_round_trips_through_the_store(name: str) -> None:
    server = ApiServer(SimClock(), RandomStreams(0))
    for doc in load_manifests(FIXTURES / name):
        created = server.create(doc)
        if "status" in doc and kind_for_object(doc).has_status:  # else create kept the status
            server.update_status({**thaw(created), "status": doc["status"]})
        meta = created["metadata"]
        stored = server.get(kind_for_object(doc).key, meta["name"], meta.get("namespace"))
        expected = _without_server_fields(doc)
        expected["metadata"].setdefault("namespace", "default")
        apply_defaults(kind_for_object(expected), expected)  # what the API server defaults
        assert _without_server_fields(stored) == expected
        assert stored["metadata"]["uid"] and stored["metadata"]["resourceVersion"]
