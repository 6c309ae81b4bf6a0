"""pytest plugin of the mutation runs (``scripts/mutation.py`` loads it with ``-p``): clears the small
result caches of the mutated code before every test.

mutmut records which tests reach which function in one pass over the suite, then runs only those
tests per mutant. A function behind a ``functools.lru_cache`` is reached only by the first test that
asks for each value; later tests are served from the cache, are not recorded as reaching it, and are
never run against its mutants (a mutant of the subdomain message survived though a case asserts the
message). Clearing these caches before each test records every test that computes a value and makes
every run compute afresh. Only cheap caches are listed: the schema loaders' caches stay warm.
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


def clear_caches() -> int:
    """Clear every listed cache of an imported module; returns how many were cleared."""
    cleared = 0
    for module_name, names in CACHED:
        module = sys.modules.get(module_name)
        for name in names:
            clear = getattr(getattr(module, name, None), "cache_clear", None)
            if clear is not None:
                clear()
                cleared += 1
    return cleared


def pytest_runtest_setup(item: Any) -> None:
    """pytest hook: before each test, clear the caches."""
    clear_caches()
