"""Kinds pinned whole: the Job plugins' Go-``flag``-style arguments (every form accepted, where parsing
stops, every refusal's message, the values parsed before a refusal), then the value of each flag a
plugin reads reaching what it writes (the mpi and pytorch ports, the svc switches)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.controllers.job.conftest import NS, Cluster, job, task
from volcano.controllers.job.plugins.base import parse_flags

DEFAULTS = {"port": 22, "name": "x", "on": False}


def _v(**changed: Any) -> dict[str, Any]:
    return {**DEFAULTS, **changed}


@pytest.mark.parametrize(("args", "values", "error"), [
    ([], _v(), None),
    (["--port=23"], _v(port=23), None),
    (["-port", "24"], _v(port=24), None),
    (["--port", "0x10"], _v(port=16), None),
    (["--port=-1"], _v(port=-1), None),
    (["--port"], _v(), "flag needs an argument: -port"),
    (["--on"], _v(on=True), None),
    (["-on", "true", "--port=3"], _v(on=True), None),
    (["--on=false"], _v(), None),
    (["--on=T"], _v(on=True), None),
    (["--on=0"], _v(), None),
    (["--on=yes"], _v(), 'invalid boolean value "yes" for -on: parse error'),
    (["--port=010"], _v(port=8), None),
    (["--port=abc", "--on"], _v(port=0), 'invalid value "abc" for flag -port: parse error'),
    (["-h", "--port=1"], _v(), "flag: help requested"),
    (["--name=", "--port=1"], _v(name="", port=1), None),
    (["--name", "--port=1"], _v(name="--port=1"), None),
    (["--nope"], _v(), "flag provided but not defined: -nope"),
    (["--port=1", "--nope", "--name=y"], _v(port=1), "flag provided but not defined: -nope"),
    (["---port=1"], _v(), "bad flag syntax: ---port=1"),
    (["--=1"], _v(), "bad flag syntax: --=1"),
    (["-"], _v(), None),
    (["--", "--port=5"], _v(), None),
    (["pos", "--port=5"], _v(), None),
    ([7], _v(), None),
])
def test_flags_parse_as_gos_flag_package(args: list[Any], values: dict[str, Any], error: str | None) -> None:
    assert parse_flags(args, DEFAULTS) == (values, error)


def test_a_non_number_for_an_int_flag_is_refused_naming_the_flag_and_stores_zero() -> None:
    """Go's ``intValue.Set`` stores what ``strconv.ParseInt`` returned beside its error: 0."""
    values, error = parse_flags(["--name=y", "--port=abc"], DEFAULTS)
    assert values == _v(name="y", port=0)
    assert error == 'invalid value "abc" for flag -port: parse error'


def _started(plugins: dict[str, list[str]], *tasks: dict[str, Any]) -> Cluster:
    c = Cluster()
    c.submit(job("x", list(tasks), plugins=plugins))
    c.set_pg_phase("x", "Inqueue")
    return c


def _ports(c: Cluster, pod: str) -> list[Any]:
    return [p.get("containerPort") for ct in c.pods("x")[pod]["spec"]["containers"] for p in ct.get("ports") or []]


def _env(c: Cluster, pod: str) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for ct in c.pods("x")[pod]["spec"]["containers"] for e in ct.get("env") or []}


@pytest.mark.parametrize(("flags", "port"), [([], 23456), (["--port=1"], 1), (["--port=65535"], 65535)])
def test_the_pytorch_port_reaches_the_master_port_and_the_env(flags: list[str], port: int) -> None:
    c = _started({"pytorch": flags}, task("master", 1), task("worker", 2))
    assert _ports(c, "x-master-0") == [port]
    env = _env(c, "x-worker-1")
    assert (env["MASTER_ADDR"], env["MASTER_PORT"], env["WORLD_SIZE"], env["RANK"]) == \
        ("x-master-0.x", str(port), "3", "2")


@pytest.mark.parametrize(("flags", "port"), [([], 22), (["--port=2222"], 2222)])
def test_the_mpi_port_reaches_every_pod(flags: list[str], port: int) -> None:
    c = _started({"mpi": flags, "ssh": [], "svc": []}, task("master", 1), task("worker", 2))
    assert {n: _ports(c, n) for n in sorted(c.pods("x"))} == {"x-master-0": [port], "x-worker-0": [port],
                                                             "x-worker-1": [port]}


@pytest.mark.parametrize(("flags", "publish", "policy"), [
    ([], False, True), (["--publish-not-ready-addresses"], True, True),
    (["--disable-network-policy=true"], False, False), (["--disable-network-policy=false"], False, True)])
def test_the_svc_switches(flags: list[str], publish: bool, policy: bool) -> None:
    c = _started({"svc": flags}, task("a", 1))
    svc = c.server.get("Service", "x", NS)
    assert svc["spec"].get("publishNotReadyAddresses", False) is publish
    assert [p["metadata"]["name"] for p in c.server.list("NetworkPolicy", NS)["items"]] == (["x"] if policy else [])
