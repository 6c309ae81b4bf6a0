"""The component commands refuse bad flags and missing cluster configuration with exit 2 and a message
naming the flag, before connecting anywhere."""

from __future__ import annotations

import pytest

from volcano.cli import main


@pytest.mark.parametrize(("argv", "message"), [
    (["scheduler", "--kubeconfig", "/no/such/kubeconfig"], "--kubeconfig /no/such/kubeconfig: no such file"),
    (["controllers", "--kubeconfig", "/no/such/kubeconfig"], "--kubeconfig /no/such/kubeconfig: no such file"),
    (["nodes", "--count", "-1"], "--count -1: must be an integer >= 0"),
    (["nodes", "--count", "1", "--cpu", "lots"], "--cpu 'lots'"),
    (["nodes", "--count", "1", "--prefix", "Upper"], "--prefix 'Upper'"),
    (["nodes", "--count", "1", "--taint", "k=v:Sometimes"], "--taint 'k=v:Sometimes'"),
    (["nodes", "--count", "1", "--label", "novalue"], "--label 'novalue': expected KEY=VALUE"),
    (["scheduler", "--scheduler-conf", "/no/such/conf.yaml"], "--scheduler-conf /no/such/conf.yaml"),
    (["scheduler", "--kube-api-qps", "5", "--kube-api-burst", "0", "--kubeconfig", "/dev/null"],
     "--kube-api-burst 0"),
    (["controllers", "--speed", "0", "--kubeconfig", "/dev/null"], "--speed 0"),
])
def test_bad_flags_exit_2_naming_the_flag(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_bad_durations_are_argparse_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["scheduler", "--schedule-period", "soon"])
    assert info.value.code == 2 and "invalid duration 'soon'" in capsys.readouterr().err


def test_no_configuration_at_all_is_explained(tmp_path: object, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["scheduler"]) == 2
    assert "no cluster configuration: pass --kubeconfig, set KUBECONFIG" in capsys.readouterr().err
