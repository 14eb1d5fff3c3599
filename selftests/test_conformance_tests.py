"""House rules of tests/: every test states in one line what it proves."""

from __future__ import annotations

import ast

import pytest

from wallet_conformance.files import ROOT

MODULES = sorted((ROOT / "tests").glob("test_*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda path: path.name)
def test_every_test_has_a_one_line_docstring(module):
    """Each test function of a conformance module has a docstring of one line."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    tests = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    assert tests, f"{module.name} holds no test"
    missing = [node.name for node in tests if not ast.get_docstring(node)]
    long = [node.name for node in tests if ast.get_docstring(node) and "\n" in ast.get_docstring(node).strip()]
    assert not missing, f"{module.name}: tests without a docstring: {missing}"
    assert not long, f"{module.name}: docstrings of more than one line: {long}"
