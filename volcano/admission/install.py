"""Wire the admission rules into an API server's admission chain.

``install_admission(server)`` registers, in the order a real API server runs
them:

mutating
  1. Kubernetes' ServiceAccount plugin (Pods, CREATE: ``serviceAccountName`` defaults to
     ``default``);
  2. Kubernetes' Priority plugin (Pods);
  3. Volcano's mutating webhooks: ``mutatejob``, ``mutatepodgroup``,
     ``mutatequeue`` (CREATE).
validating
  1. PriorityClass validation;
  2. Volcano's validating webhooks: ``validatejob`` (CREATE, UPDATE),
     ``validatepodgroup`` (CREATE), ``validatequeue`` (CREATE, UPDATE,
     DELETE), ``validatepod`` (CREATE).

Decoding, built-in and CRD structural defaults, Kubernetes' API validation of
built-in kinds and CRD schema validation are not admission: the server runs
them itself (``volcano.apiserver.validation``), around the mutating hooks.

Each Volcano webhook first decodes the object into its Go type
(``volcano.admission.decode``): a wrongly typed field is denied by the first
webhook called, with the Go decoder's message, before the CRD schema is
checked. Webhooks see only writes to the main resource (never ``/status``), and skip
namespaced objects in the excluded namespaces, as Volcano's webhook
configurations do. A webhook denial is a 403 Forbidden whose message reads
``admission webhook "<name>" denied the request: <message>``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from volcano.admission.decode import spec_decode_error
from volcano.admission.errors import webhook_denied
from volcano.admission.job import mutate_job, validate_job_create, validate_job_update
from volcano.admission.lookup import ClientView
from volcano.admission.pod import validate_pod_create
from volcano.admission.podgroup import mutate_podgroup, validate_podgroup_create
from volcano.admission.priority import PriorityError, admit_pod_priority, validate_priority_class
from volcano.admission.queue import mutate_queue, validate_queue, validate_queue_delete
from volcano.admission.serviceaccount import admit_service_account
from volcano.apiserver.admission import AdmissionChain, AdmissionRequest
from volcano.apiserver.errors import forbidden, invalid
from volcano.informers.poison import DATA_ERRORS

if TYPE_CHECKING:
    from volcano.apiserver.server import ApiServer

__all__ = ["ALL_WEBHOOKS", "EXCLUDED_NAMESPACES", "VOLCANO_WEBHOOKS", "Webhook", "WebhookContext", "install_admission"]

JOB = "Job.batch.volcano.sh"
PODGROUP = "PodGroup.scheduling.volcano.sh"
QUEUE = "Queue.scheduling.volcano.sh"
PRIORITY_CLASS = "PriorityClass.scheduling.k8s.io"

EXCLUDED_NAMESPACES = ("kube-system", "volcano-system")
"""Namespaces Volcano's webhook configurations leave out."""

Hook = Callable[[AdmissionRequest], None]


def _main_resource(excluded: tuple[str, ...], fn: Hook) -> Hook:
    """Run ``fn`` only for main-resource writes outside the excluded namespaces."""
    def hook(req: AdmissionRequest) -> None:
        if req.subresource is not None:
            return
        if req.kind.namespaced and req.namespace in excluded:
            return
        fn(req)
    return hook


def _decoded(webhook: str, fn: Hook) -> Hook:
    """``fn`` behind the webhook's decode of the object into its Go type: a Volcano webhook denies an
    object whose ``spec`` does not unmarshal, with the Go decoder's message (``volcano.admission.decode``),
    before any of its rules runs."""
    def hook(req: AdmissionRequest) -> None:
        if req.operation != "DELETE":
            message = spec_decode_error(req.kind.key, req.obj)
            if message:
                raise webhook_denied(req.kind, req.name, webhook, message)
        fn(req)
    return hook


def _register(chain: AdmissionChain, mutating: bool, kind: str, operations: tuple[str, ...], fn: Hook,
              name: str, *, main_only: bool = False) -> None:
    """Register ``fn``; a Volcano webhook that cannot decode the object denies it, as the real webhook
    does when the request body does not unmarshal into its Go type. ``main_only``: ``fn`` does
    nothing for subresource writes (``AdmissionChain``)."""
    def guarded(req: AdmissionRequest) -> None:
        try:
            fn(req)
        except DATA_ERRORS as exc:
            if not name.endswith(".volcano.sh"):
                raise
            raise webhook_denied(req.kind, req.name, name, f"cannot decode the {req.kind.kind}: {exc}") from None
    (chain.register_mutating if mutating else chain.register_validating)(kind, operations, guarded, name,
                                                                         main_only=main_only)


def _deny(req: AdmissionRequest, webhook: str, message: str) -> None:
    if message:
        raise webhook_denied(req.kind, req.name, webhook, message)


@dataclass(frozen=True)
class WebhookContext:
    """What Volcano's webhooks read besides the request: the cluster and the webhook manager's flags."""

    view: ClientView
    scheduler_names: tuple[str, ...]
    check_queue_allocated_pods: bool


@dataclass(frozen=True)
class Webhook:
    """One of Volcano's admission webhooks: its path, its configuration name, what it intercepts, and
    ``admit``, which mutates ``req.obj`` in place or raises the denial."""

    path: str
    name: str
    kind: str
    operations: tuple[str, ...]
    mutating: bool
    admit: Callable[[AdmissionRequest, WebhookContext], None]


def _validate_job(req: AdmissionRequest, ctx: WebhookContext) -> None:
    if req.operation == "CREATE":
        _deny(req, "validatejob.volcano.sh", validate_job_create(req.obj, ctx.view))
    elif req.old is not None:
        _deny(req, "validatejob.volcano.sh", validate_job_update(req.old, req.obj))


def _validate_queue(req: AdmissionRequest, ctx: WebhookContext) -> None:
    if req.operation == "DELETE":
        message = validate_queue_delete(req.name, ctx.view, check_allocated_pods=ctx.check_queue_allocated_pods)
    else:
        message = validate_queue(req.obj, req.old if req.operation == "UPDATE" else None, ctx.view)
    _deny(req, "validatequeue.volcano.sh", message)


VOLCANO_WEBHOOKS: tuple[Webhook, ...] = (
    Webhook("/jobs/mutate", "mutatejob.volcano.sh", JOB, ("CREATE",), True,
            lambda req, ctx: mutate_job(req.obj, scheduler_name=ctx.scheduler_names[0])),
    Webhook("/podgroups/mutate", "mutatepodgroup.volcano.sh", PODGROUP, ("CREATE",), True,
            lambda req, ctx: mutate_podgroup(req.obj, ctx.view)),
    Webhook("/queues/mutate", "mutatequeue.volcano.sh", QUEUE, ("CREATE",), True,
            lambda req, ctx: mutate_queue(req.obj)),
    Webhook("/jobs/validate", "validatejob.volcano.sh", JOB, ("CREATE", "UPDATE"), False, _validate_job),
    Webhook("/podgroups/validate", "validatepodgroup.volcano.sh", PODGROUP, ("CREATE",), False,
            lambda req, ctx: _deny(req, "validatepodgroup.volcano.sh", validate_podgroup_create(req.obj, ctx.view))),
    Webhook("/queues/validate", "validatequeue.volcano.sh", QUEUE, ("CREATE", "UPDATE", "DELETE"), False,
            _validate_queue),
    Webhook("/pods/validate", "validatepod.volcano.sh", "Pod", ("CREATE",), False,
            lambda req, ctx: _deny(req, "validatepod.volcano.sh", validate_pod_create(req.obj, ctx.scheduler_names))),
)
"""Volcano's webhooks, mutating before validating, each in the order its chain runs them."""

ALL_WEBHOOKS = tuple(sorted(w.path for w in VOLCANO_WEBHOOKS))
"""Every Volcano webhook path this module implements (all enabled by default)."""


def _kube_builtins(view: ClientView) -> tuple[Hook, Hook]:
    """Kubernetes' own admission that Volcano relies on: the Priority plugin and PriorityClass validation."""
    def priority(req: AdmissionRequest) -> None:
        if req.subresource is not None:
            return
        try:
            admit_pod_priority(req.obj, req.old, view)
        except PriorityError as exc:
            raise forbidden("pods", req.name, exc.reason) from None

    def priority_class(req: AdmissionRequest) -> None:
        causes, reason = validate_priority_class(req.obj, req.old, view)
        if causes:
            raise invalid(req.kind.key, req.name, causes)
        if reason:
            raise forbidden("priorityclasses.scheduling.k8s.io", req.name, reason)

    return priority, priority_class


def _service_account(req: AdmissionRequest) -> None:
    if req.subresource is None:
        admit_service_account(req.obj)


def _bound(webhook: Webhook, ctx: WebhookContext) -> Hook:
    """``webhook.admit`` with its context filled in: the hook the admission chain calls."""
    return lambda req: webhook.admit(req, ctx)


def install_admission(server: ApiServer, *, scheduler_names: Iterable[str] = ("volcano",),
                      webhooks: Iterable[str] = ALL_WEBHOOKS,
                      excluded_namespaces: Iterable[str] = EXCLUDED_NAMESPACES,
                      check_queue_allocated_pods: bool = False) -> None:
    """Register every admission rule on ``server.admission`` (see the module docstring).

    ``scheduler_names`` are Volcano's ``--scheduler-name`` values (the first is the Job default);
    ``webhooks`` selects Volcano webhook paths as ``--enabled-admission`` does; unknown paths are an error.
    """
    names = tuple(scheduler_names)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"scheduler_names must be non-empty strings, got {names!r}")
    enabled = tuple(webhooks)
    unknown = sorted(set(enabled) - set(ALL_WEBHOOKS))
    if unknown:
        raise ValueError(f"webhooks: unknown admission paths {unknown}; known: {list(ALL_WEBHOOKS)}")
    excluded = tuple(excluded_namespaces)
    chain = server.admission
    ctx = WebhookContext(ClientView(server), names, check_queue_allocated_pods)
    priority, priority_class = _kube_builtins(ctx.view)
    _register(chain, True, "Pod", ("CREATE",), _service_account, "ServiceAccount")
    _register(chain, True, "Pod", ("CREATE", "UPDATE"), priority, "Priority", main_only=True)
    _register(chain, False, PRIORITY_CLASS, ("CREATE", "UPDATE"), priority_class, "priorityclass-validation")
    for webhook in VOLCANO_WEBHOOKS:
        if webhook.path in enabled:
            _register(chain, webhook.mutating, webhook.kind, webhook.operations,
                      _main_resource(excluded, _decoded(webhook.name, _bound(webhook, ctx))), webhook.name,
                      main_only=True)
