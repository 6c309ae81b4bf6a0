"""Unit tests of ``ValidatePatchOptions``/``ValidateFieldManager`` as kube-apiserver applies them:
every error of the options in one 422 (Kubernetes' error aggregate), and a field manager refused
per character that is not printable (``invalid character U+0009 (at position 3)``, the value
quoted as Go's ``%q`` shows it)."""

from __future__ import annotations

import pytest

from volcano.apiserver import ApiError, ApiServer
from volcano.apiserver.patching import field_manager_errors, go_quote
from volcano.sim import RandomStreams, SimClock


def _server() -> ApiServer:
    server = ApiServer(SimClock(), RandomStreams(0))
    server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}})
    return server


def test_go_quote_escapes_as_strconv_quote() -> None:
    assert go_quote('a"b\\c') == '"a\\"b\\\\c"'
    assert go_quote("t\tn\nr\ra\ab\bf\fv\v") == '"t\\tn\\nr\\ra\\ab\\bf\\fv\\v"'
    assert go_quote("\x00\x7f") == '"\\x00\\x7f"'
    assert go_quote("\x85\u2028") == '"\\u0085\\u2028"'
    assert go_quote("\U000e0001") == '"\\U000e0001"'
    assert go_quote("é ü") == '"é ü"'


def test_each_unprintable_character_is_one_error_at_its_byte_offset() -> None:
    assert field_manager_errors("é\tx\x00") == [
        'fieldManager: Invalid value: "é\\tx\\x00": invalid character U+0009 (at position 2)',
        'fieldManager: Invalid value: "é\\tx\\x00": invalid character U+0000 (at position 4)']
    assert field_manager_errors("kubectl client") == []
    assert field_manager_errors("") == []
    assert field_manager_errors(None) == []


def test_too_long_and_unprintable_are_both_listed() -> None:
    manager = "m" * 128 + "\t"
    assert field_manager_errors(manager) == [
        "fieldManager: Too long: may not be more than 128 bytes",
        f'fieldManager: Invalid value: "{"m" * 128}\\t": invalid character U+0009 (at position 128)']
    assert field_manager_errors("m" * 128) == []
    assert field_manager_errors("é" * 64) == []  # 128 bytes
    assert field_manager_errors("é" * 64 + "m") == ["fieldManager: Too long: may not be more than 128 bytes"]


def test_patch_options_list_every_error() -> None:
    server = _server()
    with pytest.raises(ApiError) as err:
        server.patch("ConfigMap", "c", "default", {"data": {"k": "v"}}, patch_type="merge", force=True,
                     field_manager="a\tb")
    assert (err.value.code, err.value.reason, err.value.message) == (
        422, "Invalid", 'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for '
        'non-apply patch, fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1)]')
    assert [c["reason"] for c in err.value.details["causes"]] == ["FieldValueForbidden", "FieldValueInvalid"]
    assert [c["field"] for c in err.value.details["causes"]] == ["force", "fieldManager"]
    assert "data" not in server.get("ConfigMap", "c", "default")


def test_create_options_refuse_an_unprintable_manager() -> None:
    server = _server()
    with pytest.raises(ApiError) as err:
        server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d", "namespace": "default"}},
                      field_manager="x\ny")
    assert err.value.message == ('CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: '
                                 '"x\\ny": invalid character U+000A (at position 1)')
