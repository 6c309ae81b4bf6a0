"""Reading the files a command is given: manifests (files, folders, ``-`` for stdin) and texts.

Everything is read and structurally checked before the caller touches a cluster,
so one bad file stops the command with nothing applied. Each problem is a
``CliError`` naming the file at fault (``<stdin>`` for ``-``), never the
folder that holds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from volcano.api.manifest import ManifestError, load_manifests
from volcano.cli.args import CliError

__all__ = ["MANIFEST_SUFFIXES", "STDIN", "ManifestFile", "load_manifest_args", "read_text"]

STDIN = "<stdin>"
"""How errors name the standard input (the argument ``-``)."""

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
"""Files of a folder that are manifests, as ``kubectl apply -f FOLDER`` takes them."""


@dataclass(frozen=True)
class ManifestFile:
    """The objects of one file (or of stdin), in document order."""

    name: str
    objects: list[dict[str, Any]]


def _decode(data: bytes, name: str) -> str:
    if b"\0" in data:
        raise CliError(name, "binary data, not a YAML or JSON text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CliError(name, f"not UTF-8 text (invalid byte at offset {err.start}): "
                             "expected a YAML or JSON file") from None


def read_text(path: str) -> str:
    """The UTF-8 text of the file ``path``; ``CliError`` when it is missing, a folder or binary."""
    p = Path(path)
    if p.is_dir():
        raise CliError(path, "is a directory, expected a file")
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise CliError(path, "no such file or directory") from None
    except OSError as err:
        raise CliError(path, f"cannot read: {err.strerror or err}") from None
    return _decode(data, path)


def _as_text(text: str) -> str:
    """``text`` with a newline, so that the loader never takes a one-line text for a path."""
    return text if "\n" in text else text + "\n"


def _objects(source: str | Path, name: str, *, may_be_empty: bool = False) -> list[dict[str, Any]]:
    """The validated objects of ``source`` (text or a path), errors named after ``name``."""
    try:
        objects = load_manifests(source)
    except ManifestError as err:
        where = "" if err.index is None else f"document {err.index} (0-based): "
        raise CliError(name, where + err.problem) from None
    if not objects and not may_be_empty:
        raise CliError(name, "no Kubernetes object in it (empty, or only comments)")
    return objects


def _load_file(path: str, *, may_be_empty: bool = False) -> ManifestFile:
    text = read_text(path)
    if Path(path).suffix == ".json":  # JSON is not always YAML (tabs): the loader reads it as JSON
        return ManifestFile(path, _objects(Path(path), path, may_be_empty=may_be_empty))
    return ManifestFile(path, _objects(_as_text(text), path, may_be_empty=may_be_empty))


def _load_folder(path: str) -> list[ManifestFile]:
    files = sorted(p for p in Path(path).iterdir() if p.is_file() and p.suffix in MANIFEST_SUFFIXES)
    patterns = ", ".join("*" + s for s in MANIFEST_SUFFIXES)
    if not files:
        raise CliError(path, f"empty directory: no {patterns} file in it")
    loaded = [_load_file(str(f), may_be_empty=True) for f in files]  # as kubectl, skip an empty file here
    if not any(f.objects for f in loaded):
        raise CliError(path, f"no Kubernetes object in its {patterns} files (all empty, or only comments)")
    return [f for f in loaded if f.objects]


def _read_stdin(stdin: TextIO) -> str:
    buffer = getattr(stdin, "buffer", None)
    if buffer is not None:
        return _decode(buffer.read(), STDIN)
    try:
        return stdin.read()
    except UnicodeDecodeError:
        raise CliError(STDIN, "not UTF-8 text: expected YAML or JSON") from None


def load_manifest_args(args: Sequence[str], stdin: TextIO) -> list[ManifestFile]:
    """Every object named by ``args`` (files, folders, ``-``), validated, one entry per file.

    A folder contributes its ``*.yaml``, ``*.yml`` and ``*.json`` files, sorted by
    name (not recursive), skipping empty ones as kubectl does. An empty file named
    as an argument, empty stdin, a folder without objects or a second ``-`` is an error.
    """
    out: list[ManifestFile] = []
    stdin_used = False
    for arg in args:
        if arg == "-":
            if stdin_used:
                raise CliError(STDIN, "'-' given more than once: the standard input can be read only once")
            stdin_used = True
            out.append(ManifestFile(STDIN, _objects(_as_text(_read_stdin(stdin)), STDIN)))
        elif Path(arg).is_dir():
            out.extend(_load_folder(arg))
        else:
            out.append(_load_file(arg))
    return out
