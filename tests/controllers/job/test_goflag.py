"""The job plugins' flags are Go's: ``strconv.ParseBool``, ``strconv.ParseInt(s, 0, 64)`` and
``flag.FlagSet.Parse`` with ``ContinueOnError`` (Volcano logs the error and the plugin goes on with
what was parsed). Property tests check the parsers against Go's literal grammar written out as a
regular expression (an oracle independent of the scanner under test)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.controllers.job.conftest import NS, Cluster, job, task
from volcano.controllers.job.plugins.goflag import NumError, go_quote, parse_bool, parse_flags, parse_int

INT64_MAX, INT64_MIN = (1 << 63) - 1, -(1 << 63)
BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
         "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}

# Go's integer literal grammar (the spec's int_lit), which ParseInt with base 0 accepts after a sign.
_GO_INT = re.compile(r"""[+-]?(?:
      0[xX](?:_?[0-9a-fA-F])+
    | 0[oO](?:_?[0-7])+
    | 0[bB](?:_?[01])+
    | 0(?:_?[0-7])*
    | [1-9](?:_?[0-9])*
)""", re.VERBOSE)


def _oracle(text: str) -> int | None:
    """The value of ``text`` as a Go integer literal with an optional sign, None when it is not one."""
    if not text.isascii() or not _GO_INT.fullmatch(text):
        return None
    sign = -1 if text[0] == "-" else 1
    body = text.lstrip("+-").replace("_", "")
    if len(body) > 1 and body[0] == "0" and body[1] in "xXoObB":
        return sign * int(body[2:], {"x": 16, "o": 8, "b": 2}[body[1].lower()])
    if len(body) > 1 and body[0] == "0":
        return sign * int(body[1:], 8)
    return sign * int(body, 10)


@pytest.mark.parametrize("text", sorted(BOOLS))
def test_parse_bool_takes_exactly_go_s_twelve(text: str) -> None:
    assert parse_bool(text) is BOOLS[text]


@pytest.mark.parametrize("text", ["", "yes", "no", "tRUE", "TrUe", "FaLse", "on", " true", "true ", "2", "1.0"])
def test_parse_bool_refuses_the_rest(text: str) -> None:
    with pytest.raises(NumError) as err:
        parse_bool(text)
    assert err.value.value is False and not err.value.out_of_range


@given(st.text(alphabet="01tTfFrRuUeEaAlLsS yn", max_size=6))
def test_parse_bool_property(text: str) -> None:
    """Any text: true or false exactly for the twelve spellings, else a syntax error."""
    if text in BOOLS:
        assert parse_bool(text) is BOOLS[text]
    else:
        with pytest.raises(NumError):
            parse_bool(text)


@pytest.mark.parametrize(("text", "value"), [
    ("0", 0), ("7", 7), ("-7", -7), ("+7", 7), ("010", 8), ("0o10", 8), ("0O17", 15), ("0x1F", 31),
    ("0XfF", 255), ("0b101", 5), ("0B1", 1), ("1_000", 1000), ("0x_1f", 31), ("0_7", 7), ("0b_1_0", 2),
    ("00", 0), ("-0", 0), (str(INT64_MAX), INT64_MAX), (str(INT64_MIN), INT64_MIN),
])
def test_parse_int_accepts_go_literals(text: str, value: int) -> None:
    assert parse_int(text) == value


@pytest.mark.parametrize("text", [
    "", "-", "+", "08", "09", "0x", "0o", "0b", "0b2", "0o8", "0xg", "1_", "_1", "1__0", "0x__1", "0_",
    " 1", "1 ", "1.0", "1e3", "--1", "+-1", "٣", "0x1_", "1a",
])
def test_parse_int_refuses_the_rest_with_zero(text: str) -> None:
    with pytest.raises(NumError) as err:
        parse_int(text)
    assert err.value.value == 0 and not err.value.out_of_range


@pytest.mark.parametrize(("text", "value"), [
    (str(INT64_MAX + 1), INT64_MAX), (str(INT64_MIN - 1), INT64_MIN), ("0x8000000000000000", INT64_MAX),
    ("99999999999999999999999", INT64_MAX), ("-0b" + "1" * 70, INT64_MIN),
    ("99999999999999999999x", INT64_MAX),  # Go stops at the overflow, before the bad character
])
def test_parse_int_out_of_range_returns_the_bound(text: str, value: int) -> None:
    with pytest.raises(NumError) as err:
        parse_int(text)
    assert err.value.out_of_range and err.value.value == value


@given(st.text(alphabet="+-0123456789abcdefxXoObB_ Z", max_size=15))
def test_parse_int_property_short_texts(text: str) -> None:
    """Texts too short to overflow: a value exactly when Go's grammar says so, the same value."""
    expected = _oracle(text)
    if expected is None:
        with pytest.raises(NumError) as err:
            parse_int(text)
        assert err.value.value == 0 and not err.value.out_of_range
    else:
        assert parse_int(text) == expected


@given(st.integers(min_value=-(1 << 70), max_value=1 << 70), st.sampled_from(["d", "x", "X", "o", "O", "0", "b"]),
       st.booleans(), st.booleans())
def test_parse_int_property_any_magnitude(n: int, style: str, underscores: bool, plus: bool) -> None:
    """Any integer written in any base Go reads (with digit separators or not): its value within
    int64, else a range error carrying the nearest bound."""
    digits = {"d": f"{abs(n)}", "x": f"{abs(n):x}", "X": f"{abs(n):X}", "o": f"{abs(n):o}",
              "O": f"{abs(n):o}", "0": f"{abs(n):o}", "b": f"{abs(n):b}"}[style]
    if underscores:
        digits = "_".join(digits)
    prefix = {"d": "", "x": "0x", "X": "0X", "o": "0o", "O": "0O", "0": "0", "b": "0b"}[style]
    if style == "d" and underscores and digits.startswith("0"):
        digits = digits.replace("_", "")  # "0_..." is an octal literal, not a decimal one
    text = ("-" if n < 0 else "+" if plus else "") + prefix + digits
    if INT64_MIN <= n <= INT64_MAX:
        assert parse_int(text) == n
    else:
        with pytest.raises(NumError) as err:
            parse_int(text)
        assert err.value.out_of_range and err.value.value == (INT64_MAX if n > 0 else INT64_MIN)


DEFAULTS: dict[str, Any] = {"port": 22, "name": "x", "on": False, "yes": True}


@pytest.mark.parametrize(("args", "changed", "error"), [
    (["-on"], {"on": True}, None),
    (["--on", "false"], {"on": True}, None),  # a bool takes no next argument; "false" ends the flags
    (["--yes=False", "--port", "0b11"], {"yes": False, "port": 3}, None),
    (["--yes=nope"], {"yes": False}, 'invalid boolean value "nope" for -yes: parse error'),  # Set stored false
    (["--on=TRUE", "--yes=tRuE", "--port=1"], {"on": True, "yes": False},
     'invalid boolean value "tRuE" for -yes: parse error'),
    (["--port=1_0"], {"port": 10}, None),
    (["--port", "0x"], {"port": 0}, 'invalid value "0x" for flag -port: parse error'),
    (["--port=99999999999999999999"], {"port": INT64_MAX},
     'invalid value "99999999999999999999" for flag -port: value out of range'),
    (["--port", "-on"], {"port": 0}, 'invalid value "-on" for flag -port: parse error'),
    (["--name", "-on"], {"name": "-on"}, None),
    (["--name=a=b"], {"name": "a=b"}, None),
    (["-help"], {}, "flag: help requested"),
    (["--port=1", "--h"], {"port": 1}, "flag: help requested"),
    (["-name", "q\"\n"], {"name": "q\"\n"}, None),
    (["--port=\"\n"], {"port": 0}, 'invalid value "\\"\\n" for flag -port: parse error'),
])
def test_flag_set_parse(args: list[str], changed: dict[str, Any], error: str | None) -> None:
    assert parse_flags(args, DEFAULTS) == ({**DEFAULTS, **changed}, error)


@given(st.text(max_size=8))
def test_a_bool_flag_value_property(text: str) -> None:
    """``--on=<text>``: ParseBool's value and no error, or false (what ``Set`` stored) and Go's message."""
    values, error = parse_flags([f"--on={text}", "--port=5"], {**DEFAULTS, "on": True})
    if text in BOOLS:
        assert (values["on"], values["port"], error) == (BOOLS[text], 5, None)
    else:
        assert (values["on"], values["port"]) == (False, 22)
        assert error == f"invalid boolean value {go_quote(text)} for -on: parse error"


def test_go_quote_escapes_as_go() -> None:
    assert go_quote('a"b\\c\td\x01é\u2028') == '"a\\"b\\\\c\\td\\x01é\\u2028"'


def _started(plugins: dict[str, list[str]], *tasks: dict[str, Any]) -> Cluster:
    c = Cluster()
    c.submit(job("x", list(tasks), plugins=plugins))
    c.set_pg_phase("x", "Inqueue")
    return c


@pytest.mark.parametrize(("flags", "publish", "policy"), [
    (["--publish-not-ready-addresses=True", "--disable-network-policy=1"], True, False),
    (["--publish-not-ready-addresses=yes", "--disable-network-policy"], False, True),  # stops at the error
    (["--disable-network-policy=TRUE"], False, False),
    (["--disable-network-policy=tRUE"], False, True),
])
def test_svc_flags_are_gos_and_a_bad_one_does_not_fail_the_job(flags: list[str], publish: bool,
                                                              policy: bool) -> None:
    """The svc plugin's switches through ParseBool; a refused value is logged, not fatal: the Job
    gets its pods, its Service and (unless disabled) its NetworkPolicy."""
    c = _started({"svc": flags}, task("a", 2))
    svc = c.server.get("Service", "x", NS)
    assert svc["spec"].get("publishNotReadyAddresses", False) is publish
    assert [p["metadata"]["name"] for p in c.server.list("NetworkPolicy", NS)["items"]] == (["x"] if policy else [])
    assert sorted(c.pods("x")) == ["x-a-0", "x-a-1"]


def test_a_refused_inject_hosts_env_value_turns_it_off() -> None:
    """``--inject-hosts-env`` defaults to true; a value ParseBool refuses stores false (Go's
    ``boolValue.Set``), so the pods get no hosts env, as upstream's would."""
    on = _started({"svc": []}, task("a", 1))
    off = _started({"svc": ["--inject-hosts-env=on"]}, task("a", 1))

    def env_names(c: Cluster) -> set[str]:
        return {e["name"] for ct in c.pods("x")["x-a-0"]["spec"]["containers"] for e in ct.get("env") or []}

    assert "VC_A_HOSTS" in env_names(on) and "VC_A_HOSTS" not in env_names(off)


def test_an_octal_port_reaches_the_pods() -> None:
    """``--port=010`` is 8 for Go's ParseInt (a leading 0 is octal)."""
    c = _started({"pytorch": ["--port=010"]}, task("master", 1), task("worker", 1))
    ports = [p.get("containerPort") for ct in c.pods("x")["x-master-0"]["spec"]["containers"]
             for p in ct.get("ports") or []]
    assert ports == [8]
