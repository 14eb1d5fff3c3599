"""The package's layering contract (pyproject.toml, [tool.importlinter]) names every folder, and breaks on an
import that goes the wrong way; the transport (client/) knows nothing of requirements or exit statuses; the verdict and
outcome words are spelled once, in their enums."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

from wallet_conformance.reporting.verdicts import Outcome, Verdict
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.files import ROOT, SCHEMAS

PACKAGE = ROOT / "wallet_conformance"
LINT = Path(sys.executable).with_name("lint-imports")
TRANSPORT = PACKAGE / "client"
CONTRACT = "wallet_conformance.spec.contract"
EXIT_STATUS = "wallet_conformance.exit_status"


def layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return [name.strip() for layer in config["contracts"][0]["layers"] for name in layer.split("|")]


def test_every_folder_and_module_of_the_package_has_a_layer():
    """Each folder and top-level module of the package sits in one layer of the contract."""
    folders = [path for path in PACKAGE.iterdir() if (path / "__init__.py").exists()]
    modules = [path for path in PACKAGE.glob("*.py") if path.stem != "__init__"]
    parts = {f"wallet_conformance.{path.stem}" for path in [*folders, *modules]}
    assert parts == set(layers())


def test_an_import_the_wrong_way_breaks_the_contract(tmp_path):
    """A fact of spec/ importing the plugin (a lower layer importing a higher one) fails lint-imports."""
    copy = tmp_path / "wallet_conformance"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    command = [str(LINT), "--no-cache", "--no-logo"]
    kept = subprocess.run(command, cwd=tmp_path, env={"PYTHONPATH": str(tmp_path)}, capture_output=True, text=True)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    contract = copy / "spec" / "contract.py"
    contract.write_text(contract.read_text() + "\nfrom wallet_conformance.plugin import state  # noqa\n")
    broken = subprocess.run(command, cwd=tmp_path, env={"PYTHONPATH": str(tmp_path)}, capture_output=True, text=True)
    wrong_way = "wallet_conformance.spec.contract -> wallet_conformance.plugin"
    assert broken.returncode != 0 and wrong_way in broken.stdout, broken.stdout


def _requirement_id() -> re.Pattern[str]:
    """An id of one of the catalogue's families (AUTH-04, ERR-09...), known to the catalogue or not."""
    families = sorted({requirement.id.split("-")[0] for requirement in catalogue()})
    return re.compile(rf"\b(?:{'|'.join(families)})-\d{{2,}}\b")


def _names_requirements(value: Any, requirement_id: re.Pattern[str]) -> bool:
    """Whether a constant of spec/contract.py is a requirement id, or a collection of them (keys of a mapping)."""
    if isinstance(value, str):
        return requirement_id.fullmatch(value) is not None
    return (
        isinstance(value, tuple | frozenset | dict)
        and bool(value)
        and all(isinstance(item, str) and requirement_id.fullmatch(item) for item in value)
    )


def _docstrings(tree: ast.Module) -> set[int]:
    """The string constants of a module that are docstrings (of the module, a class or a function)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.add(id(first.value))
    return found


def transport_knows(folder: Path) -> list[str]:
    """Where the modules under `folder` name a requirement (a literal id in code, or a constant of spec/contract.py
    that holds ids, such as contract.ANSWERED) or import the exit statuses. Comments and docstrings may cite the
    document (why a transport exists); code may not act on it."""
    requirement_id = _requirement_id()
    named = {
        name
        for name in dir(contract)
        if name.isupper() and _names_requirements(getattr(contract, name), requirement_id)
    }
    found = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(folder.parent.parent).as_posix()
        docstrings = _docstrings(tree)
        modules = {CONTRACT}  # the names the module binds to spec/contract.py
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "wallet_conformance.spec":
                modules.update(alias.asname or alias.name for alias in node.names if alias.name == "contract")
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                found += [f"{where}:{node.lineno}: names {match}" for match in requirement_id.findall(node.value)]
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr in named
            ):
                found.append(f"{where}:{node.lineno}: names contract.{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module == CONTRACT:
                found += [
                    f"{where}:{node.lineno}: names contract.{alias.name}" for alias in node.names if alias.name in named
                ]
            elif _imports_exit_statuses(node):
                found.append(f"{where}:{node.lineno}: imports the exit statuses")
    return found


def _imports_exit_statuses(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name == EXIT_STATUS for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.module == EXIT_STATUS or (
            node.module == "wallet_conformance" and any(alias.name == "exit_status" for alias in node.names)
        )
    return False


def test_the_transport_names_no_requirement_and_no_exit_status():
    """No module of client/ names a requirement id in its code, literally or through spec/contract.py, nor imports the
    exit statuses: which requirement an answer or a silence breaks, and how a run ends, are the judge's and the
    plugin's."""
    assert transport_knows(TRANSPORT) == []


def test_the_transport_check_sees_an_id_a_contract_constant_and_an_exit_status(tmp_path):
    """The check finds a literal id in code (not in a docstring or a comment), a requirement constant of the contract
    and an import of the exit statuses."""
    folder = tmp_path / "wallet_conformance" / "client"
    folder.mkdir(parents=True)
    (folder / "knows.py").write_text(
        '"""Cites AUTH-08 in a docstring."""\n'
        "from wallet_conformance.exit_status import ExitStatus\n"
        "from wallet_conformance.spec import contract\n"
        "WALLET_LIST = 'END-14'  # and ERR-09 in a comment\n"
        "def stop():\n"
        "    return f'[{contract.ANSWERED}] breaks AUTH-04', contract.operations(), ExitStatus.CANNOT_RUN\n"
    )
    where = "wallet_conformance/client/knows.py"
    assert transport_knows(folder) == [
        f"{where}:2: imports the exit statuses",
        f"{where}:4: names END-14",
        f"{where}:6: names AUTH-04",
        f"{where}:6: names contract.ANSWERED",
    ]


WORDS = {member.value for member in (*Verdict, *Outcome)}
ENUMS = PACKAGE / "reporting" / "verdicts.py"
# String literals equal to a verdict or outcome word that name something else: (module, literal) -> what they name.
NOT_A_VERDICT = {
    ("reporting/conformance.py", "blocked"): "a test's field in conformance.json (whether the test blocked it)",
    ("reporting/gating.py", "conforms"): "the outcome's boolean field in conformance.json",
    ("reporting/merged.py", "blocked"): "a test's field in conformance.json, read back to merge reports",
    ("reporting/writers.py", "conforms"): "the word the reports show for Outcome.CONFORMS",
    ("scenarios/list_probes.py", "skip"): "a paging parameter the list probes send",
}


def verdict_literals() -> list[tuple[str, int, str]]:
    """Every string literal of the package, outside the enums, that spells a verdict or an outcome."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == ENUMS or "suite" in path.relative_to(PACKAGE).parts[:1]:
            continue
        module = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in WORDS:
                found.append((module, node.lineno, node.value))
    return found


def test_verdicts_and_outcomes_are_spelled_only_in_their_enums():
    """No module of the package spells a verdict or an outcome as a string literal: it names the enum's member
    (reporting/verdicts.py), so a renamed or added word is changed in one place."""
    spelled = [
        f"{module}:{line}: {word!r}" for module, line, word in verdict_literals() if (module, word) not in NOT_A_VERDICT
    ]
    assert not spelled, "use Verdict or Outcome (reporting/verdicts.py) instead of:\n" + "\n".join(spelled)
    still_there = {(module, word) for module, _, word in verdict_literals()}
    assert set(NOT_A_VERDICT) <= still_there, set(NOT_A_VERDICT) - still_there  # no stale exception


def test_the_report_schema_lists_the_enums_words():
    """conformance.json's schema allows exactly the enums' words, in their order, as verdicts and outcomes."""
    schema = json.loads((SCHEMAS / "conformance-report.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["verdict"]["enum"] == [verdict.value for verdict in Verdict]
    assert schema["$defs"]["counts"]["required"] == [verdict.value for verdict in Verdict]
    outcome = schema["properties"]["outcome"]["properties"]["verdict"]["enum"]
    assert outcome == [word.value for word in Outcome]


def _requirement_name(requirement: str) -> str:
    """A dependency's distribution name, as pyproject.toml writes it, normalised."""
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_every_package_the_suite_imports_is_declared():
    """Each package outside the standard library that the package imports is a dependency of pyproject.toml: an
    installation never works only because another package brought it along (h11 came with httpx's httpcore)."""
    declared = {
        _requirement_name(requirement)
        for requirement in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
            "dependencies"
        ]
    }
    distributions = metadata.packages_distributions()
    imported: dict[str, set[str]] = {}
    for path in (ROOT / "wallet_conformance").rglob("*.py"):
        if "suite" in path.relative_to(ROOT / "wallet_conformance").parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module and not node.level
                else []
            )
            for name in names:
                top = name.split(".")[0]
                if top != "wallet_conformance" and top not in sys.stdlib_module_names:
                    imported.setdefault(top, set()).add(path.relative_to(ROOT).as_posix())
    undeclared = {
        top: sorted(files)[:2]
        for top, files in imported.items()
        if not {_requirement_name(name) for name in distributions.get(top, [top])} & declared
    }
    assert not undeclared, undeclared
