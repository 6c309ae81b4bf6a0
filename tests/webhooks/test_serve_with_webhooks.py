"""``volcano webhooks`` against ``volcano serve --api-only --no-builtin-admission``, over HTTPS.

The webhooks deny an invalid Volcano Job with the message the in-process admission gives, through the
official client and through kubectl; a valid Job is mutated by ``mutatejob.volcano.sh``'s patch.
"""

from __future__ import annotations

import copy
import json
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from volcano.serve import ServedCluster, ServeOptions

from .helpers import VOLCANO, Lines
from .test_review import job

kubernetes = pytest.importorskip("kubernetes")


def _open_default_queue(served: ServedCluster) -> None:
    def run() -> None:
        queue = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "default"},
                 "spec": {"weight": 1, "reclaimable": True}}
        created = served.server.create(queue)
        served.server.update_status({**created, "status": {"state": "Open"}})
    served.call(run)


def _create(api: Any, obj: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    try:
        return 201, api.create_namespaced_custom_object("batch.volcano.sh", "v1alpha1", "default", "jobs",
                                                        copy.deepcopy(obj))
    except kubernetes.client.exceptions.ApiException as exc:
        return int(exc.status), json.loads(exc.body)


@pytest.fixture
def wired(tmp_path: Path) -> Iterator[tuple[ServedCluster, Path]]:
    kc = tmp_path / "kc"
    served = ServedCluster(ServeOptions(api_only=True, builtin_admission=False, nodes=0, speed=0,
                                        kubeconfig=kc)).start_background()
    _open_default_queue(served)
    proc = subprocess.Popen([*VOLCANO, "webhooks", "--kubeconfig", str(kc), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = Lines(proc)
    try:
        lines.until("volcano webhooks:")
        yield served, kc
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = lines.finish()
        served.close()
    assert proc.returncode == 0 and "Traceback" not in err, err


def test_webhooks_deny_an_invalid_job_with_the_in_process_message(wired: tuple[ServedCluster, Path]) -> None:
    served, kc = wired
    api = kubernetes.client.CustomObjectsApi(kubernetes.config.new_client_from_config(config_file=str(kc)))
    invalid = job(min_available=3, replicas=1, name="too-big")

    builtin = ServedCluster(ServeOptions(api_only=True, nodes=0, speed=0, kubeconfig=kc.with_suffix(".b")))
    builtin.start_background()
    try:
        _open_default_queue(builtin)
        in_process = kubernetes.client.CustomObjectsApi(
            kubernetes.config.new_client_from_config(config_file=str(kc.with_suffix(".b"))))
        code_in, status_in = _create(in_process, invalid)
    finally:
        builtin.close()

    code, status = _create(api, invalid)
    assert (code, code_in) == (403, 403)
    assert status["message"] == status_in["message"]
    assert status["message"].startswith('jobs.batch.volcano.sh "too-big" is forbidden: admission webhook '
                                        '"validatejob.volcano.sh" denied the request: ')
    assert "job 'minAvailable' should not be greater than total replicas in tasks" in status["message"]
    assert served.call(lambda: served.server.list("Job")["items"]) == []
    assert served.webhooks is not None and served.webhooks.calls >= 2  # mutate, then validate


def test_webhooks_mutate_a_valid_job(wired: tuple[ServedCluster, Path]) -> None:
    _served, kc = wired
    api = kubernetes.client.CustomObjectsApi(kubernetes.config.new_client_from_config(config_file=str(kc)))
    valid = job(name="ok")
    del valid["spec"]["queue"]
    code, created = _create(api, valid)
    assert code == 201, created
    assert created["spec"]["queue"] == "default" and created["spec"]["maxRetry"] == 3
    assert created["spec"]["tasks"][0]["minAvailable"] == 1


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_sees_the_denial(wired: tuple[ServedCluster, Path], tmp_path: Path) -> None:
    _served, kc = wired
    manifest = tmp_path / "job.yaml"
    manifest.write_text(yaml.safe_dump(job(min_available=3, replicas=1, name="too-big")))
    proc = subprocess.run(["kubectl", "--kubeconfig", str(kc), "create", "-f", str(manifest)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert 'Error from server (Forbidden): error when creating "' in proc.stderr
    assert 'admission webhook "validatejob.volcano.sh" denied the request: ' in proc.stderr
    assert "job 'minAvailable' should not be greater than total replicas in tasks" in proc.stderr
