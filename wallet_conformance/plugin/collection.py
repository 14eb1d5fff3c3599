"""Collection: every conformance test names its requirements (checked against the catalogue), tests that share
what the account or an operation holds share an xdist group, and --collect-only writes collection.json."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from wallet_conformance.plugin import allure_labels
from wallet_conformance.plugin.run import is_worker, state
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.spec.files import CATALOGUE, TESTS

TESTS_INI = "wallet_conformance_tests"
COLLECTION_FILE = "collection.json"
ACCOUNT_WIDE_GROUP = "account-wide"
OPERATION_GROUP = "operation-"
SCHEMATHESIS_CASES = "schemathesis_cases"  # the marker of tests that draw their requests with Schemathesis
# Under --dist loadgroup xdist appends `@<group>` to the node id of a grouped test: the groups added here, and
# those a test module declares itself (`pytestmark = pytest.mark.xdist_group(...)`, tests sharing a fixture).
_GROUP_SUFFIX = re.compile(r"@[\w.-]+$")
TESTS_DIR = pytest.StashKey[Path]()
IS_CONFORMANCE = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(TESTS_INI, "folder of the conformance tests, relative to the rootdir (default: tests)", default="")


def tests_dir(config: pytest.Config) -> Path:
    """The folder of conformance tests: ini `wallet_conformance_tests`; else tests/ of a checkout of the suite that
    pytest runs in (its rootdir holds the catalogue and tests/), whichever copy of the package was imported; else
    the tests the package ships."""
    found = config.stash.get(TESTS_DIR, None)
    if found is None:
        configured_dir = config.getini(TESTS_INI)
        checkout = config.rootpath / TESTS.name
        if configured_dir:
            found = (config.rootpath / configured_dir).resolve()
        elif (config.rootpath / CATALOGUE.name).is_file() and (checkout / "conftest.py").is_file():
            found = checkout.resolve()
        else:
            found = TESTS
        config.stash[TESTS_DIR] = found
    return found


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """A path of the suite's tests written from the suite's root (`tests/test_money.py::test_x`, as node ids, the
    reports and the command that reproduces a run write it) chooses those tests from any working folder: it is read
    from the suite's root where the working folder holds no such path, and the suite's folder given beside it (the
    installed command gives it first) is left out, so that `wallet-conformance tests/test_money.py` runs that module
    only."""
    suite, here = tests_dir(config), config.invocation_params.dir
    found: list[tuple[str, Path]] = []
    for arg in config.args:
        name, separator, node = arg.partition("::")
        path = (here / name).resolve()
        from_root = (config.rootpath / name).resolve()
        if not path.exists() and from_root.exists() and from_root.is_relative_to(suite):
            path, arg = from_root, str(from_root) + separator + node
        found.append((arg, path))
    if any(path != suite and path.is_relative_to(suite) for _, path in found):
        found = [(arg, path) for arg, path in found if path != suite or "::" in arg]
    config.args[:] = [arg for arg, _ in found]


def runs_conformance(config: pytest.Config) -> bool:
    """Whether this run collects from tests/ (the self-tests do not need a target)."""
    conformance = tests_dir(config)
    for arg in config.args:
        path = (Path(config.invocation_params.dir) / arg.split("::")[0]).resolve()
        if path.is_relative_to(conformance) or conformance.is_relative_to(path):
            return True
    return False


def is_conformance_item(item: pytest.Item) -> bool:
    """Whether a test is one of the conformance suite's (asked several times per test: kept on the item)."""
    known = item.stash.get(IS_CONFORMANCE, None)
    if known is None:
        known = item.stash[IS_CONFORMANCE] = item.path.is_relative_to(tests_dir(item.config))
    return known


def requirement_ids(item: pytest.Item) -> tuple[str, ...]:
    ids: list[str] = []
    for marker in item.iter_markers("requirement"):
        ids.extend(marker.args)
    return tuple(dict.fromkeys(ids))


def plain_nodeid(nodeid: str) -> str:
    """A node id without the group suffix xdist gives grouped tests: a test has one name in the reports (and
    baselines), serial or parallel."""
    return _GROUP_SUFFIX.sub("", nodeid)


def _operation_param(item: pytest.Item) -> str | None:
    """The operationId a test is parametrized with, if any."""
    callspec = getattr(item, "callspec", None)
    value = callspec.params.get("operation_id") if callspec is not None else None
    return value if isinstance(value, str) else None


# First: xdist's worker turns the xdist_group markers added here into node ids in its own hook of this name.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    known = catalogue()
    chosen = state(config).settings.chosen  # --requirement, --part, --level: checked when the options were read
    on_this_machine = state(config).settings.on_this_machine
    problems: list[str] = []
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        if not is_conformance_item(item):
            keep.append(item)
            continue
        ids = requirement_ids(item)
        if not ids:
            problems.append(f'{item.nodeid}: names no requirement (add @pytest.mark.requirement("ID"))')
        problems.extend(
            f"{item.nodeid}: unknown requirement {rid!r} (not in requirements.yaml)" for rid in ids if rid not in known
        )
        item.user_properties.append(("requirements", ids))  # for pytest's own --junitxml; the reports read markers
        allure_labels.label(item, [known[rid] for rid in ids if rid in known], known.sections)
        if item.get_closest_marker("account_wide") or (on_this_machine and item.get_closest_marker(SCHEMATHESIS_CASES)):
            # Against a target on this machine the run is bound by the processor, and each process that draws
            # Schemathesis cases pays for its import and first draws (about 0.6 s of CPU): those tests share the
            # account-wide worker (createWallet's may make primaries). Against a deployed target round trips bound
            # the run, and they spread by operation.
            item.add_marker(pytest.mark.xdist_group(ACCOUNT_WIDE_GROUP))
        elif (operation := _operation_param(item)) is not None:
            # Under xdist the tests of one operation share a worker, so its session samples (a success, the
            # requests without a key) are made once, not once per worker: fewer requests to a remote target.
            item.add_marker(pytest.mark.xdist_group(f"{OPERATION_GROUP}{operation}"))
        (keep if chosen is None or set(ids) & chosen else drop).append(item)
    if len(problems) == 1:
        raise pytest.UsageError(problems[0])
    if problems:
        raise pytest.UsageError("requirement markers:\n  " + "\n  ".join(problems))
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    if config.option.collectonly and not is_worker(config):
        write_collection(items, state(config).settings.report_dir)


def pytest_collection_finish(session: pytest.Session) -> None:
    """An xdist worker: the requirements its tests declare (every worker collects the same tests), for the controller,
    which collects none, to tell a requirement not selected from one not reached (plugin/recording.py)."""
    path = state(session.config).selection_file
    if is_worker(session.config) and path is not None:
        worker = session.config.workerinput["workerid"]  # type: ignore[attr-defined]  # xdist sets it on a worker
        temporary = path.with_name(f"{path.name}.{worker}")
        temporary.write_text(json.dumps(sorted(declared(session.items))), encoding="utf-8")
        temporary.replace(path)


def declared(items: list[pytest.Item]) -> set[str]:
    """The requirements a run's conformance tests declare."""
    return {rid for item in items if is_conformance_item(item) for rid in requirement_ids(item)}


def write_collection(items: list[pytest.Item], directory: Path) -> Path:
    """With --collect-only: collection.json maps each requirement to the tests that name it."""
    covering: dict[str, list[str]] = {}
    for item in filter(is_conformance_item, items):
        for requirement_id in requirement_ids(item):
            covering.setdefault(requirement_id, []).append(item.nodeid)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / COLLECTION_FILE
    path.write_text(json.dumps(dict(sorted(covering.items())), indent=2) + "\n", encoding="utf-8")
    return path
