"""Fixtures of the self-tests: a reference server on a free loopback port, reset before each test; pytester."""

from __future__ import annotations

import importlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore  # noqa: F401 (see below)
import httpx
import pytest

from wallet_conformance.reference import Fault, ReferenceServer
from wallet_conformance.reporting.mutation import write_matrix
from wallet_conformance.spec.files import ROOT

# pytester runs the suite inside the self-tests' process; only the self-tests load it (this conftest is an initial
# one whenever they run, by `./selftest` or `pytest selftests/...`), never a conformance run.
pytest_plugins = ["pytester"]

# httpcore is imported here, before any in-process run of the suite: pytester drops the modules a run imported,
# while httpx keeps the table it maps httpcore's exceptions through (built once, on first use). Imported first
# inside a run, httpcore would come back as a second copy whose timeouts that table no longer recognises.
# The parts of multiprocessing that start the proxy's judging process likewise: its queue, shared values and locks are
# pickled by class, which must be the one their module holds, and the forkserver and the resource tracker are one
# per process (a second copy starts a second tracker, which then cannot unregister the first one's semaphores).
for _part in (
    "forkserver",
    "heap",
    "popen_fork",
    "popen_forkserver",
    "queues",
    "resource_tracker",
    "sharedctypes",
    "spawn",
    "synchronize",
):
    importlib.import_module(f"multiprocessing.{_part}")
# And anyio's asyncio backend, which anyio imports on first use (Starlette's, and httpx's async client for the
# reference's webhook deliveries): the suite's runs leave anyio's pytest plugin out (-p no:anyio), which imported it at
# start. Imported first inside a run, in the reference's thread, it came back as a second copy in the next run, whose
# deliveries then failed and left their connections open.
importlib.import_module("anyio._backends._asyncio")
REPORTS = ROOT / "reports"

# The suite's runs inside the self-tests (in this process or started from it) keep to one process unless a self-test
# gives -n: against the bundled reference a run that gives none is on xdist's `-n auto` (plugin/session.py), which
# xdist reads from here (in one process the reference serves from a thread the self-tests can patch, and a run keeps
# one process's order). The self-tests of that default remove it.
os.environ.setdefault("PYTEST_XDIST_AUTO_NUM_WORKERS", "0")
MATRIX_ROWS = REPORTS / "mutation"  # one JSON row per fault, written by test_mutation_matrix.py


# Every fault's run in the mutation matrix uses this seed (the suite's default is a random one): a fault is killed or
# not, the same way each time; scripts/matrix_seeds.py runs the matrix under two seeds and compares.
MATRIX_SEED = "20261125"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--matrix-seed", default=MATRIX_SEED, help="seed of each fault's run in the mutation matrix")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "long: a self-test of tens of seconds (a whole run of the suite); starts first")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long self-tests start first: xdist hands tests out in this order, and one left for the end would
    keep a worker busy after the other is done."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):
        shutil.rmtree(MATRIX_ROWS, ignore_errors=True)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """After the run (on the controller under xdist): the mutation matrix of the faults that ran."""
    if hasattr(session.config, "workerinput") or not MATRIX_ROWS.is_dir():
        return
    rows = [json.loads(path.read_text()) for path in sorted(MATRIX_ROWS.glob("*.json"))]
    if rows:
        write_matrix(rows, REPORTS)


def wallet_body(category: str = "primary") -> dict[str, Any]:
    """A create-wallet body of the category; secondary ones all for one customer (Ada)."""
    body: dict[str, Any] = {"category": category, "accountName": "Ada Stores", "currency": "NGN"}
    if category == "secondary":
        body |= {"emailAddress": "ada@example.com", "mobile": {"phoneNumber": "08031234567", "isoCode": "NG"}}
    return body


class ReferenceClient:
    """Calls one reference server over HTTP: the API under /v1 (with the test key unless told) and the sandbox."""

    def __init__(self, server: ReferenceServer, http_client: httpx.Client | None = None) -> None:
        self.server = server
        self.key = server.secret_key
        self.http = http_client or httpx.Client(timeout=10, trust_env=False)

    def call(self, method: str, path: str, *, key: str | None = "", **options: Any) -> httpx.Response:
        """`key=""` sends the test key, `key=None` no key, any other string that key."""
        headers = {} if key is None else {"x-service-key": key or self.key}
        return self.http.request(method, self.server.base_url + path, headers=headers, **options)

    def data(self, method: str, path: str, **options: Any) -> Any:
        """The `data` of a call that must succeed."""
        response = self.call(method, path, **options)
        assert response.is_success, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()["data"]

    def wallet(self, category: str = "primary", *, key: str = "", **fields: Any) -> dict[str, Any]:
        return self.data("POST", "/virtual-accounts", json=wallet_body(category) | fields, key=key)

    def fund(self, wallet_id: str, amount: int) -> dict[str, Any]:
        response = self.http.post(self.server.funding_url, json={"walletId": wallet_id, "amount": amount})
        assert response.status_code == 200, response.text
        return response.json()["data"]

    def settle(self, reference: str | None = None) -> httpx.Response:
        return self.http.post(self.server.settle_url, json={"reference": reference} if reference else None)

    def reset(self) -> None:
        self.http.post(self.server.reset_url).raise_for_status()

    def balance(self, wallet_id: str, *, key: str = "") -> int:
        return self.data("GET", f"/virtual-accounts/{wallet_id}", key=key)["balance"]


def started(faults: Iterable[str | Fault] = (), settle_delay: float | None = None) -> ReferenceServer:
    return ReferenceServer(faults=faults, settle_delay=settle_delay).start()


@pytest.fixture(scope="session")
def http_client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10, trust_env=False) as client:
        yield client


@pytest.fixture(scope="session")
def reference_server() -> Iterator[ReferenceServer]:
    """One faithful reference per worker; transfers settle only through the sandbox."""
    server = started()
    yield server
    server.stop()


@pytest.fixture
def reference(reference_server: ReferenceServer, http_client: httpx.Client) -> ReferenceClient:
    """A client of the faithful reference, reset to a fresh state."""
    client = ReferenceClient(reference_server, http_client)
    client.reset()
    return client
