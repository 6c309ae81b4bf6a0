"""The simulated kubelet: node agents and the pod lifecycle on a fake cluster.

``SimKubelet`` plays the kubelet of every node; ``KubeletConfig`` sets its
timings; the ``sim.volcano.sh/*`` pod annotations (``volcano.kubelet.config``)
describe each pod's work and outcome.
"""

from volcano.kubelet.config import (
    KubeletConfig,
    SimAnnotationError,
    SimSpec,
    parse_duration_ms,
    parse_sim_spec,
)
from volcano.kubelet.kubelet import SimKubelet

__all__ = [
    "KubeletConfig",
    "SimAnnotationError",
    "SimKubelet",
    "SimSpec",
    "parse_duration_ms",
    "parse_sim_spec",
]
