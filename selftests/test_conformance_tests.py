"""House rules of tests/: every test states in one line what it proves."""

from __future__ import annotations

import ast
import re

import pytest

from wallet_conformance.spec import contract
from wallet_conformance.spec.files import ROOT

MODULES = sorted((ROOT / "tests").rglob("test_*.py"))


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


# The suite's own code, outside the data files: tests/ and the package (the reference has its own such test).
PACKAGE_SOURCES = [path for path in (ROOT / "wallet_conformance").rglob("*.py") if "reference" not in path.parts]
SUITE_SOURCES = sorted([*(ROOT / "tests").rglob("*.py"), *PACKAGE_SOURCES])


LISTS = ast.Tuple | ast.List | ast.Set


@pytest.mark.parametrize("module", SUITE_SOURCES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_suite_reads_facts_not_copies(module):
    """No prefix, multi-word message, numeric limit, nor list or dict keyed by operations is written literally."""
    source = module.read_text(encoding="utf-8")
    prefixes = [contract.prefix(name) for name in (*contract.PREFIXES, "livePublicKey", "testPublicKey")]
    messages = [message for message in map(contract.success_message, contract.operations()) if message]
    for text in prefixes + [message for message in messages if " " in message]:
        assert f'"{text}' not in source, f"{module.name} writes {text!r}: read it from the contract"
    low, high = contract.expire_in_bounds()
    limits = {contract.minimum_amount("transfer"), contract.minimum_amount("bankTransfer"), low, high}
    for number in limits if "tests" in module.parts else ():  # the package has unrelated constants (600)
        assert not re.search(rf"(?<![\w.]){number}(?![\w.])", source), f"{module.name} writes the limit {number}"
    # spec/contract.py declares the one table of operations no file of the contract holds: which requirement a
    # documented request of each operation exercises (ACCEPTANCE).
    operations = set(contract.operations()) if module != ROOT / "wallet_conformance" / "spec" / "contract.py" else set()
    for node in ast.walk(ast.parse(source)):
        items = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(node, LISTS) else []
        named = [item.value for item in items if isinstance(item, ast.Constant) and item.value in operations]
        assert len(named) < 2, (
            f"{module.name}:{node.lineno} lists operations {named}: read the list from "
            f"the catalogue (the requirement's `operations`) or openapi.yaml"
        )
