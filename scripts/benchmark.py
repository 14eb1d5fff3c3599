"""Measures the suite's speed on this machine and prints Markdown tables for docs/performance.md.

    .venv/bin/python scripts/benchmark.py [--rounds 3]
    .venv/bin/python scripts/benchmark.py --split-only [--compare-with OTHER_CHECKOUT ...]
    .venv/bin/python scripts/benchmark.py --default-only [--rounds 3] [--compare-with OTHER_CHECKOUT ...]

Where the time goes (`--split-only` prints only this, and first): the default run (`pytest tests`, no options) and the
run against the reference 50 ms away with four workers (and serially, for the floor), each with the time split into
waiting on the target, sleeping in the suite's own waits by kind, and CPU (the suite's processes and the bundled
reference apart), the suite's CPU per exchange, the longest chain (the xdist group or test one worker must run alone:
no scheduler beats it), the ten longest tests and fixtures with their requests, and the run's request rate next to a
plain httpx loop on the same server. scripts/timing_plugin.py collects the figures inside the run's processes.
`--compare-with` runs every measurement on other checkouts of the project too (an export of an older commit, say), in
turn, so that all are measured under the same load.

What it times (wall clock, best of the rounds):
  - the conformance suite against the bundled reference, serial and with two workers (quick profile),
    the generated tests alone, and a serial run with `--profile thorough` (once);
  - the share of a generated run spent validating JSON (profiled), and validations per second of the
    wallet schema with jsonschema and with jsonschema-rs (the suite tries jsonschema-rs first);
  - requests per second through the suite's client next to a plain httpx loop, on the same server;
  - the mutation matrix (every fault, in-process runs, two workers) and its mean seconds per fault;
  - the reference server alone: sequential requests per second for a read and a write;
  - against a remote-like target (the reference with --latency, 50 ms by default): the suite serial and with
    four workers, with the number of requests each sent, and the floor requests x latency / workers; and four
    workers with no latency, the time the run's CPU alone takes on this machine.

    .venv/bin/python scripts/benchmark.py --latency-only [--latency 0.05]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wallet_conformance.reference import ReferenceServer  # noqa: E402
from wallet_conformance.reference.process import ReferenceProcess  # noqa: E402


def suite_environment() -> dict[str, str]:
    """The environment `./conformance` and `./selftest` run in: scripts/bytecode caches bytecode and pytest's
    rewritten modules in the venv even where PYTHONDONTWRITEBYTECODE is set (without it every process recompiles
    some 300 modules, seconds per xdist worker)."""
    output = subprocess.run(
        ["bash", "-c", ". scripts/bytecode && env -0"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return {**dict(line.split("=", 1) for line in output.split("\0") if "=" in line), "CI": "true"}


def timed(
    command: list[str], cwd: Path = ROOT, environment: dict[str, str] | None = None, *, must_pass: bool = False
) -> float:
    """Seconds `command` took; with `must_pass`, a run that ends with another exit status than 0 stops the benchmark
    (the figures of a run that failed or stopped early measure something else)."""
    started = time.perf_counter()
    process = subprocess.run(command, cwd=cwd, check=False, capture_output=True, env=environment or suite_environment())
    if must_pass and process.returncode != 0:
        output = (process.stdout + process.stderr).decode(errors="replace").splitlines()[-30:]
        raise SystemExit(f"a measured run in {cwd} ended with exit status {process.returncode}:\n" + "\n".join(output))
    return time.perf_counter() - started


def suite(*args: str, path: str = "tests") -> float:
    with tempfile.TemporaryDirectory() as report_dir:
        return timed(
            [sys.executable, "-m", "pytest", path, "-q", "-p", "no:cacheprovider", "--report-dir", report_dir, *args]
        )


def validation_share() -> float:
    """Share of a generated run's time spent in JSON Schema validation (jsonschema and jsonschema-rs), profiled."""
    import pstats

    with tempfile.TemporaryDirectory() as scratch:
        profile = Path(scratch) / "run.prof"
        timed(
            [
                sys.executable,
                "-m",
                "cProfile",
                "-o",
                str(profile),
                "-m",
                "pytest",
                "tests/generated",
                "-q",
                "-p",
                "no:cacheprovider",
                "--report-dir",
                scratch,
            ]
        )
        # Stats keeps its table in `stats`, which typeshed does not declare.
        stats = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    total = max(cumulative for (_, _, name), (_, _, _, cumulative, _) in stats.items() if name == "<module>")
    validating = sum(
        cumulative
        for (path, _, name), (_, _, _, cumulative, _) in stats.items()
        if (name == "problems" and path.endswith("validation.py")) or name == "request_problems"
    )
    return validating / total


def validation_speed(count: int = 2000) -> tuple[float, float]:
    """Validations per second of a wallet read envelope: jsonschema (cached validator) and jsonschema-rs."""
    import jsonschema_rs

    from wallet_conformance.spec import validation

    with ReferenceServer() as server, httpx.Client(headers={"x-service-key": server.secret_key}) as http:
        body = {"accountName": "bench", "category": "primary", "currency": "NGN"}
        created = http.post(f"{server.base_url}/virtual-accounts", json=body).json()["data"]
        envelope = http.get(f"{server.base_url}/virtual-accounts/{created['publicId']}").json()
    document = validation.openapi_document()
    schema = {**document["components"]["schemas"]["WalletResponse"], "components": document["components"]}
    fast = jsonschema_rs.validator_for(schema, validate_formats=True)
    slow = validation.validator("wallet.json", "/$defs/read")
    started = time.perf_counter()
    for _ in range(count):
        list(slow.iter_errors(envelope["data"]))
    slow_rate = count / (time.perf_counter() - started)
    started = time.perf_counter()
    for _ in range(count):
        fast.is_valid(envelope)
    return slow_rate, count / (time.perf_counter() - started)


def client_throughput(requests: int = 500) -> tuple[float, float]:
    """Sequential GET /transactions/banks per second: the suite's ApiClient (capture, redaction) and plain httpx."""
    from wallet_conformance.client.api import ApiClient

    with ReferenceServer() as server:
        client = ApiClient(server.base_url, server.secret_key)
        started = time.perf_counter()
        for _ in range(requests):
            client.call("listBanks")
        suite_rate = requests / (time.perf_counter() - started)
        client.close()
        with httpx.Client(headers={"x-service-key": server.secret_key}) as http:
            started = time.perf_counter()
            for _ in range(requests):
                http.get(f"{server.base_url}/transactions/banks").json()
            plain_rate = requests / (time.perf_counter() - started)
    return suite_rate, plain_rate


class Counting:
    """ASGI middleware counting the requests a server gets."""

    def __init__(self, app) -> None:
        self.app = app
        self.requests = 0

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            self.requests += 1
        await self.app(scope, receive, send)


# One seed for the runs compared: the generated tests draw the same examples serial and on four workers, so the
# requests they send differ only by what the workers repeat (a random seed moves the count by a few percent).
SEED = "20261123"


def children_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far: the suite's, all its workers."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def remote_run(latency: float, *args: str) -> tuple[float, int, float]:
    """The suite against the reference as a deployed target `latency` s away: seconds, requests sent, and the
    CPU seconds the suite's processes used (the reference answers from this process, not counted)."""
    key = "sk_test_benchmark_latency"
    server = ReferenceServer(secret_key=key, latency=latency)
    counter = Counting(server.app)
    server.app = counter
    with server, tempfile.TemporaryDirectory() as report_dir:
        before = children_cpu()
        seconds = timed(
            [
                sys.executable,
                "-m",
                "pytest",
                "tests",
                "-q",
                "-p",
                "no:cacheprovider",
                "--report-dir",
                report_dir,
                "--base-url",
                server.base_url,
                "--secret-key",
                key,
                "--funding-url",
                server.funding_url,
                "--seed",
                SEED,
                *args,
            ]
        )
    return seconds, counter.requests, children_cpu() - before


def latency_table(latency: float) -> None:
    serial, serial_requests, serial_cpu = remote_run(latency)
    parallel, parallel_requests, parallel_cpu = remote_run(latency, "-n", "4")
    # The same run with no latency at all: what the run's CPU alone takes on this machine's cores.
    unhindered, _, unhindered_cpu = remote_run(0.0, "-n", "4")
    floor = serial_requests * latency / 4  # the serial run's requests, four at a time
    print(
        f"Against the reference with {latency * 1000:.0f} ms before each answer (`--base-url`, "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):\n"
    )
    print("| run | time | requests | serial requests x latency / workers | CPU of the suite |")
    print("|---|---|---|---|---|")
    print(f"| serial | {serial:.1f} s | {serial_requests} | {serial_requests * latency:.1f} s | {serial_cpu:.1f} s |")
    print(
        f"| `-n 4` | {parallel:.1f} s | {parallel_requests} ({parallel_requests / serial_requests - 1:+.0%}) | "
        f"{floor:.1f} s (time / floor {parallel / floor:.2f}) | {parallel_cpu:.1f} s |"
    )
    print(f"| `-n 4`, no latency | {unhindered:.1f} s | | | {unhindered_cpu:.1f} s |")


def split_run(tree: Path, *args: str, server: ReferenceServer | ReferenceProcess | None = None) -> dict[str, Any]:
    """One run of the suite from checkout `tree` with scripts/timing_plugin.py: its wall time, requests and the
    figures every process of the run wrote. Against `server` when given (as a deployed target), else the default
    run against the bundled reference."""
    target: list[str] = []
    if server is not None:
        target = [
            "--base-url",
            server.base_url,
            "--secret-key",
            server.secret_key,
            "--funding-url",
            server.funding_url,
            "--seed",
            SEED,
        ]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "timing"
        folder.mkdir()
        environment = {**suite_environment(), "BENCHMARK_TIMING_DIR": str(folder), "PYTHONPATH": str(ROOT / "scripts")}
        cpu = children_cpu()
        load = os.getloadavg()[0]
        began = time.time()
        seconds = timed(
            [
                sys.executable,
                "-m",
                "pytest",
                "tests",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "timing_plugin",
                "--report-dir",
                str(Path(scratch) / "reports"),
                "--work-dir",
                str(Path(scratch) / "work"),
                *target,
                *args,
            ],
            cwd=tree,
            environment=environment,
            must_pass=True,
        )
        processes = [json.loads(path.read_text()) for path in folder.glob("*.json")]
    return {
        "seconds": seconds,
        "load": load,
        "processes": processes,
        "children_cpu": children_cpu() - cpu,
        "began": began,
    }


def split_figures(run: dict[str, Any]) -> dict[str, Any]:
    """The figures of one split run, added up over its processes."""
    processes = run["processes"]
    tests = {node: test for process in processes for node, test in process["tests"].items()}
    fixtures: dict[str, dict[str, float]] = {}
    for process in processes:
        for name, entry in process["fixtures"].items():
            total = fixtures.setdefault(name, {"count": 0, "seconds": 0.0, "requests": 0})
            for key in total:
                total[key] += entry[key]
    sleeps: dict[str, float] = {}
    for process in processes:
        for kind, seconds in process["run"]["sleeps"].items():
            sleeps[kind] = sleeps.get(kind, 0.0) + seconds
    in_thread = sum(process["reference_cpu"] for process in processes if process["reference_in"] == "thread")
    reference = sum(process["reference_cpu"] for process in processes)
    chains: dict[str, float] = {}
    for node, test in tests.items():
        key = f"group {test['group']}" if test["group"] else node
        chains[key] = chains.get(key, 0.0) + test["seconds"]
    longest = max(chains.items(), key=lambda item: item[1]) if chains else ("-", 0.0)
    busy: dict[str, float] = {}
    for test in tests.values():
        busy[test["worker"]] = busy.get(test["worker"], 0.0) + test["seconds"]
    testing = [process["moments"] for process in processes if "first_test" in process.get("moments", {})]
    first = max((moments["first_test"] for moments in testing), default=run["began"]) - run["began"]
    last = run["began"] + run["seconds"] - max((moments["last_test"] for moments in testing), default=run["began"])
    requests = sum(process["run"]["requests"] for process in processes)
    suite_cpu = sum(process["cpu"] for process in processes) - in_thread
    # xdist's controller runs no test: its CPU is what a parallel run costs beyond its workers' (None without one).
    controllers = [process["cpu"] for process in processes if "first_test" not in process.get("moments", {})]
    return {
        "seconds": run["seconds"],
        "load": run["load"],
        "requests": requests,
        "target": sum(process["run"]["target"] for process in processes),
        "sleeps": sleeps,
        "suite_cpu": suite_cpu,
        "reference_cpu": reference,
        "workers": len(processes),
        "per_exchange": suite_cpu / requests * 1000 if requests else 0.0,
        "longest_chain": longest,
        "busy": busy,
        "to_first_test": first,
        "start_cpu": sorted(process["start_cpu"] for process in processes if process.get("start_cpu") is not None),
        "controller_cpu": controllers[0] if len(processes) > 1 and controllers else None,
        "after_last_test": last,
        "tests": tests,
        "fixtures": fixtures,
    }


def split_table(label: str, runs: dict[str, dict[str, Any]]) -> None:
    """One table of the time split: a column per checkout."""
    names = list(runs)
    print(f"**{label}**\n")
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))

    def row(title: str, value: Any) -> None:
        print(f"| {title} | " + " | ".join(value(runs[name]) for name in names) + " |")

    row("wall time (load average at start)", lambda f: f"{f['seconds']:.1f} s ({f['load']:.1f})")
    row("requests", lambda f: f"{f['requests']}")
    row("waiting on the target (summed over processes)", lambda f: f"{f['target']:.1f} s")
    kinds = sorted({kind for figures in runs.values() for kind in figures["sleeps"]})
    for kind in kinds:
        row(f"sleeping: {kind}", lambda f, kind=kind: f"{f['sleeps'].get(kind, 0.0):.1f} s")
    row("CPU: the suite's processes", lambda f: f"{f['suite_cpu']:.1f} s ({f['workers']} processes)")
    row("CPU: the bundled reference", lambda f: f"{f['reference_cpu']:.1f} s")
    row("suite CPU per exchange", lambda f: f"{f['per_exchange']:.2f} ms")
    row("request rate (requests / wall)", lambda f: f"{f['requests'] / f['seconds']:.0f} /s")
    row("longest chain", lambda f: f"{f['longest_chain'][1]:.1f} s ({f['longest_chain'][0]})")
    row("from the start to the last process's first test", lambda f: f"{f['to_first_test']:.1f} s")
    row(
        "CPU of each testing process before its first test",
        lambda f: ", ".join(f"{seconds:.2f}" for seconds in f["start_cpu"]) + " s",
    )
    row(
        "CPU of xdist's controller (to its session's end, before the reports)",
        lambda f: "-" if f["controller_cpu"] is None else f"{f['controller_cpu']:.2f} s",
    )
    row("from the last test's end to the run's end", lambda f: f"{f['after_last_test']:.1f} s")
    row(
        "time in tests, per process",
        lambda f: ", ".join(f"{seconds:.1f}" for _, seconds in sorted(f["busy"].items())) + " s",
    )
    print()
    for name in names:
        figures = runs[name]
        print(
            f"Ten longest tests, {name}: "
            + "; ".join(
                f"{node.split('::')[-1]} {test['seconds']:.2f} s, {test['requests']} requests"
                for node, test in sorted(figures["tests"].items(), key=lambda item: -item[1]["seconds"])[:10]
            )
            + "\n"
        )
        print(
            f"Ten longest fixtures (setup time summed over their instances), {name}: "
            + "; ".join(
                f"{fixture} {entry['seconds']:.2f} s, {entry['count']:.0f}x, {entry['requests']:.0f} requests"
                for fixture, entry in sorted(figures["fixtures"].items(), key=lambda item: -item[1]["seconds"])[:10]
            )
            + "\n"
        )


def split(trees: dict[str, Path], latency: float) -> None:
    """The time split of the default run and of the run `latency` s away (four workers; serially for the floor)."""
    default = {name: split_figures(split_run(tree)) for name, tree in trees.items()}
    split_table("The default run (`pytest tests`, no options)", default)
    _, plain_rate = client_throughput()
    print(
        f"A plain keep-alive httpx loop on the reference: {plain_rate:.0f} requests/s; the default run's rate is "
        + ", ".join(
            f"{name} {figures['requests'] / figures['seconds'] / plain_rate:.2f}" for name, figures in default.items()
        )
        + " of it.\n"
    )
    remote: dict[str, dict[str, Any]] = {}
    serial: dict[str, dict[str, Any]] = {}
    for name, tree in trees.items():
        server = ReferenceServer(secret_key="sk_test_benchmark_split", latency=latency)
        with server:
            serial[name] = split_figures(split_run(tree, server=server))
        server = ReferenceServer(secret_key="sk_test_benchmark_split", latency=latency)
        with server:
            remote[name] = split_figures(split_run(tree, "-n", "4", server=server))
    split_table(f"Against the reference {latency * 1000:.0f} ms away, `-n 4`", remote)
    for name in trees:
        floor = serial[name]["requests"] * latency / 4
        print(
            f"{name}: serial {serial[name]['seconds']:.1f} s for {serial[name]['requests']} requests; `-n 4` "
            f"{remote[name]['seconds']:.1f} s for {remote[name]['requests']} requests "
            f"({remote[name]['requests'] / serial[name]['requests'] - 1:+.0%}); the limit (serial requests x RTT / "
            f"4) {floor:.1f} s: {remote[name]['seconds'] / floor:.2f}x\n"
        )


def default_split(trees: dict[str, Path], rounds: int) -> None:
    """The default run of each checkout, `rounds` times in turn (the checkouts alternating, so that each meets the
    same load), the same run in one process (`-n 0`) once, and a run against the reference served from a process of
    its own on loopback (a `--base-url` on 127.0.0.1: the implementer's own server) with its default workers and with
    `-n 0`."""
    default: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            default[name].append(split_figures(split_run(tree)))
    for index in range(rounds):
        split_table(
            f"The default run (`pytest tests`, no options), round {index + 1}",
            {name: runs[index] for name, runs in default.items()},
        )
    split_table(
        "The default run in one process (`pytest tests -n 0`)",
        {name: split_figures(split_run(tree, "-n", "0")) for name, tree in trees.items()},
    )
    loopback: dict[str, dict[str, Any]] = {}
    for name, tree in trees.items():
        for label, args in (("workers", ()), ("-n 0", ("-n", "0"))):
            server = ReferenceProcess(settle_delay=0.1).start()
            try:
                loopback[f"{name}, {label}"] = split_figures(split_run(tree, *args, server=server))
            finally:
                server.stop()
    split_table("A `--base-url` on loopback (the reference in a process of its own)", loopback)


def reference_throughput(requests: int = 500) -> tuple[float, float]:
    """Sequential requests per second: GET /transactions/banks, then POST /virtual-accounts (secondary)."""
    with ReferenceServer() as server, httpx.Client(headers={"x-service-key": server.secret_key}) as http:
        started = time.perf_counter()
        for _ in range(requests):
            http.get(f"{server.base_url}/transactions/banks")
        reads = requests / (time.perf_counter() - started)
        body = {
            "accountName": "bench",
            "category": "secondary",
            "currency": "NGN",
            "emailAddress": "bench@example.com",
            "mobile": {"phoneNumber": "08030000000", "isoCode": "NG"},
        }
        started = time.perf_counter()
        for _ in range(requests):
            http.post(f"{server.base_url}/virtual-accounts", json=body)
        writes = requests / (time.perf_counter() - started)
    return reads, writes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds before each answer (default 0.05)")
    parser.add_argument("--latency-only", action="store_true", help="measure only the remote-like target")
    parser.add_argument("--split-only", action="store_true", help="measure only where the time goes")
    parser.add_argument(
        "--default-only",
        action="store_true",
        help="measure only the default run (--rounds times, the checkouts in turn), the same in one process, and a "
        "loopback --base-url run with and without workers",
    )
    parser.add_argument(
        "--compare-with",
        type=Path,
        metavar="CHECKOUT",
        action="append",
        default=[],
        help="measure the time split on this other checkout of the project too (repeatable)",
    )
    arguments = parser.parse_args()
    rounds = arguments.rounds
    trees = {**{str(tree): tree.resolve() for tree in arguments.compare_with}, "this checkout": ROOT}
    if arguments.default_only:
        default_split(trees, rounds)
        return
    split(trees, arguments.latency)
    if arguments.split_only:
        return
    if arguments.latency_only:
        latency_table(arguments.latency)
        return
    serial = min(suite() for _ in range(rounds))
    parallel = min(suite("-n", "2") for _ in range(rounds))
    generated = min(suite(path="tests/generated") for _ in range(rounds))
    thorough = suite("--profile", "thorough")
    share = validation_share()
    slow_rate, fast_rate = validation_speed()
    suite_rate, plain_rate = client_throughput()
    matrix = timed([sys.executable, "-m", "pytest", "selftests/test_mutation_matrix.py", "-q", "-n", "2"])
    rows = json.loads((ROOT / "reports" / "mutation-matrix.json").read_text())["faults"]
    per_fault = sum(row["seconds"] for row in rows) / len(rows)
    reads, writes = reference_throughput()
    print(f"Measured on {os.cpu_count()} cores, Python {platform.python_version()}, best of {rounds} for the suite:\n")
    print("| what | time |")
    print("|---|---|")
    print(f"| conformance suite vs bundled reference, serial | {serial:.1f} s |")
    print(f"| conformance suite vs bundled reference, `-n 2` | {parallel:.1f} s |")
    print(f"| of which the generated tests alone (`tests/generated`), serial | {generated:.1f} s |")
    print(f"| conformance suite, serial, `--profile thorough` (once) | {thorough:.1f} s |")
    print(f"| mutation matrix, {len(rows)} faults, `-n 2` | {matrix:.1f} s ({per_fault:.2f} s per fault run) |")
    print(f"| reference server, sequential GET /transactions/banks | {reads:.0f} requests/s |")
    print(f"| reference server, sequential POST /virtual-accounts | {writes:.0f} requests/s |")
    print(
        f"| the suite's client (capture, redaction), sequential GET /transactions/banks | {suite_rate:.0f} "
        f"requests/s (plain httpx: {plain_rate:.0f}) |"
    )
    print(f"| wallet schema validations: jsonschema / jsonschema-rs | {slow_rate:.0f} / {fast_rate:.0f} per s |")
    print(f"| share of a generated run spent validating JSON | {share:.0%} |")
    print()
    latency_table(arguments.latency)


if __name__ == "__main__":
    main()
