"""The suite as its users install it: a wheel built from the checkout, installed into a fresh virtual environment,
runs from any folder (reports there, nothing in the checkout), and the CI recipes of docs/ci.md run as written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reporting import gating
from wallet_conformance.reporting.conformance import FORMAT, judged_against
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.files import ROOT

RUN_TIMEOUT = 300
BUILD_LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "reports", "build", "*.egg-info", "__pycache__", ".*cache*")
INSTALL_LINE = re.compile(r"^pip install .*wallet-conformance.*$")
# The installed command's first run is the hand-written tests (what it proves, the command and its folders, does
# not depend on the generated ones, which test_suite runs whole); the recipes' runs, gated against its report, the
# service's tests (what they prove is the recipes' lines, options, waivers and gate).
HAND_WRITTEN = "--ignore-glob=*/tests/generated"
RECIPE_TESTS = f"{HAND_WRITTEN} -k test_service"
# Under xdist the module's tests share one worker, so the wheel is built and installed once; together they take
# minutes, so they start first.
pytestmark = [pytest.mark.xdist_group("install"), pytest.mark.long]


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout (without its environment, reports and caches) and the suite's wheel built from it."""
    base = tmp_path_factory.mktemp("install")
    copy = base / "source"
    shutil.copytree(ROOT, copy, symlinks=True, ignore=BUILD_LEFT_OUT)
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(base / "wheel"),
            str(copy),
        ],
        base,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return copy


def _environment_with(folder: Path, *wheels: Path) -> Path:
    """A fresh virtual environment with these wheels installed; the suite's dependencies are read from the checkout's
    environment (a .pth file), so nothing is downloaded."""
    venv = folder / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], folder).check_returncode()
    python = venv / "bin" / "python"
    site = Path(
        _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], folder).stdout.strip()
    )
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", *map(str, wheels)], folder
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return venv


def _suite_wheel(source: Path) -> Path:
    return next((source.parent / "wheel").glob("*.whl"))


@pytest.fixture(scope="module")
def installed(source: Path) -> Path:
    """A fresh virtual environment outside the checkout with the suite's wheel installed."""
    return _environment_with(source.parent, _suite_wheel(source))


def _environment(venv: Path, **more: str) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("WALLET_API_", "PYTEST_", "PYTHONPATH", "VIRTUAL_ENV"))
    }
    return {**env, "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", **more}


def _checkout_state() -> str:
    return _run(["git", "status", "--porcelain", "--untracked-files=all"], ROOT).stdout


@pytest.fixture(scope="module")
def first_run(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, str]:
    """`wallet-conformance` run from an empty folder against the bundled reference, with its defaults (xdist workers):
    the folder, the checkout's state before and after, and what the run printed."""
    folder = tmp_path_factory.mktemp("anywhere")
    before = _checkout_state()
    run = _run(["wallet-conformance", "-q", "--seed", "7", HAND_WRITTEN], folder, _environment(installed))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    return folder, before, _checkout_state(), run.stdout


def test_the_installed_command_runs_the_suite_from_any_folder(installed, first_run, tmp_path):
    """`wallet-conformance` from an empty folder: exit 0 against the bundled reference, on xdist workers without
    being asked, reports there, nothing written into the checkout; `--version` shows the document's hash."""
    folder, before, after, printed = first_run
    assert "bringing up nodes" in printed, printed[-2000:]
    report = json.loads((folder / "reports" / "conformance.json").read_text())
    # The hand-written tests hold every MUST requirement, yet they are a selection of the suite: never "the whole".
    assert report["outcome"]["verdict"] == "conforms-on-the-selection" and report["target"]["embedded_reference"]
    musts = sum(requirement.level == "MUST" for requirement in catalogue())
    assert report["outcome"]["selection"] == {"by": [HAND_WRITTEN], "must_selected": musts, "must_in_catalogue": musts}
    assert after == before
    # reports/ holds the reports and nothing else (no Allure results unless --alluredir, no cache, no lock)
    assert sorted(path.name for path in (folder / "reports").iterdir()) == [
        "conformance.html",
        "conformance.json",
        "conformance.md",
        "judgement.jsonl",
        "junit.xml",
    ]
    assert (folder / ".wallet-conformance" / "pytest_cache").is_dir()
    shown = _run(["wallet-conformance", "--version"], tmp_path, _environment(installed))
    assert shown.returncode == 0 and judged_against()["wallet-service-api.md"] in shown.stdout, shown.stdout
    listed = _run(
        ["wallet-conformance", "--list-requirements", "--part", "limits", "--level", "MUST"],
        tmp_path,
        _environment(installed),
    ).stdout.splitlines()
    assert listed and all(line.startswith("LIM-") and " MUST " in line for line in listed), listed
    where = "import wallet_conformance; print(wallet_conformance.__file__)"
    located = _run([str(installed / "bin" / "python"), "-c", where], tmp_path, _environment(installed)).stdout
    assert str(installed) in located and not located.startswith(str(ROOT))


def _shell_lines(recipe: dict) -> list[tuple[str, dict[str, str]]]:
    """The shell lines of a CI recipe (a GitHub Actions job's `run` steps, a GitLab job's `script`), each with the
    environment the recipe gives it."""
    lines: list[tuple[str, dict[str, str]]] = []
    for job in recipe.get("jobs", {}).values():
        for step in job.get("steps", []):
            if "run" in step:
                lines.append((step["run"], {name: str(value) for name, value in step.get("env", {}).items()}))
    for name, job in recipe.items():
        if name != "jobs" and isinstance(job, dict) and "script" in job:
            variables = {key: str(value) for key, value in job.get("variables", {}).items()}
            lines.extend((line, variables) for line in job["script"])
    return lines


RECIPES = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "ci.md").read_text(encoding="utf-8"), re.S)
# A shell line two recipes share runs once: (line, its environment) -> the folder it ran in and how it ended.
RAN: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[Path, subprocess.CompletedProcess[str]]] = {}


@pytest.mark.parametrize("recipe", RECIPES, ids=["github-actions", "gitlab-ci"])
def test_a_ci_recipe_runs_as_written(recipe, installed, first_run, tmp_path):
    """The recipe's shell lines, run in an implementer's repository with a baseline and a waiver file, pass the gate
    against the bundled reference (its URL and key in place of staging's, the built wheel in place of the tag); a line
    another recipe ran as it is, with the same environment, is not run twice."""
    lines = _shell_lines(yaml.safe_load(recipe))
    assert any(INSTALL_LINE.match(line) for line, _ in lines) and len(lines) == 2, lines
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "waivers.yaml").write_text(
        "- id: SVC-12\n  reason: wording fix in 2.4\n  owner: payments\n  expires: 2999-12-31\n"
    )
    key = "sk-ci-recipe"
    ran_in = tmp_path
    with ReferenceServer(secret_key=key, settle_delay=0.05) as reference:
        # The reference's URL and key in place of staging's; it settles in 0.05 s, so balances need watching a few
        # of those after a refused transfer, not the default window meant for a deployed target.
        staging = {
            "WALLET_API_BASE_URL": reference.base_url,
            "WALLET_API_SECRET_KEY": key,
            "WALLET_API_FUNDING_URL": reference.funding_url,
            "WALLET_API_QUIET_WINDOW": "0.15",
            "PYTEST_ADDOPTS": RECIPE_TESTS,
        }
        shutil.copy(first_run[0] / "reports" / "conformance.json", tmp_path / "ci" / "conformance-baseline.json")
        for line, env in lines:
            if INSTALL_LINE.match(line):
                continue  # the suite is installed already, from the wheel built from this checkout
            given = {name: value for name, value in env.items() if name not in staging}
            if (line, tuple(sorted(given.items()))) not in RAN:
                done = _run(["bash", "-c", line], tmp_path, _environment(installed, **{**given, **staging}))
                RAN[line, tuple(sorted(given.items()))] = (tmp_path, done)
            ran_in, done = RAN[line, tuple(sorted(given.items()))]
            assert done.returncode == 0, line + "\n" + done.stdout[-3000:] + done.stderr[-2000:]
    assert json.loads((ran_in / "reports" / "conformance.json").read_text())["outcome"]["gate"]["baseline"]


# pytest-base-url, fetched by scripts/setup: a dependency of pytest-playwright and pytest-selenium, installed where UI
# tests run, that declares --base-url too.
BASE_URL_WHEELS = sorted((ROOT / ".venv" / "wheels").glob("pytest_base_url-*.whl"))
ONE_REQUIREMENT = ("-q", "-p", "no:randomly", "--seed", "7", "--requirement", "SVC-12")


@pytest.fixture(scope="module")
def beside_pytest_base_url(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A throwaway environment with the suite's wheel and pytest-base-url installed side by side."""
    assert BASE_URL_WHEELS, "scripts/setup fetches pytest-base-url's wheel into .venv/wheels"
    return _environment_with(tmp_path_factory.mktemp("beside"), _suite_wheel(source), BASE_URL_WHEELS[-1])


@pytest.mark.parametrize("plugin", ["loaded", "disabled"])
def test_the_command_runs_beside_pytest_base_url(beside_pytest_base_url, tmp_path, plugin):
    """Where pytest-base-url is installed, `wallet-conformance` runs as it does without it: against the bundled
    reference, and against a target given by --base-url (then pytest-base-url's option), with it loaded or not."""
    env = _environment(beside_pytest_base_url)
    disable = ["-p", "no:base_url"] if plugin == "disabled" else []
    embedded = _run(["wallet-conformance", *ONE_REQUIREMENT, *disable], tmp_path, env)
    assert embedded.returncode == 0 and "The target conforms ON THE SELECTION" in embedded.stdout, (
        embedded.stdout + embedded.stderr
    )
    options = _run(["wallet-conformance", "--help-pytest", *disable], tmp_path, env).stdout
    assert ("--verify-base-url" in options) == (plugin == "loaded"), options  # pytest-base-url's own option
    with ReferenceServer(secret_key="sk-beside-base-url", settle_delay=0.05) as reference:
        given = _run(
            [
                "wallet-conformance",
                *ONE_REQUIREMENT,
                *disable,
                "--base-url",
                reference.base_url,
                "--secret-key",
                "sk-beside-base-url",
                "--funding-url",
                reference.funding_url,
            ],
            tmp_path,
            env,
        )
    assert given.returncode == 0, given.stdout + given.stderr
    report = json.loads((tmp_path / "reports" / "conformance.json").read_text())
    assert report["target"]["base_url"] == reference.base_url
    assert report["outcome"]["verdict"] == "conforms-on-the-selection"


@pytest.mark.parametrize("how", ["--base-url", "pytest-base-url's ini", "without pytest-base-url"])
def test_plain_pytest_takes_the_options_with_spaces(beside_pytest_base_url, source, tmp_path, how):
    """`pytest --base-url URL --secret-key KEY --report-dir reports` from a checkout, `reports` an existing folder and
    the values after spaces, conforms against a started reference: pytest knows the suite's options before it reads
    the command line (the entry point), with pytest-base-url's --base-url or its ini value, or without it; the
    installed package runs the checkout's tests."""
    checkout = tmp_path / "checkout"
    shutil.copytree(source, checkout, symlinks=True)
    (checkout / "reports").mkdir()
    python = str(beside_pytest_base_url / "bin" / "python")
    with ReferenceServer(secret_key="sk-plain-pytest", settle_delay=0.05) as reference:
        target = {
            "--base-url": ["--base-url", reference.base_url],
            "pytest-base-url's ini": ["-o", f"base_url={reference.base_url}"],
            "without pytest-base-url": ["-p", "no:base_url", "--base-url", reference.base_url],
        }[how]
        # -P: the installed suite is imported, not the checkout's package from the working folder
        done = _run(
            [
                python,
                "-P",
                "-m",
                "pytest",
                *target,
                "--secret-key",
                "sk-plain-pytest",
                "--report-dir",
                "reports",
                "--funding-url",
                reference.funding_url,
                *ONE_REQUIREMENT,
            ],
            checkout,
            _environment(beside_pytest_base_url),
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    report = json.loads((checkout / "reports" / "conformance.json").read_text())
    assert report["target"]["base_url"] == reference.base_url
    assert report["outcome"]["verdict"] == "conforms-on-the-selection"


def test_the_installed_command_shows_short_test_ids(installed, tmp_path):
    """Installed in site-packages, the command's progress lines and failure summary name tests from the suite's folder
    (`tests/test_service.py::...`), not by a path from the working folder into site-packages."""
    done = _run(
        [
            "wallet-conformance",
            "-n",
            "0",
            "-p",
            "no:randomly",
            "--requirement",
            "SVC-12",
            "--reference-fault",
            "wrong-close-message",
        ],
        tmp_path,
        _environment(installed),
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert any(line.startswith("tests/test_service.py ") for line in lines), done.stdout
    assert any(line.startswith("FAILED tests/test_service.py::") for line in lines), done.stdout
    assert not any(line.startswith(("../", "FAILED ../")) for line in lines), done.stdout
    assert (tmp_path / "reports" / "conformance.json").exists()  # the reports still go to the working folder


FIRST_BASELINE = re.search(r"## The first baseline.*?```sh\n(.*?)```", (ROOT / "docs" / "ci.md").read_text(), re.S)


def test_the_first_baseline_is_made_as_written(installed, tmp_path):
    """docs/ci.md's commands for the first baseline, run in an implementer's repository against the bundled reference
    (its URL, key and funding hook in staging's place), leave a committed baseline the gate accepts."""
    assert FIRST_BASELINE is not None
    script = FIRST_BASELINE.group(1)
    env = _environment(
        installed,
        PYTEST_ADDOPTS=RECIPE_TESTS,
        GIT_AUTHOR_NAME="qa",
        GIT_AUTHOR_EMAIL="qa@example.com",
        GIT_COMMITTER_NAME="qa",
        GIT_COMMITTER_EMAIL="qa@example.com",
    )
    _run(["git", "init", "-q"], tmp_path, env).check_returncode()
    with ReferenceServer(secret_key="sk-first-baseline", settle_delay=0.05) as reference:
        script = script.replace("https://staging.example.com/v1", reference.base_url).replace(
            "https://staging.example.com/sandbox/fund", reference.funding_url
        )
        done = _run(["bash", "-ec", script], tmp_path, {**env, "WALLET_API_SECRET_KEY": "sk-first-baseline"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    baseline = tmp_path / "ci" / "conformance-baseline.json"
    committed = _run(["git", "ls-files", "ci/conformance-baseline.json"], tmp_path, env).stdout.strip()
    assert committed == "ci/conformance-baseline.json"
    gating.load_baseline(baseline, judged_against()["requirements.yaml"], FORMAT)  # the gate takes it
