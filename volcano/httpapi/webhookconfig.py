"""Which registered admission webhooks a write calls, as kube-apiserver decides it.

``Webhook`` is one entry of a stored ``MutatingWebhookConfiguration`` or
``ValidatingWebhookConfiguration`` with the API's defaults filled in (``failurePolicy: Fail``,
``matchPolicy: Equivalent``, ``timeoutSeconds: 10``, empty selectors, rule ``scope: "*"``).
``webhooks(server, mutating)`` lists them in kube-apiserver's order: configurations sorted by name,
webhooks in their listed order.

``Webhook.matches(attrs, namespace_labels)`` applies the rules as kube-apiserver's matcher does:

* a rule matches when the operation, API group, API version and resource all match (``*`` matches
  any); a resource entry ``res/sub`` matches a subresource write, ``res`` only the main resource,
  ``*/*`` everything; ``scope`` ``Cluster`` or ``Namespaced`` limits it to that kind of object;
* ``namespaceSelector`` is matched against the labels of the object's namespace, which always carry
  ``kubernetes.io/metadata.name`` (cluster-scoped objects other than Namespaces always match; a
  Namespace is matched by its own labels);
* ``objectSelector`` matches when it matches the labels of the new or of the old object.

A selector that does not parse makes the webhook match nothing and is reported by ``problem``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from volcano.api.kinds import KindInfo
from volcano.api.selectors import LabelSelector, SelectorError, label_selector_from_dict
from volcano.apiserver import ApiError, ApiServer

__all__ = ["MUTATING", "VALIDATING", "Attributes", "Webhook", "namespace_labels", "webhooks"]

MUTATING = "MutatingWebhookConfiguration.admissionregistration.k8s.io"
VALIDATING = "ValidatingWebhookConfiguration.admissionregistration.k8s.io"
_NAME_LABEL = "kubernetes.io/metadata.name"


@dataclass(frozen=True, slots=True)
class Attributes:
    """What a rule is matched against: the write's operation, resource, subresource and objects."""

    operation: str
    info: KindInfo
    subresource: str
    namespace: str
    obj: Mapping[str, Any] | None
    old: Mapping[str, Any] | None


def _labels(obj: Mapping[str, Any] | None) -> Mapping[str, str]:
    if not isinstance(obj, Mapping):
        return {}
    labels = (obj.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, Mapping) else {}


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


@dataclass(frozen=True)
class Webhook:
    """One webhook of a configuration, defaults applied (see the module docstring)."""

    configuration: str
    name: str
    mutating: bool
    client_config: Mapping[str, Any]
    rules: tuple[Mapping[str, Any], ...]
    failure_policy: str
    timeout_seconds: int
    side_effects: str
    namespace_selector: LabelSelector | None
    object_selector: LabelSelector | None
    problem: str = ""

    @classmethod
    def from_dict(cls, configuration: str, hook: Mapping[str, Any], mutating: bool) -> Webhook:
        """The webhook ``hook`` (an entry of ``webhooks``) of ``configuration``."""
        problem = ""
        selectors: list[LabelSelector | None] = []
        for field in ("namespaceSelector", "objectSelector"):
            try:
                selectors.append(label_selector_from_dict(hook.get(field)))
            except SelectorError as exc:
                selectors.append(None)
                problem = f"{field}: {exc}"
        timeout = hook.get("timeoutSeconds")
        rules = hook.get("rules")
        return cls(configuration=configuration, name=str(hook.get("name") or ""), mutating=mutating,
                   client_config=hook.get("clientConfig") or {},
                   rules=tuple(r for r in rules if isinstance(r, Mapping)) if isinstance(rules, list) else (),
                   failure_policy=str(hook.get("failurePolicy") or "Fail"),
                   timeout_seconds=timeout if isinstance(timeout, int) and not isinstance(timeout, bool)
                   and 1 <= timeout <= 30 else 10,
                   side_effects=str(hook.get("sideEffects") or "Unknown"),
                   namespace_selector=selectors[0], object_selector=selectors[1], problem=problem)

    def _rule_matches(self, rule: Mapping[str, Any], attrs: Attributes) -> bool:
        info = attrs.info
        ops = _strings(rule.get("operations"))
        if "*" not in ops and attrs.operation not in ops:
            return False
        groups, versions = _strings(rule.get("apiGroups")), _strings(rule.get("apiVersions"))
        if "*" not in groups and info.group not in groups:
            return False
        if "*" not in versions and info.version not in versions:
            return False
        scope = str(rule.get("scope") or "*")
        if (scope == "Cluster" and info.namespaced) or (scope == "Namespaced" and not info.namespaced):
            return False
        for entry in _strings(rule.get("resources")):
            res, _, sub = entry.partition("/")
            if res in ("*", info.plural) and sub in ("*", attrs.subresource):
                return True
        return False

    def matches(self, attrs: Attributes, namespace_labels: Mapping[str, str]) -> bool:
        """Whether this webhook is called for ``attrs`` (see the module docstring)."""
        if self.problem or self.namespace_selector is None or self.object_selector is None:
            return False
        if not any(self._rule_matches(rule, attrs) for rule in self.rules):
            return False
        scoped = attrs.info.namespaced or attrs.info.key == "Namespace"
        if scoped and not self.namespace_selector.matches(namespace_labels):
            return False
        sel = self.object_selector
        return sel.matches(_labels(attrs.obj)) or sel.matches(_labels(attrs.old))

    def could_match(self, info: KindInfo, subresource: str) -> bool:
        """Whether some operation on ``info``'s resource (``subresource``) could call this webhook."""
        probe = Attributes("*", info, subresource, "", None, None)
        return any(self._rule_matches({**rule, "operations": ["*"]}, probe) for rule in self.rules)


def webhooks(server: ApiServer, mutating: bool) -> list[Webhook]:
    """Every registered mutating (or validating) webhook, in call order (see the module docstring)."""
    kind = MUTATING if mutating else VALIDATING
    configs = sorted(server.list(kind)["items"], key=lambda c: str(c["metadata"]["name"]))
    out: list[Webhook] = []
    for config in configs:
        for hook in config.get("webhooks") or ():
            if isinstance(hook, Mapping):
                out.append(Webhook.from_dict(str(config["metadata"]["name"]), hook, mutating))
    return out


def namespace_labels(server: ApiServer, attrs: Attributes) -> dict[str, str]:
    """The labels a namespace selector sees for ``attrs`` (with ``kubernetes.io/metadata.name``)."""
    if attrs.info.key == "Namespace":
        name = str(((attrs.obj or attrs.old or {}).get("metadata") or {}).get("name") or "")
        return {**_labels(attrs.obj or attrs.old), _NAME_LABEL: name}
    if not attrs.info.namespaced:
        return {}
    try:
        ns = server.get("Namespace", attrs.namespace)
    except ApiError:  # a missing namespace: the write fails on its own; the selector sees the name only
        return {_NAME_LABEL: attrs.namespace}
    return {**_labels(ns), _NAME_LABEL: attrs.namespace}
