"""``volcano serve`` as a process: readiness lines, kubeconfig, signals, flags, --api-only."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml

from volcano.cli import build_parser
from volcano.serve import ServedCluster, ServeOptions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
VOLCANO = [sys.executable, "-c", "import sys; from volcano.cli import main; sys.exit(main(sys.argv[1:]))"]


def _start(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([*VOLCANO, "serve", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    ready, _w, _x = select.select([proc.stdout], [], [], 60)
    line = proc.stdout.readline() if ready else ""
    return proc, line


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_prints_url_and_kubeconfig_then_stops_cleanly(tmp_path: Path, sig: signal.Signals) -> None:
    kc = tmp_path / "kc"
    proc, line = _start("--nodes", "2", "--kubeconfig", str(kc), "-f", str(FIXTURES / "tensorflow-benchmark-job.yaml"))
    try:
        assert line.startswith("volcano serve: 2 nodes, speed 1, listening on http://127.0.0.1:"), line
        url = line.rsplit(" ", 1)[1].strip()
        assert proc.stdout is not None and proc.stdout.readline().strip() == f"kubeconfig: {kc}"
        config = yaml.safe_load(kc.read_text())
        assert config["clusters"][0]["cluster"]["server"] == url and config["current-context"] == "volcano"
        assert oct(kc.stat().st_mode & 0o777) == "0o600"
        with urllib.request.urlopen(f"{url}/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs") as resp:
            jobs = json.load(resp)
        assert [j["metadata"]["name"] for j in jobs["items"]] == ["tensorflow-benchmark"]
    finally:
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "volcano serve: stopped" in out and "Traceback" not in err


def test_non_loopback_address_requires_a_token() -> None:
    with pytest.raises(ValueError, match="requires --token"):
        ServeOptions(address="0.0.0.0").check()
    ServeOptions(address="0.0.0.0", token="t").check()
    proc = subprocess.run([*VOLCANO, "serve", "--address", "0.0.0.0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "requires --token" in proc.stderr


def test_serve_flags_parse() -> None:
    args = build_parser().parse_args(["serve", "--port", "0", "--speed", "0", "-f", "a.yaml", "-f", "b.yaml",
                                      "--api-only", "--gpu", "1"])
    assert (args.port, args.speed, args.manifests, args.api_only, args.gpu) == (0, 0.0, ["a.yaml", "b.yaml"], True, 1)


def test_api_only_serves_the_api_without_components(tmp_path: Path) -> None:
    served = ServedCluster(ServeOptions(api_only=True, nodes=0, speed=50)).start_background()
    try:
        assert served.cluster is None
        body = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                           "spec": {"containers": [{"name": "c", "image": "x"}]}}).encode()
        req = urllib.request.Request(f"{served.url}/api/v1/namespaces/default/pods", data=body,
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req) as resp:
            assert resp.status == 201
        served.run(10)  # ten simulated seconds: no scheduler, no kubelet, so nothing moves
        pod = served.call(lambda: served.server.get("Pod", "p", "default"))
        assert pod["status"]["phase"] == "Pending" and not pod["spec"].get("nodeName")
    finally:
        served.close()
