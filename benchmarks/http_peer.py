"""A server for the HTTP benchmarks, in a process of its own: ``volcano serve`` or kmock 0.8.

Usage: ``python -m benchmarks.http_peer volcano|kmock PREFILL``. It stores
``PREFILL`` PodGroups in namespace ``default`` (named ``pre-<i>``) before
serving, prints ``READY <url>`` on stdout, and serves until its standard input
closes (the benchmark closes it, so no server outlives its benchmark).

* ``volcano``: ``volcano serve --api-only --speed 0`` (the API server and admission; the
  benchmarks measure the HTTP API, not the controllers), prefilled through ``ApiServer.create``.
* ``kmock``: kmock's ``KubernetesEmulator`` with the PodGroup resource declared, prefilled
  through its object store (the peer from the Kopf ecosystem; a bench-only extra).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

__all__ = ["main", "podgroup"]

GROUP, VERSION, PLURAL = "scheduling.volcano.sh", "v1beta1", "podgroups"


def podgroup(name: str, **annotations: str) -> dict[str, Any]:
    """A small PodGroup manifest (the object every HTTP benchmark writes)."""
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"bench": "http"}}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "PodGroup", "metadata": meta,
            "spec": {"minMember": 1, "queue": "default"}}


async def _stdin_closed() -> None:
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


async def _volcano(prefill: int) -> None:
    from volcano.serve import ServedCluster, ServeOptions

    served = ServedCluster(ServeOptions(api_only=True, nodes=0, speed=0))
    served.server.create({"apiVersion": f"{GROUP}/{VERSION}", "kind": "Queue", "metadata": {"name": "default"},
                          "spec": {"weight": 1}})  # the PodGroup webhook requires an Open queue
    served.server.patch("Queue", "default", {"status": {"state": "Open"}}, subresource="status")
    for i in range(prefill):
        served.server.create(podgroup(f"pre-{i}"))
    task = asyncio.ensure_future(served.serve())
    while not served.http.started:
        await asyncio.sleep(0.01)
    print(f"READY {served.url}", flush=True)
    await _stdin_closed()
    served.stop()
    await task


async def _kmock(prefill: int) -> None:
    import kmock

    async with kmock.KubernetesEmulator() as emulator, kmock.Server(emulator) as server:
        res = kmock.resource(GROUP, VERSION, PLURAL)
        emulator.resources[res] = kmock.ResourceInfo(kind="PodGroup", namespaced=True)
        for i in range(prefill):
            emulator.objects[res, "default", f"pre-{i}"] = podgroup(f"pre-{i}")
        print(f"READY {str(server.url).rstrip('/')}", flush=True)
        await _stdin_closed()


def main(argv: list[str]) -> int:
    """Entry point (see the module docstring)."""
    which, prefill = argv[1], int(argv[2])
    if which == "volcano":
        from volcano.httpapi import new_event_loop

        loop = new_event_loop()
        loop.run_until_complete(_volcano(prefill))
        loop.close()
    elif which == "kmock":
        asyncio.run(_kmock(prefill))
    else:
        print(f"unknown server {which!r}: volcano or kmock", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
