"""No function on the continue_workflow path takes more than five parameters (issue 31).

The path is the modules a continue_workflow call goes through from the MCP tool to the store's
journal, listed in harness/call_path.py (PATH_MODULES; bench/call_path.py measures the same path as it
runs). Every function and method defined in them is walked, nested ones too. The rule: every
parameter a caller can pass counts (positional, keyword-only, *args, **kwargs), except a method's
`self` or `cls`; the bare `*` that starts keyword-only parameters is no parameter. More than
MAX_PARAMETERS fails: group them into a small frozen dataclass named for what they are.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from harness.call_path import MAX_PARAMETERS, PATH_MODULES, defined_parameters


def source_of(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, f"{module} is on the path but does not exist"
    return Path(spec.origin)


def too_many(source: str, where: str) -> list[str]:
    """Each function defined in `source` that takes more than MAX_PARAMETERS, with where it is."""
    return [
        f"{where}:{node.lineno} {node.name} takes {defined_parameters(node)}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and defined_parameters(node) > MAX_PARAMETERS
    ]


@pytest.mark.parametrize("module", PATH_MODULES)
def test_no_function_on_the_path_takes_more_than_five_parameters(module: str) -> None:
    assert too_many(source_of(module).read_text(encoding="utf-8"), module) == []


def test_the_rule_counts_what_a_caller_passes() -> None:
    def count(source: str) -> int:
        function = ast.parse(source).body[0]
        assert isinstance(function, ast.FunctionDef)
        return defined_parameters(function)

    assert count("def f(self, a, b, *, c, d): pass") == 4  # self and the bare * are not parameters
    assert count("def f(cls, a, /, b, *rest, c, **more): pass") == 5
    assert count("def f(a, b, c, d, e, f): pass") == 6
    nested = "class A:\n    def m(self, a, b, c, d, e, f): pass\n"
    assert too_many(nested, "here") == ["here:2 m takes 6"]  # methods and nested functions are walked
