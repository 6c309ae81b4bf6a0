"""The webhook manager over HTTPS: certificates, the ASGI answers, and ``volcano webhooks`` as a process."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import http.client
import json
import signal
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509

from volcano.admission.lookup import StaticView
from volcano.serve import ServedCluster, ServeOptions
from volcano.webhooks.certs import make_certificates
from volcano.webhooks.review import Reviewer
from volcano.webhooks.server import WebhookApp, WebhookServer

from .helpers import VOLCANO, Lines
from .test_review import OPEN_DEFAULT, job, review

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def test_certificates_are_a_ca_and_a_serving_certificate_for_the_hosts() -> None:
    certs = make_certificates(["127.0.0.1", "svc.ns.svc"], now=NOW, days=10)
    ca, cert = x509.load_pem_x509_certificate(certs.ca), x509.load_pem_x509_certificate(certs.cert)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    assert cert.issuer == ca.subject
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(i) for i in san.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert san.get_values_for_type(x509.DNSName) == ["svc.ns.svc"]
    assert cert.not_valid_after_utc == NOW + dt.timedelta(days=10)
    with pytest.raises(ValueError, match="hosts"):
        make_certificates([], now=NOW)


@pytest.fixture
def served_webhooks(tmp_path: Path) -> Iterator[tuple[WebhookServer, bytes]]:
    certs = make_certificates(["127.0.0.1"], now=dt.datetime.now(dt.UTC))
    certfile, keyfile = certs.write(tmp_path)
    server = WebhookServer(WebhookApp(Reviewer(StaticView(queues=[OPEN_DEFAULT]))), certfile=certfile,
                           keyfile=keyfile, port=0)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    deadline = threading.Event()
    for _ in range(500):
        if server.started:
            break
        deadline.wait(0.01)
    assert server.started
    yield server, certs.ca
    server.stop()
    thread.join(10)


def _post(server: WebhookServer, ca: bytes, path: str, body: Any, method: str = "POST") -> tuple[int, bytes]:
    context = ssl.create_default_context(cadata=ca.decode())
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=context, timeout=10)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn.request(method, path, body=data if method == "POST" else None,
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_https_review_round_trip(served_webhooks: tuple[WebhookServer, bytes]) -> None:
    server, ca = served_webhooks
    code, body = _post(server, ca, "/jobs/validate", review(job(min_available=2)))
    answer = json.loads(body)
    assert code == 200 and answer["response"]["allowed"] is False
    assert "should not be greater than total replicas" in answer["response"]["status"]["message"]
    code, body = _post(server, ca, "/jobs/mutate", review(job()))
    assert code == 200 and json.loads(base64.b64decode(json.loads(body)["response"]["patch"]))
    assert server.app.reviews == 2


@pytest.mark.parametrize("path, body, method, code", [
    ("/jobs/validate", b"{not json", "POST", 400),
    ("/jobs/validate", {"kind": "Pod"}, "POST", 400),
    ("/jobs/validate", b"", "GET", 405),
    ("/nothing/here", {}, "POST", 404),
    ("/healthz", b"", "GET", 200),
])
def test_https_refusals(served_webhooks: tuple[WebhookServer, bytes], path: str, body: Any, method: str,
                        code: int) -> None:
    server, ca = served_webhooks
    assert _post(server, ca, path, body, method)[0] == code


def test_a_client_trusting_another_ca_refuses_the_server(served_webhooks: tuple[WebhookServer, bytes]) -> None:
    server, _ca = served_webhooks
    other = make_certificates(["127.0.0.1"], now=dt.datetime.now(dt.UTC)).ca
    with pytest.raises(ssl.SSLCertVerificationError):
        _post(server, other, "/healthz", b"", "GET")


def test_volcano_webhooks_registers_its_configurations_and_stops_on_sigterm(tmp_path: Path) -> None:
    kc = tmp_path / "kc"
    served = ServedCluster(ServeOptions(api_only=True, nodes=0, speed=0, kubeconfig=kc)).start_background()
    try:
        proc = subprocess.Popen([*VOLCANO, "webhooks", "--kubeconfig", str(kc), "--port", "0",
                                 "--enabled-admission", "/jobs/mutate,/jobs/validate"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        reader = Lines(proc)
        lines = reader.until("volcano webhooks:")
        assert lines[:2] == [
            "mutatingwebhookconfiguration.admissionregistration.k8s.io/volcano-admission-jobs-mutate created",
            "validatingwebhookconfiguration.admissionregistration.k8s.io/volcano-admission-jobs-validate created"]
        assert lines[2].startswith("volcano webhooks: 2 admission paths, listening on https://127.0.0.1:")
        config = served.call(lambda: served.server.get("ValidatingWebhookConfiguration.admissionregistration.k8s.io",
                                                       "volcano-admission-jobs-validate"))
        hook = config["webhooks"][0]
        assert hook["clientConfig"]["url"] == lines[2].rsplit(" ", 1)[1] + "/jobs/validate"
        assert b"BEGIN CERTIFICATE" in base64.b64decode(hook["clientConfig"]["caBundle"])
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = reader.finish()
        served.close()
    assert proc.returncode == 0, err
    assert "volcano webhooks: stopped" in out and "Traceback" not in err


def test_volcano_webhooks_flag_errors_are_named(tmp_path: Path) -> None:
    proc = subprocess.run([*VOLCANO, "webhooks", "--enabled-admission", "/nope", "--kubeconfig", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "/nope" in proc.stderr and "Traceback" not in proc.stderr
    proc = subprocess.run([*VOLCANO, "webhooks", "--tls-cert-file", "x"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "go together" in proc.stderr


def test_the_api_servers_client_reuses_connections_and_recovers_from_closed_ones(
        served_webhooks: tuple[WebhookServer, bytes]) -> None:
    from volcano.httpapi.webhookclient import _POOL, Endpoint, post

    server, ca = served_webhooks
    endpoint = Endpoint.from_client_config({"url": f"{server.url}/jobs/validate",
                                            "caBundle": base64.b64encode(ca).decode()})
    body = json.dumps(review(job())).encode()
    assert asyncio.run(post(endpoint, body, 10))[0] == 200
    idle = _POOL.take(endpoint)
    assert idle is not None and idle.sock is not None  # kept alive for the next call
    idle.sock.close()  # as if the webhook had closed it while idle
    _POOL.give(endpoint, idle)
    status, answer = asyncio.run(post(endpoint, body, 10))
    assert status == 200 and json.loads(answer)["response"]["allowed"] is True
    assert server.app.reviews == 2


def test_a_webhook_that_never_answers_times_out() -> None:
    import socket

    from volcano.httpapi.webhookclient import CallError, Endpoint, post

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts into the backlog, never answers the TLS handshake
    try:
        endpoint = Endpoint.from_client_config({"url": f"https://127.0.0.1:{silent.getsockname()[1]}/x"})
        with pytest.raises(CallError, match=r'^failed to call webhook: Post "https://127.0.0.1:\d+/x\?timeout=1s": '
                                            "context deadline exceeded$"):
            asyncio.run(post(endpoint, b"{}", 1))
    finally:
        silent.close()


@pytest.mark.parametrize("config, word", [({}, "neither url nor service"), ({"url": "http://x/y"}, "https"),
                                          ({"url": "https://x/y", "caBundle": "%%%"}, "caBundle")])
def test_client_configs_that_name_no_endpoint(config: dict[str, Any], word: str) -> None:
    from volcano.httpapi.webhookclient import CallError, Endpoint

    with pytest.raises(CallError, match=word):
        Endpoint.from_client_config(config)
    svc = Endpoint.from_client_config({"service": {"name": "s", "namespace": "ns", "path": "/p"}})
    assert (svc.url, svc.host, svc.port) == ("https://s.ns.svc:443/p", "s.ns.svc", 443)
