"""Kubernetes' validation of a pod spec (``pkg/apis/core/validation``), on the fields the testbed reads.

``pod_spec_errors`` checks a (defaulted) PodSpec as ``ValidatePodSpec`` does:
containers present, container names (required, RFC 1123 labels, unique across
init and regular containers), images (pods only), pull policies, resources
(names, non-negative quantities, requests not above limits, extended
resources integral with requests equal to limits), ports (ranges, protocols,
names), the restart and DNS policies, node selector labels, tolerations
(operators, effects, ``tolerationSeconds`` only with ``NoExecute``), node and
pod (anti-)affinity (selector operators and values, weights, topology keys),
scheduler and priority class names, and the deadline fields. Messages and
field paths are Kubernetes' own.

Values are assumed decoded (right JSON types, parseable quantities); anything
else is skipped rather than raised on, so the checks are total.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from volcano.api.quantity import to_milli
from volcano.apiserver.validation.field import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from volcano.apiserver.validation.names import (
    annotations_errors,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_value_errors,
    labels_errors,
    qualified_name_errors,
)

__all__ = [
    "RESTART_POLICIES",
    "label_selector_errors",
    "node_selector_term_errors",
    "pod_annotation_errors",
    "pod_spec_errors",
    "pod_specific_annotation_errors",
    "pod_template_errors",
    "resource_errors",
]

RESTART_POLICIES = ("Always", "OnFailure", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_NATIVE = ("cpu", "memory", "ephemeral-storage")
_NODE_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_LABEL_OPS = ("In", "NotIn", "Exists", "DoesNotExist")
_MAX_INT32 = 2**31 - 1


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _resource_name_errors(name: str, path: str) -> list[FieldError]:
    if "/" not in name:
        if name in _NATIVE or name.startswith("hugepages-"):
            return []
        return [invalid(path, name, "must be a standard resource for containers")]
    errs = qualified_name_errors(name)
    return [invalid(path, name, e) for e in errs]


def _is_extended(name: str) -> bool:
    return "/" in name and not name.startswith(("kubernetes.io/", "requests.")) and not name.startswith("hugepages-")


def resource_errors(resources: Any, path: str) -> list[FieldError]:
    """``ValidateResourceRequirements`` on a container's ``resources`` (``path`` ends in ``.resources``)."""
    res = _mapping(resources)
    errs: list[FieldError] = []
    parsed: dict[str, dict[str, int]] = {"limits": {}, "requests": {}}
    for part in ("limits", "requests"):
        values = _mapping(res.get(part))
        for name in sorted(values):
            field = f"{path}.{part}[{name}]"
            errs.extend(_resource_name_errors(str(name), field))
            try:
                milli = to_milli(values[name])
            except (ValueError, TypeError):
                continue  # decoding reports malformed quantities
            if milli < 0:
                errs.append(invalid(field, str(values[name]), "must be greater than or equal to 0"))
            if _is_extended(str(name)) and milli % 1000:
                errs.append(invalid(field, str(values[name]), "must be an integer"))
            parsed[part][name] = milli
    limits, requests = _mapping(res.get("limits")), _mapping(res.get("requests"))
    for name in sorted(parsed["requests"]):
        limit = parsed["limits"].get(name)
        if _is_extended(str(name)):
            if limit is None:
                errs.append(required(f"{path}.limits", "Limit must be set for non overcommitable resources"))
            elif parsed["requests"][name] != limit:
                errs.append(invalid(f"{path}.requests[{name}]", str(requests[name]),
                                    f"must be equal to {name} limit of {limits[name]}"))
        elif limit is not None and parsed["requests"][name] > limit:
            errs.append(invalid(f"{path}.requests", str(requests[name]),
                                f"must be less than or equal to {name} limit of {limits[name]}"))
    return errs


def _port_errors(ports: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(_items(ports)):
        p = f"{path}[{i}]"
        port = _mapping(port)
        name = port.get("name")
        if isinstance(name, str) and name:
            if len(name) > 15:
                errs.append(invalid(f"{p}.name", name, "must be no more than 15 characters"))
            elif name in names:
                errs.append(duplicate(f"{p}.name", name))
            names.add(name)
        number = port.get("containerPort")
        if not number:
            errs.append(required(f"{p}.containerPort"))
        elif isinstance(number, int) and not 1 <= number <= 65535:
            errs.append(invalid(f"{p}.containerPort", number, "must be between 1 and 65535, inclusive"))
        host = port.get("hostPort")
        if isinstance(host, int) and host and not 1 <= host <= 65535:
            errs.append(invalid(f"{p}.hostPort", host, "must be between 1 and 65535, inclusive"))
        protocol = port.get("protocol")
        if not protocol:
            errs.append(required(f"{p}.protocol"))
        elif protocol not in _PROTOCOLS:
            errs.append(not_supported(f"{p}.protocol", protocol, _PROTOCOLS))
    return errs


def _container_errors(container: Mapping[str, Any], path: str, for_pod: bool, seen: set[str]) -> list[FieldError]:
    errs: list[FieldError] = []
    name = container.get("name")
    if not name:
        errs.append(required(f"{path}.name"))
    else:
        text = str(name)
        problems = dns1123_label_errors(text)
        errs.extend(invalid(f"{path}.name", text, e) for e in problems)
        if not problems and text in seen:
            errs.append(duplicate(f"{path}.name", text))
        seen.add(text)
    if for_pod and not container.get("image"):
        errs.append(required(f"{path}.image"))
    pull = container.get("imagePullPolicy")
    if pull and pull not in _PULL_POLICIES:
        errs.append(not_supported(f"{path}.imagePullPolicy", pull, _PULL_POLICIES))
    errs.extend(_port_errors(container.get("ports"), f"{path}.ports"))
    errs.extend(resource_errors(container.get("resources"), f"{path}.resources"))
    return errs


def _toleration_errors(tolerations: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, tol in enumerate(_items(tolerations)):
        p = f"{path}[{i}]"
        tol = _mapping(tol)
        key, operator, value = tol.get("key") or "", tol.get("operator") or "", tol.get("value") or ""
        effect = tol.get("effect") or ""
        if key:
            errs.extend(invalid(f"{p}.key", key, e) for e in qualified_name_errors(str(key)))
        if not key and operator != "Exists":
            errs.append(invalid(f"{p}.operator", operator, "operator must be Exists when `key` is empty, which "
                                "means \"match all values and all keys\""))
        if tol.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(invalid(f"{p}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("", "Equal"):
            errs.extend(invalid(f"{p}.value", value, e) for e in label_value_errors(str(value)))
        elif operator == "Exists":
            if value:
                errs.append(invalid(f"{p}.operator", value, "value must be empty when `operator` is 'Exists'"))
        else:
            errs.append(not_supported(f"{p}.operator", operator, ("Equal", "Exists")))
        if effect and effect not in _EFFECTS:
            errs.append(not_supported(f"{p}.effect", effect, _EFFECTS))
    return errs


def _set_requirement_errors(req: Mapping[str, Any], path: str, *, numeric: bool) -> list[FieldError]:
    """A set-based requirement's operator, values and key: ``In``/``NotIn`` need values, ``Exists``/
    ``DoesNotExist`` forbid them, and (node selectors only, ``numeric``) ``Gt``/``Lt`` take one value. That
    value is not checked to be an integer: Kubernetes 1.32's ``ValidateNodeSelectorRequirement`` only counts
    the values (a requirement whose value does not parse matches no node when scheduling)."""
    errs: list[FieldError] = []
    operator, values = req.get("operator"), _items(req.get("values"))
    if operator in ("In", "NotIn"):
        if not values:
            errs.append(required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or "
                                                    "'DoesNotExist'"))
    elif numeric and operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
    key = req.get("key") or ""
    errs.extend(invalid(f"{path}.key", key, e) for e in qualified_name_errors(str(key)))
    if not numeric:  # a label selector's values are label values (node selectors' are not checked)
        for i, value in enumerate(values):
            errs.extend(invalid(f"{path}.values[{i}]", value, e) for e in label_value_errors(str(value)))
    return errs


def node_selector_term_errors(term: Any, path: str) -> list[FieldError]:
    """``ValidateNodeSelectorTerm``: every match expression's operator, values and key."""
    term = _mapping(term)
    errs: list[FieldError] = []
    for i, req in enumerate(_items(term.get("matchExpressions"))):
        errs.extend(_set_requirement_errors(_mapping(req), f"{path}.matchExpressions[{i}]", numeric=True))
    for i, req in enumerate(_items(term.get("matchFields"))):
        req = _mapping(req)
        p = f"{path}.matchFields[{i}]"
        operator, values = req.get("operator"), _items(req.get("values"))
        if operator not in ("In", "NotIn"):  # ``ValidateNodeFieldSelectorRequirement``: operator, then key
            errs.append(invalid(f"{p}.operator", str(operator or ""), "not a valid selector operator"))
        elif len(values) != 1:
            errs.append(required(f"{p}.values", "must be only one value when `operator` is 'In' or 'NotIn' for "
                                                "node field selector"))
        if req.get("key") != "metadata.name":
            errs.append(invalid(f"{p}.key", req.get("key"), "not a valid field selector key"))
        else:  # the one field selector key's values are node names
            for j, value in enumerate(values):
                errs.extend(invalid(f"{p}.values[{j}]", value, e) for e in dns1123_subdomain_errors(str(value)))
    return errs


def label_selector_errors(selector: Any, path: str) -> list[FieldError]:
    """``ValidateLabelSelector``: ``matchLabels`` (keys and values), then each of ``matchExpressions``
    (operator, values, key, then each value a label value)."""
    sel = _mapping(selector)
    errs = labels_errors(sel.get("matchLabels"), f"{path}.matchLabels")
    for i, req in enumerate(_items(sel.get("matchExpressions"))):
        errs.extend(_set_requirement_errors(_mapping(req), f"{path}.matchExpressions[{i}]", numeric=False))
    return errs


def _weighted(terms: Any, path: str) -> Iterator[tuple[Mapping[str, Any], str, list[FieldError]]]:
    """Each preferred term with its path and its weight error (weights are 1-100)."""
    for i, term in enumerate(_items(terms)):
        term = _mapping(term)
        weight = term.get("weight")
        errs = [invalid(f"{path}[{i}].weight", weight, "must be in the range 1-100")] \
            if isinstance(weight, int) and not 1 <= weight <= 100 else []
        yield term, f"{path}[{i}]", errs


def _affinity_errors(affinity: Any, path: str) -> list[FieldError]:
    aff = _mapping(affinity)
    errs: list[FieldError] = []
    node = _mapping(aff.get("nodeAffinity"))
    hard = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(hard, Mapping):
        p = f"{path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        terms = _items(hard.get("nodeSelectorTerms"))
        if not terms:
            errs.append(required(p, "must have at least one node selector term"))
        for i, term in enumerate(terms):
            errs.extend(node_selector_term_errors(term, f"{p}[{i}]"))
    soft = f"{path}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    for term, p, weight_errs in _weighted(node.get("preferredDuringSchedulingIgnoredDuringExecution"), soft):
        errs.extend(weight_errs)
        errs.extend(node_selector_term_errors(term.get("preference"), f"{p}.preference"))
    for kind in ("podAffinity", "podAntiAffinity"):
        pod = _mapping(aff.get(kind))
        hard_path = f"{path}.{kind}.requiredDuringSchedulingIgnoredDuringExecution"
        for i, term in enumerate(_items(pod.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            errs.extend(_pod_affinity_term_errors(_mapping(term), f"{hard_path}[{i}]"))
        soft_path = f"{path}.{kind}.preferredDuringSchedulingIgnoredDuringExecution"
        for term, p, weight_errs in _weighted(pod.get("preferredDuringSchedulingIgnoredDuringExecution"), soft_path):
            errs.extend(weight_errs)
            errs.extend(_pod_affinity_term_errors(_mapping(term.get("podAffinityTerm")), f"{p}.podAffinityTerm"))
    return errs


def _pod_affinity_term_errors(term: Mapping[str, Any], path: str) -> list[FieldError]:
    """``validatePodAffinityTerm``: both selectors, each of ``namespaces`` a namespace name (errors at
    ``namespace``, as upstream names them), and ``topologyKey``: required, and a qualified name even when
    empty (so an empty key is three errors)."""
    errs = label_selector_errors(term.get("labelSelector"), f"{path}.labelSelector")
    errs.extend(label_selector_errors(term.get("namespaceSelector"), f"{path}.namespaceSelector"))
    for name in _items(term.get("namespaces")):
        errs.extend(invalid(f"{path}.namespace", name, e) for e in dns1123_label_errors(str(name)))
    topology = term.get("topologyKey") or ""
    if not topology:
        errs.append(required(f"{path}.topologyKey", "can not be empty"))
    errs.extend(invalid(f"{path}.topologyKey", topology, e) for e in qualified_name_errors(str(topology)))
    return errs


def pod_spec_errors(spec: Any, path: str, *, for_pod: bool) -> list[FieldError]:
    """Every ``ValidatePodSpec`` error of ``spec`` (rooted at ``path``); ``for_pod`` adds the pod-only checks."""
    spec = _mapping(spec)
    errs: list[FieldError] = []
    containers = _items(spec.get("containers"))
    if not containers:
        errs.append(required(f"{path}.containers"))
    seen: set[str] = set()
    for group, items in (("initContainers", _items(spec.get("initContainers"))), ("containers", containers)):
        for i, container in enumerate(items):
            errs.extend(_container_errors(_mapping(container), f"{path}.{group}[{i}]", for_pod, seen))
    restart = spec.get("restartPolicy") or "Always"
    if restart not in RESTART_POLICIES:
        errs.append(not_supported(f"{path}.restartPolicy", restart, RESTART_POLICIES))
    dns = spec.get("dnsPolicy")
    if dns and dns not in _DNS_POLICIES:
        errs.append(not_supported(f"{path}.dnsPolicy", dns, _DNS_POLICIES))
    errs.extend(labels_errors(spec.get("nodeSelector"), f"{path}.nodeSelector"))
    errs.extend(_toleration_errors(spec.get("tolerations"), f"{path}.tolerations"))
    errs.extend(_affinity_errors(spec.get("affinity"), f"{path}.affinity"))
    for field in ("serviceAccountName", "schedulerName", "priorityClassName", "nodeName"):
        value = spec.get(field)
        if value:
            errs.extend(invalid(f"{path}.{field}", value, e) for e in dns1123_subdomain_errors(str(value)))
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace < 0:
        errs.append(invalid(f"{path}.terminationGracePeriodSeconds", grace, "must be greater than or equal to 0"))
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not 1 <= deadline <= _MAX_INT32:
        errs.append(invalid(f"{path}.activeDeadlineSeconds", deadline,
                            f"must be between 1 and {_MAX_INT32}, inclusive"))
    return errs


def pod_template_errors(template: Any, path: str = "template") -> list[FieldError]:
    """``ValidatePodTemplateSpec``: the template's labels and annotations and its spec (no pod-only checks)."""
    tmpl = _mapping(template)
    meta = _mapping(tmpl.get("metadata"))
    # The template's ObjectMeta fields are named straight under the template (``template.labels``).
    errs = labels_errors(meta.get("labels"), f"{path}.labels")
    errs.extend(annotations_errors(meta.get("annotations"), f"{path}.annotations"))
    errs.extend(pod_specific_annotation_errors(meta.get("annotations"), tmpl.get("spec"), f"{path}.annotations"))
    errs.extend(pod_spec_errors(tmpl.get("spec"), f"{path}.spec", for_pod=False))
    return errs


MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_INT32 = (-(2**31), 2**31 - 1)


def _deletion_cost_ok(value: str) -> bool:
    """``GetDeletionCostFromPodAnnotations``: a canonical base-10 int32 (no ``+``, no leading zero)."""
    if not value or not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return False
    digits = value[1:] if value[0] == "-" else value
    if not digits.isascii() or not digits.isdigit():
        return False
    return _INT32[0] <= int(value) <= _INT32[1]


def pod_specific_annotation_errors(annotations: Any, spec: Any, path: str) -> list[FieldError]:
    """``ValidatePodSpecificAnnotations`` (the parts this server reads) of ``annotations`` at ``path``: a
    mirror pod must name its node; ``controller.kubernetes.io/pod-deletion-cost`` must be a 32-bit integer."""
    if not isinstance(annotations, Mapping) or not annotations:
        return []
    errs: list[FieldError] = []
    if MIRROR_ANNOTATION in annotations and not (spec.get("nodeName") if isinstance(spec, Mapping) else None):
        errs.append(invalid(f"{path}[{MIRROR_ANNOTATION}]", str(annotations[MIRROR_ANNOTATION]),
                            "must set spec.nodeName if mirror pod annotation is set"))
    cost = annotations.get(_DELETION_COST)
    if cost is not None and not _deletion_cost_ok(str(cost)):
        errs.append(invalid(f"{path}[{_DELETION_COST}]", str(cost), "must be a 32bit integer"))
    return errs


def pod_annotation_errors(pod: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodSpecificAnnotations`` of a pod's own annotations (``metadata.annotations[...]``)."""
    meta = pod.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    return pod_specific_annotation_errors(annotations, pod.get("spec"), "metadata.annotations")
