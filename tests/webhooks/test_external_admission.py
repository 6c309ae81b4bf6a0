"""``volcano serve --api-only`` calls registered admission webhooks: matching, answers, failures, passes.

The webhooks here are a fake transport (a function answering AdmissionReviews on the server's loop);
``test_serve_with_volcano_webhooks`` runs the real HTTPS path.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.httpapi.helpers import Http
from volcano.httpapi.webhookclient import CallError, Endpoint
from volcano.serve import ServedCluster, ServeOptions

CM = "/api/v1/namespaces/default/configmaps"
Answer = Callable[[dict[str, Any]], dict[str, Any]]


def cm(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels or {}},
            "data": {"k": "v"}}


def config(kind: str, name: str = "cfg", **hook: Any) -> dict[str, Any]:
    webhook = {"name": f"{name}.example.com", "clientConfig": {"url": f"https://hooks.example/{name}"},
               "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
                          "resources": ["configmaps"]}],
               "sideEffects": "None", "admissionReviewVersions": ["v1"], **hook}
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": f"{kind}WebhookConfiguration",
            "metadata": {"name": name}, "webhooks": [webhook]}


def allow(patch: list[dict[str, Any]] | None = None) -> Answer:
    def answer(request: dict[str, Any]) -> dict[str, Any]:
        response: dict[str, Any] = {"uid": request["uid"], "allowed": True}
        if patch is not None:
            response.update(patchType="JSONPatch", patch=base64.b64encode(json.dumps(patch).encode()).decode())
        return response
    return answer


def deny(message: str, code: int | None = None) -> Answer:
    def answer(request: dict[str, Any]) -> dict[str, Any]:
        status: dict[str, Any] = {"message": message}
        if code:
            status["code"] = code
        return {"uid": request["uid"], "allowed": False, "status": status}
    return answer


class Hooks:
    """A fake transport: answers by the last path segment of the webhook URL; records every request."""

    def __init__(self) -> None:
        self.answers: dict[str, Answer] = {}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.gate: asyncio.Event | None = None
        self.before_answer: Callable[[], None] | None = None

    async def __call__(self, endpoint: Endpoint, body: bytes, timeout: float) -> tuple[int, bytes]:
        name = endpoint.path.rsplit("/", 1)[-1]
        review = json.loads(body)
        self.requests.append((name, review["request"]))
        if self.gate is not None:
            await self.gate.wait()
        if self.before_answer is not None:
            hook, self.before_answer = self.before_answer, None
            hook()
        answer = self.answers.get(name)
        if answer is None:
            raise CallError(f'failed to call webhook: Post "{endpoint.url}": connection refused')
        return 200, json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                "response": answer(review["request"])}).encode()


@pytest.fixture
def env() -> Iterator[tuple[ServedCluster, Http, Hooks]]:
    served = ServedCluster(ServeOptions(api_only=True, nodes=0, speed=0)).start_background()
    hooks = Hooks()
    assert served.webhooks is not None
    served.webhooks.transport = hooks
    http = Http(served.url)
    yield served, http, hooks
    http.close()
    served.close()


def register(http: Http, *configs: dict[str, Any]) -> None:
    for c in configs:
        plural = c["kind"].lower() + "s"
        code, body = http.json("POST", f"/apis/admissionregistration.k8s.io/v1/{plural}", c)
        assert code == 201, body


def test_mutating_patches_then_validating_sees_the_mutated_object(env: tuple[ServedCluster, Http, Hooks]) -> None:
    _served, http, hooks = env
    register(http, config("Mutating", "m"), config("Validating", "v"))
    hooks.answers["m"] = allow([{"op": "add", "path": "/data/added", "value": "yes"}])
    hooks.answers["v"] = allow()
    code, body = http.json("POST", CM, cm("a"))
    assert code == 201 and body["data"] == {"k": "v", "added": "yes"}
    (m_name, m_req), (v_name, v_req) = hooks.requests
    assert (m_name, v_name) == ("m", "v")
    assert m_req["operation"] == "CREATE" and m_req["resource"] == {"group": "", "version": "v1",
                                                                     "resource": "configmaps"}
    assert m_req["object"]["data"] == {"k": "v"} and m_req["namespace"] == "default" and m_req["name"] == "a"
    assert v_req["object"]["data"] == {"k": "v", "added": "yes"}
    assert m_req["uid"] != v_req["uid"]


def test_denial_is_kube_apiservers_error_and_nothing_is_stored(env: tuple[ServedCluster, Http, Hooks]) -> None:
    _served, http, hooks = env
    register(http, config("Validating", "v"))
    hooks.answers["v"] = deny("no configmaps today")
    code, body = http.json("POST", CM, cm("a"))
    assert code == 403 and body["reason"] == "Forbidden"
    assert body["message"] == ('configmaps "a" is forbidden: admission webhook "v.example.com" denied the request: '
                               "no configmaps today")
    assert body["details"] == {"kind": "configmaps", "name": "a", "group": ""}
    assert http.json("GET", f"{CM}/a")[0] == 404
    hooks.answers["v"] = deny("teapot", code=418)
    assert http.json("POST", CM, cm("a"))[0] == 418


@pytest.mark.parametrize("policy, code", [("Fail", 500), ("Ignore", 201)])
def test_failure_policy(env: tuple[ServedCluster, Http, Hooks], policy: str, code: int) -> None:
    _served, http, _hooks = env
    register(http, config("Validating", "down", failurePolicy=policy))
    status, body = http.json("POST", CM, cm("a"))
    assert status == code
    if policy == "Fail":
        assert body["reason"] == "InternalError"
        assert body["message"].startswith('Internal error occurred: failed calling webhook "down.example.com": '
                                          "failed to call webhook: Post ")


@pytest.mark.parametrize("bad, why", [
    (lambda req: {"uid": "other", "allowed": True}, 'expected response.uid="'),
    (lambda req: {"uid": req["uid"], "allowed": "yes"}, "response.allowed"),
    (lambda req: {"uid": req["uid"], "allowed": True, "patchType": "JSONPatch",
                  "patch": base64.b64encode(b'[{"op": "remove", "path": "/nope"}]').decode()}, "does not apply"),
])
def test_invalid_answers_are_call_failures(env: tuple[ServedCluster, Http, Hooks], bad: Answer, why: str) -> None:
    _served, http, hooks = env
    register(http, config("Mutating", "m"))
    hooks.answers["m"] = bad
    code, body = http.json("POST", CM, cm("a"))
    assert code == 500 and why in body["message"], body


def test_rules_and_selectors_decide_who_is_called(env: tuple[ServedCluster, Http, Hooks]) -> None:
    _served, http, hooks = env
    register(http,
             config("Validating", "labelled", objectSelector={"matchLabels": {"check": "yes"}}),
             config("Validating", "elsewhere", namespaceSelector={"matchExpressions": [
                 {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["default"]}]}),
             config("Validating", "deletes", rules=[{"operations": ["DELETE"], "apiGroups": ["*"],
                                                     "apiVersions": ["*"], "resources": ["*"]}]),
             config("Validating", "pods", rules=[{"operations": ["*"], "apiGroups": [""], "apiVersions": ["v1"],
                                                  "resources": ["pods"]}]))
    for name in ("labelled", "elsewhere", "deletes", "pods"):
        hooks.answers[name] = allow()
    assert http.json("POST", CM, cm("plain"))[0] == 201
    assert hooks.requests == []
    assert http.json("POST", CM, cm("checked", {"check": "yes"}))[0] == 201
    assert [n for n, _r in hooks.requests] == ["labelled"]
    assert http.json("POST", "/api/v1/namespaces/kube-system/configmaps", cm("sys"))[0] == 201
    assert [n for n, _r in hooks.requests] == ["labelled", "elsewhere"]
    hooks.requests.clear()
    assert http.json("DELETE", f"{CM}/plain")[0] == 200
    (name, req), = hooks.requests
    assert name == "deletes" and req["operation"] == "DELETE" and req["object"] is None
    assert req["oldObject"]["metadata"]["name"] == "plain" and req["options"]["kind"] == "DeleteOptions"


def test_status_writes_match_only_status_rules(env: tuple[ServedCluster, Http, Hooks]) -> None:
    _served, http, hooks = env
    register(http, config("Validating", "main", rules=[{"operations": ["UPDATE"], "apiGroups": [""],
                                                         "apiVersions": ["v1"], "resources": ["namespaces"]}]),
             config("Validating", "status", rules=[{"operations": ["UPDATE"], "apiGroups": [""],
                                                     "apiVersions": ["v1"], "resources": ["namespaces/status"]}]))
    hooks.answers["main"] = hooks.answers["status"] = allow()
    code, _ = http.json("PATCH", "/api/v1/namespaces/default/status", {"status": {"phase": "Active"}},
                        headers={"Content-Type": "application/merge-patch+json"})
    assert code == 200
    (name, req), = hooks.requests
    assert name == "status" and req["subResource"] == "status" and req["oldObject"]["metadata"]["name"] == "default"


def test_dry_run_calls_only_side_effect_free_webhooks(env: tuple[ServedCluster, Http, Hooks]) -> None:
    _served, http, hooks = env
    register(http, config("Validating", "v", sideEffects="Some"))
    hooks.answers["v"] = allow()
    code, body = http.json("POST", f"{CM}?dryRun=All", cm("a"))
    assert code == 400 and body["message"] == 'admission webhook "v.example.com" does not support dry run'
    assert hooks.requests == []


def test_a_pending_webhook_does_not_block_the_loop(env: tuple[ServedCluster, Http, Hooks]) -> None:
    served, http, hooks = env
    register(http, config("Validating", "slow"))
    hooks.answers["slow"] = allow()
    loop = served._loop
    assert loop is not None
    hooks.gate = gate = asyncio.Event()
    import threading
    result: list[int] = []
    writer = threading.Thread(target=lambda: result.append(Http(served.url).json("POST", CM, cm("slow"))[0]))
    writer.start()
    other = Http(served.url)
    for _ in range(500):  # wait, with a deadline, until the write waits on its webhook
        if hooks.requests:
            break
        writer.join(0.01)
    assert hooks.requests, "the webhook was not called"
    assert other.json("GET", "/api/v1/namespaces/default/configmaps")[0] == 200  # served meanwhile
    assert other.json("POST", "/api/v1/namespaces/default/secrets",
                      {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}})[0] == 201
    loop.call_soon_threadsafe(gate.set)
    writer.join(30)
    other.close()
    assert result == [201]


def test_a_write_racing_the_webhook_is_retried_with_fresh_calls(env: tuple[ServedCluster, Http, Hooks]) -> None:
    served, http, hooks = env
    assert http.json("POST", CM, cm("a"))[0] == 201
    register(http, config("Mutating", "m"))
    hooks.answers["m"] = allow([{"op": "add", "path": "/data/seen", "value": "1"}])

    def race() -> None:  # while the first call is in flight, another client changes the object
        current = served.server.get("ConfigMap", "a", "default")
        served.server.update({**current, "data": {"k": "changed"}})
    hooks.before_answer = race
    code, body = http.json("PUT", f"{CM}/a", {**cm("a"), "data": {"k": "mine"}})
    assert code == 200 and body["data"] == {"k": "mine", "seen": "1"}
    olds = [r["oldObject"]["data"]["k"] for _n, r in hooks.requests]
    assert olds == ["v", "changed"]  # shown the first old object, then, retried, the changed one


def test_server_side_apply_and_patch_call_the_webhooks(env: tuple[ServedCluster, Http, Hooks]) -> None:
    _served, http, hooks = env
    register(http, config("Mutating", "m"))
    hooks.answers["m"] = allow([{"op": "add", "path": "/metadata/labels/seen", "value": "yes"}])
    code, body = http.json("PATCH", f"{CM}/applied?fieldManager=me", cm("applied"),
                           headers={"Content-Type": "application/apply-patch+yaml"})
    assert code == 201 and body["metadata"]["labels"] == {"seen": "yes"}, body
    code, body = http.json("PATCH", f"{CM}/applied", {"data": {"k": "w"}},
                           headers={"Content-Type": "application/merge-patch+json"})
    assert code == 200 and body["data"] == {"k": "w"}
    assert [r["operation"] for _n, r in hooks.requests] == ["CREATE", "UPDATE"]
    assert hooks.requests[1][1]["oldObject"]["data"] == {"k": "v"}


def test_webhook_configurations_print_as_kubectl_shows_them(env: tuple[ServedCluster, Http, Hooks]) -> None:
    _served, http, _hooks = env
    register(http, config("Validating", "v"))
    code, table = http.json("GET", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                            headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert code == 200 and [c["name"] for c in table["columnDefinitions"]] == ["Name", "Webhooks", "Age"]
    assert table["rows"][0]["cells"][:2] == ["v", 1]


def test_webhook_configurations_are_exempt_so_a_broken_webhook_can_be_removed(
        env: tuple[ServedCluster, Http, Hooks]) -> None:
    _served, http, hooks = env
    everything = [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"]}]
    register(http, config("Validating", "broken", rules=everything))  # unreachable, failurePolicy Fail
    assert http.json("POST", CM, cm("a"))[0] == 500
    path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/broken"
    assert http.json("DELETE", path)[0] == 200
    assert http.json("POST", CM, cm("a"))[0] == 201
    assert [n for n, _r in hooks.requests] == ["broken"]
