"""Simulation annotations and kubelet settings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from volcano.kubelet import KubeletConfig, SimAnnotationError, parse_duration_ms, parse_sim_spec


@pytest.mark.parametrize(("text", "ms"), [
    ("30s", 30_000), ("2m", 120_000), ("1h", 3_600_000), ("1.5s", 1_500), ("90", 90_000), ("2.5", 2_500),
    ("250ms", 250), ("1m30s", 90_000), ("1h2m3s4ms", 3_723_004), (".5s", 500), ("0", 0), ("0.0001", 1),
    (" 10s ", 10_000), (7, 7_000), (0.25, 250),
])
def test_parse_duration(text: str | int | float, ms: int) -> None:
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize("bad", ["", "-1", "-5s", "10x", "s", "1.2.3s", "abc", "1d", True, -3, float("nan")])
def test_parse_duration_rejects(bad: object) -> None:
    with pytest.raises(SimAnnotationError, match="invalid duration"):
        parse_duration_ms(bad)  # type: ignore[arg-type]


@given(st.integers(0, 10**6), st.integers(0, 59), st.integers(0, 999))
def test_duration_components_add_up(minutes: int, seconds: int, millis: int) -> None:
    text = f"{minutes}m{seconds}s{millis}ms"
    assert parse_duration_ms(text) == minutes * 60_000 + seconds * 1000 + millis


def _pod(annotations: dict[str, str]) -> dict[str, object]:
    return {"metadata": {"name": "p", "annotations": annotations}}


def test_sim_spec_defaults() -> None:
    spec = parse_sim_spec(_pod({}))
    assert (spec.duration_ms, spec.gang, spec.exit_code, spec.group) == (None, False, 0, None)


def test_sim_spec_reads_every_annotation() -> None:
    spec = parse_sim_spec(_pod({"sim.volcano.sh/duration": "2m", "sim.volcano.sh/progress": "gang",
                                "sim.volcano.sh/exit-code": "3", "scheduling.k8s.io/group-name": "pg"}))
    assert (spec.duration_ms, spec.gang, spec.exit_code, spec.group) == (120_000, True, 3, "pg")


@pytest.mark.parametrize(("annotations", "needle"), [
    ({"sim.volcano.sh/duration": "soon"}, "sim.volcano.sh/duration: invalid duration 'soon'"),
    ({"sim.volcano.sh/progress": "together"}, "sim.volcano.sh/progress: invalid value 'together'"),
    ({"sim.volcano.sh/exit-code": "x"}, "sim.volcano.sh/exit-code: invalid value 'x'"),
    ({"sim.volcano.sh/exit-code": "256"}, "sim.volcano.sh/exit-code: invalid value '256'"),
])
def test_sim_spec_errors_name_annotation_and_value(annotations: dict[str, str], needle: str) -> None:
    with pytest.raises(SimAnnotationError) as err:
        parse_sim_spec(_pod(annotations))
    assert needle in str(err.value)


def test_config_defaults_and_validation() -> None:
    cfg = KubeletConfig()
    assert (cfg.start_delay_ms, cfg.stop_delay_ms, cfg.node_eviction_timeout_ms) == (1000, None, 300_000)
    assert KubeletConfig(stop_delay_ms=0).stop_delay_ms == 0
    with pytest.raises(ValueError, match="start_delay_ms"):
        KubeletConfig(start_delay_ms=-1)
    with pytest.raises(ValueError, match="stop_delay_ms"):
        KubeletConfig(stop_delay_ms=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="node_eviction_timeout_ms"):
        KubeletConfig(node_eviction_timeout_ms=None)  # type: ignore[arg-type]
