"""The package's layering contract (pyproject.toml, [tool.importlinter]) names every folder, and breaks on an
import that goes the wrong way."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from wallet_conformance.spec.files import ROOT

PACKAGE = ROOT / "wallet_conformance"
LINT = Path(sys.executable).with_name("lint-imports")


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
