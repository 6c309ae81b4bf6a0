"""pytest plugin of the mutation runs (``scripts/mutation.py`` loads it with ``-p``): clears the small
result caches of the mutated code before every test.

mutmut records which tests reach which function in one pass over the suite, then runs only those
tests per mutant. A function behind a ``functools.lru_cache`` is reached only by the first test that
asks for each value; later tests are served from the cache, are not recorded as reaching it, and are
never run against its mutants (a mutant of the subdomain message survived though a case asserts the
message). The decoders' memos of accepted values (plain dicts) hide a function the same way (a
mutant of the base64 padding check survived a case storing padded values). Clearing these caches and
memos before each test records every test that computes a value and makes every run compute afresh.
Only cheap caches are listed: the schema loaders' caches stay warm.
"""

from __future__ import annotations

import sys
from typing import Any

CACHED = (
    ("volcano.apiserver.fieldpath", ("_element_rank", "_encode_element", "_decode_element")),
    ("volcano.apiserver.validation.names", ("_dns1123_label_errors", "_dns1123_subdomain_errors",
                                            "_qualified_name_errors", "_label_value_errors")),
    ("volcano.apiserver.validation.quantity", ("quantity_error",)),
    ("volcano.apiserver.validation.openapi", ("_rfc3339_text",)),
)
"""(module, cached functions) whose caches are cleared before each test."""

MEMOS = (
    ("volcano.apiserver.validation", ("_VALID_POD_SPECS", "_PARTS", "_LEAF_PARTS")),
    ("volcano.apiserver.validation.crd", ("_ACCEPTED",)),
    ("volcano.admission.decode", ("_ACCEPTED",)),
)
"""(module, memo dicts) emptied before each test."""


def clear_caches() -> int:
    """Clear every listed cache and memo of an imported module; returns how many were cleared."""
    cleared = 0
    for module_name, names in (*CACHED, *MEMOS):
        module = sys.modules.get(module_name)
        for name in names:
            target = getattr(module, name, None)
            clear = getattr(target, "cache_clear", None) or (target.clear if isinstance(target, dict) else None)
            if clear is not None:
                clear()
                cleared += 1
    return cleared


def pytest_runtest_setup(item: Any) -> None:
    """pytest hook: before each test, clear the caches."""
    clear_caches()
