"""What the validating proxy costs, side by side against one reference process (docs/performance.md, "The proxy").

- latency: sequential GET /transactions/banks, direct and through the proxy, alternating request by request on two
  keep-alive clients; p50 and p99 of each, and the difference (the latency the proxy adds);
- throughput: CLIENTS concurrent clients for SECONDS, direct, then through the proxy (asyncio httpx, one connection
  per client), with the CPU the reference, the proxy (its judging process apart) and the load spent per exchange;
  the judged share under that load comes from the proxy's reports: the one it wrote (every second) as the load
  ended (judged so far, waiting, the judge's rate during the load), and the one written when it stopped (judged,
  dropped);
- masking: what masking personal data costs on a text the size of a proxy's report (personal.py), with no value
  remembered and with as many as it remembers (every report the proxy writes goes through it);
- the judge's rate: a judging process (the proxy's, proxy/side.py) fed JUDGED captured exchanges of the same mix as
  fast as its queue takes them, the exchanges it judged per second of its own CPU (the rate with a core to itself);
- memory: a judging process (the proxy's, proxy/side.py) fed EXCHANGES captured exchanges from this one (a mix of
  wallets created, read and listed, banks listed and refusals: every created wallet a new record for the registry),
  its resident size every tenth of the way, so its growth and where it flattens at the registry's bound are seen.

The reference and the proxy run as processes of their own (`python -m wallet_conformance.reference`,
`wallet-conformance proxy`); the load comes from this one. On a 2-core machine the three share the cores: the
figures are what that gives. Not a test: it prints its figures.

    .venv/bin/python scripts/proxy_benchmark.py [--requests 2000] [--clients 50] [--seconds 10]
        [--exchanges 100000] [--max-records 50000] [--judged 20000] [--memory-only] [--judge-rate-only]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from wallet_conformance.client.personal import REMEMBERED, Masking
from wallet_conformance.client.redaction import Secrets, activate
from wallet_conformance.proxy.captured import Captured
from wallet_conformance.proxy.side import Opening, SideJudge
from wallet_conformance.reporting.gating import Gate

PYTHON = sys.executable
COMMAND = str(Path(sys.executable).with_name("wallet-conformance"))
READ = "/transactions/banks"
REPORT_EVERY = 1.0  # seconds between the proxy's reports


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(url: str, key: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(url, headers={"x-service-key": key}, timeout=2)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def last_report(path: Path) -> dict[str, Any]:
    """The report the proxy wrote last (read again when caught while it is being written)."""
    while True:
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError:
            time.sleep(0.05)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def latency(direct: str, proxied: str, key: str, requests: int) -> dict[str, float]:
    """p50 and p99 in milliseconds of sequential reads, direct and through the proxy, alternating."""
    times: dict[str, list[float]] = {"direct": [], "proxy": []}
    with httpx.Client(headers={"x-service-key": key}) as one, httpx.Client(headers={"x-service-key": key}) as other:
        for index in range(requests + 100):
            for name, client, base in (("direct", one, direct), ("proxy", other, proxied)):
                started = time.perf_counter()
                client.get(base + READ).raise_for_status()
                if index >= 100:  # the first hundred warm both paths up
                    times[name].append((time.perf_counter() - started) * 1000)
    found = {
        f"{name} p{int(share * 100)}": percentile(values, share)
        for name, values in times.items()
        for share in (0.5, 0.99)
    }
    found["added p50"] = found["proxy p50"] - found["direct p50"]
    found["added p99"] = found["proxy p99"] - found["direct p99"]
    found["direct mean"] = statistics.mean(times["direct"])
    return found


async def _load(base: str, key: str, clients: int, seconds: float) -> int:
    done = 0
    deadline = time.monotonic() + seconds

    async def client() -> None:
        nonlocal done
        async with httpx.AsyncClient(headers={"x-service-key": key}, limits=httpx.Limits(max_connections=1)) as http:
            while time.monotonic() < deadline:
                (await http.get(base + READ)).raise_for_status()
                done += 1

    await asyncio.gather(*(client() for _ in range(clients)))
    return done


def throughput(
    base: str, key: str, clients: int, seconds: float, processes: dict[str, int]
) -> tuple[float, dict[str, float]]:
    """Requests per second that `clients` concurrent clients get, and the CPU seconds each of `processes` (and this
    one, the load) spent meanwhile."""
    processes = {**processes, "load": os.getpid()}
    before = {name: cpu_seconds(pid) for name, pid in processes.items()}
    rate = asyncio.run(_load(base, key, clients, seconds)) / seconds
    return rate, {name: cpu_seconds(pid) - before[name] for name, pid in processes.items()}


def cpu_seconds(pid: int) -> float:
    """User and system CPU a process has spent (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def per_exchange(spent: dict[str, float], exchanges: float) -> str:
    return ", ".join(f"{name} {seconds / exchanges * 1000:.2f} ms" for name, seconds in spent.items())


def judged_in(report: dict[str, Any]) -> int:
    return report["run"]["exchanges"].get("made", 0)


def resident_mb(pid: int | None = None) -> float:
    for line in Path(f"/proc/{pid or 'self'}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def captured(index: int, base: str, key: str) -> Captured:
    """The index-th exchange of a mix of answers as the bundled reference gives them (each meets the document: what
    a proxy in front of a conforming server judges): a wallet created (a new record), read, listed; banks listed; a
    refusal."""
    kind = index % 5
    number = f"{9_000_000_000 + index}"
    wallet = {
        "id": index,
        "publicId": f"vba-{index:08d}",
        "auth": "65a1f0c00000000000000005",
        "account": "65a1f0c00000000000000002",
        "accountName": "bench wallet",
        "accountNumber": number,
        "bankName": "Bench",
        "bankCode": "035",
        "live": False,
        "isFavourite": True,
        "processor": "sandbox",
        "category": "primary",
        "balance": 0,
        "currency": "NGN",
        "createdAt": "2026-11-28T00:00:00.000Z",
        "updatedAt": "2026-11-28T00:00:00.000Z",
        "lastUpdated": "2026-11-28T00:00:00.000Z",
    }
    if kind == 0:
        method, path, status = "POST", "/virtual-accounts", 201
        body = {
            "meta": {"statusCode": 201, "success": True, "message": "VirtualAccount successfully created"},
            "data": wallet,
        }
    elif kind == 1:
        method, path, status = "GET", f"/virtual-accounts/vba-{index - 1:08d}", 200
        body = {
            "meta": {"statusCode": 200, "success": True},
            "data": {
                **wallet,
                "publicId": f"vba-{index - 1:08d}",
                "_id": f"{index - 1:024x}",
                "id": f"{index - 1:024x}",
                "accountNumber": f"{9_000_000_000 + index - 1}",
            },
        }
    elif kind == 2:
        method, path, status = "GET", "/virtual-accounts", 200
        body = {
            "meta": {"statusCode": 200, "success": True, "pagination": {"totalCount": 1, "perPage": 10, "current": 1}},
            "data": [{**wallet, "_id": f"{index:024x}"}],
        }
    elif kind == 3:
        method, path, status = "GET", READ, 200
        body = {"meta": {"statusCode": 200, "success": True, "message": "successful"}, "data": []}
    else:
        method, path, status = "GET", "/virtual-accounts/vba-99999999", 404
        body = {"meta": {"statusCode": 404, "success": False, "message": "not found"}, "data": None}
    sent = (
        json.dumps({"accountName": "bench wallet", "category": "primary", "currency": "NGN"}).encode()
        if method == "POST"
        else b""
    )
    text = json.dumps(body).encode()
    return Captured(
        method,
        base + path,
        [("x-service-key", key), ("content-type", "application/json")],
        sent,
        len(sent),
        status,
        [("content-type", "application/json")],
        text,
        len(text),
        time.time(),
        0.002,
    )


def masking_cost() -> list[tuple[int, float]]:
    """Milliseconds to mask a 250 KB report-like text (wallets quoted in evidence, banks), with no value remembered
    and with REMEMBERED of them."""
    answers = [captured(index, "https://bench.example/v1", "key").response_body.decode() for index in range(100)]
    text = (json.dumps(answers) * 30)[:250_000]
    found = []
    masking = Masking()
    for remembered in (0, REMEMBERED):
        for index in range(remembered):
            masking.mask(json.dumps({"accountName": f"bench wallet {index}", "accountNumber": f"{index:010d}"}))
        started = time.perf_counter()
        for _ in range(10):
            masking.mask(text)
        found.append((len(masking.values), (time.perf_counter() - started) * 100))
    return found


def memory(exchanges: int, max_records: int) -> list[tuple[int, float]]:
    """The resident size (MB) of a judging process as it takes `exchanges` exchanges, every tenth."""
    activate(Secrets())
    base, key = "https://bench.example/v1", f"test_sk_{secrets.token_hex(20)}"
    with tempfile.TemporaryDirectory() as folder:
        judge = SideJudge(
            base,
            max_records,
            Path(folder) / "judgement.jsonl",
            Opening(Gate(traffic=True), "staging", {}),
            size=1_000_000,
        )
        return _memory(judge, base, key, exchanges)


def judge_rate(exchanges: int) -> tuple[float, float]:
    """Exchanges a judging process judges per second of its own CPU, and per second of wall time, fed `exchanges`
    captured exchanges of the mix (every one in the target) as fast as its queue takes them."""
    activate(Secrets())
    base, key = "https://bench.example/v1", f"test_sk_{secrets.token_hex(20)}"
    made = [captured(index, base, key) for index in range(exchanges)]
    with tempfile.TemporaryDirectory() as folder:
        judge = SideJudge(
            base, 50_000, Path(folder) / "judgement.jsonl", Opening(Gate(traffic=True), "staging", {}), size=100_000
        )
        judge.facts()  # once it answers, it has started
        cpu, started = cpu_seconds(judge.pid), time.perf_counter()
        for exchange in made:
            while judge.waiting() > 5_000:
                time.sleep(0.001)
            judge.offer(exchange)
        while judge.done < exchanges:
            time.sleep(0.01)
        spent, took = cpu_seconds(judge.pid) - cpu, time.perf_counter() - started
        judge.close()
    return exchanges / spent, exchanges / took


def _memory(judge: SideJudge, base: str, key: str, exchanges: int) -> list[tuple[int, float]]:
    judge.facts()  # once it answers, it has started
    points = [(0, resident_mb(judge.pid))]
    step = max(1, exchanges // 10)
    for index in range(exchanges):
        while judge.waiting() > 1000:  # a proxy's queue is bounded: keep this one short, as a judge keeping up does
            time.sleep(0.01)
        judge.offer(captured(index, base, key))
        if (index + 1) % step == 0:
            while judge.done < index + 1:  # the judge catches up before each measure
                time.sleep(0.05)
            points.append((index + 1, resident_mb(judge.pid)))
    judge.close()
    return points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--exchanges", type=int, default=100_000)
    parser.add_argument("--max-records", type=int, default=50_000)
    parser.add_argument("--judged", type=int, default=20_000, help="exchanges fed to measure the judge's rate")
    parser.add_argument("--memory-only", action="store_true", help="only the judge's memory: no HTTP")
    parser.add_argument("--judge-rate-only", action="store_true", help="only the judge's rate: no HTTP, no memory")
    arguments = parser.parse_args()
    per_cpu, per_wall = judge_rate(arguments.judged)
    print(
        f"judge rate: {per_cpu:.0f} exchanges per second of the judging process's CPU "
        f"({1000 / per_cpu:.3f} ms each; {per_wall:.0f}/s of wall time, {arguments.judged} exchanges)"
    )
    if arguments.judge_rate_only:
        return
    if not arguments.memory_only:
        http(arguments)
    for remembered, milliseconds in masking_cost():
        print(f"masking a 250 KB report, {remembered:,} values remembered: {milliseconds:.1f} ms")
    started = time.perf_counter()
    points = memory(arguments.exchanges, arguments.max_records)
    took = time.perf_counter() - started
    print(
        f"memory of the judge, {arguments.exchanges} exchanges (registry bound {arguments.max_records}), "
        f"{arguments.exchanges / took:.0f} exchanges/s judged:"
    )
    for count, megabytes in points:
        print(f"  after {count:>9,}: {megabytes:.1f} MB resident")


def http(arguments: argparse.Namespace) -> None:
    """Latency, throughput and the share judged, against a reference process and a proxy process."""
    print(f"load average before: {os.getloadavg()}")
    key = f"test_sk_{secrets.token_hex(20)}"
    reference_port, proxy_port = free_port(), free_port()
    reports = Path(tempfile.mkdtemp(prefix="proxy-benchmark-"))
    reference = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "wallet_conformance.reference",
            "--port",
            str(reference_port),
            "--secret-key",
            key,
            "--settle-delay",
            "0.2",
        ],
        stdout=subprocess.DEVNULL,
    )
    direct = f"http://127.0.0.1:{reference_port}/v1"
    proxy = subprocess.Popen(
        [
            COMMAND,
            "proxy",
            "--upstream",
            direct,
            "--listen",
            f"127.0.0.1:{proxy_port}",
            "--report-dir",
            str(reports),
            "--report-every",
            str(REPORT_EVERY),
        ],
        stdout=subprocess.DEVNULL,
    )
    proxied = f"http://127.0.0.1:{proxy_port}/v1"
    try:
        wait_for(direct + READ, key)
        wait_for(proxied + READ, key)
        found: dict[str, Any] = latency(direct, proxied, key, arguments.requests)
        for name, value in found.items():
            print(f"latency {name}: {value:.2f} ms")
        processes = {"reference": reference.pid, "proxy": proxy.pid}
        direct_rate, spent = throughput(direct, key, arguments.clients, arguments.seconds, processes)
        print(f"CPU per exchange, direct: {per_exchange(spent, direct_rate * arguments.seconds)}")
        time.sleep(REPORT_EVERY * 2)  # a report with every sequential exchange judged
        before = judged_in(last_report(reports / "conformance.json"))
        proxy_rate, spent = throughput(proxied, key, arguments.clients, arguments.seconds, processes)
        print(
            f"CPU per exchange, through the proxy (its judging process apart): "
            f"{per_exchange(spent, proxy_rate * arguments.seconds)}"
        )
        print(
            f"throughput, {arguments.clients} clients: direct {direct_rate:.0f}/s, through the proxy "
            f"{proxy_rate:.0f}/s ({proxy_rate / direct_rate:.0%} of direct)"
        )
        during = last_report(reports / "conformance.json")  # written at most REPORT_EVERY before the load ended
        facts = during["run"]["proxy"]
        judged = judged_in(during)
        print(
            f"as the load ended (within {REPORT_EVERY:g} s): {facts['forwarded']} forwarded, {judged} judged, "
            f"{facts['waiting']} waiting for the judge, {facts['dropped']} dropped; the judge took "
            f"{(judged - before) / arguments.seconds:.0f} exchanges/s during the load"
        )
    finally:
        proxy.send_signal(signal.SIGINT)
        proxy.wait(timeout=60)
        reference.terminate()
        reference.wait(timeout=10)
    report = json.loads((reports / "conformance.json").read_text())
    facts = report["run"]["proxy"]
    judged = judged_in(report)
    print(
        f"judged under load: {judged} of {facts['forwarded']} forwarded ({judged / max(1, facts['forwarded']):.0%});"
        f" dropped {facts['dropped']}"
    )
    print(f"load average after the HTTP runs: {os.getloadavg()}")


if __name__ == "__main__":
    main()
