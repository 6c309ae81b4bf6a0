"""Admission: Volcano's mutating and validating webhooks, CRD schema rules, Kubernetes' Priority
admission and Pod defaulting.

``install_admission(server)`` registers every rule on an ``ApiServer``'s admission chain. The rules
themselves are pure functions over dicts in the per-kind modules (``job``, ``podgroup``, ``queue``,
``pod``, ``priority``, ``schema``, ``defaults``), testable without a server.
"""

from volcano.admission.install import ALL_WEBHOOKS, EXCLUDED_NAMESPACES, install_admission

__all__ = ["ALL_WEBHOOKS", "EXCLUDED_NAMESPACES", "install_admission"]
