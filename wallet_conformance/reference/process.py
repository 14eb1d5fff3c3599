"""Running the reference in a process of its own (`python -m wallet_conformance.reference`), so that the suite's CPU
and the server's do not share one interpreter. The process picks its own port and keys and prints them; it ends when
stopped, or when the process that started it ends (its standard input closes)."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterable

from wallet_conformance.reference.server import START_TIMEOUT_SECONDS

# The labels the entry point prints its addresses and keys under (reference/__main__.py).
LABELS = {
    "base URL": "base_url",
    "test secret key": "secret_key",
    "second test secret key": "second_secret_key",
    "funding URL": "funding_url",
    "due URL": "due_url",
    "settle URL": "settle_url",
}


class ReferenceProcess:
    """The bundled reference served by a child process; the same addresses and keys as a ReferenceServer."""

    def __init__(
        self, faults: Iterable[str] = (), settle_delay: float = 0.2, variants: Iterable[str] = (), latency: float = 0.0
    ) -> None:
        self.command = [
            sys.executable,
            "-m",
            "wallet_conformance.reference",
            "--port",
            "0",
            "--until-stdin-closes",
            "--settle-delay",
            repr(settle_delay),
            "--latency",
            repr(latency),
        ]
        self.command += [word for fault in faults for word in ("--fault", fault)]
        self.command += [word for variant in variants for word in ("--variant", variant)]
        self.base_url = self.secret_key = self.second_secret_key = ""
        self.funding_url = self.due_url = self.settle_url = ""
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> ReferenceProcess:
        """Starts the process; returns once it has printed where it serves (it serves then)."""
        process = self._process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        timer = threading.Timer(START_TIMEOUT_SECONDS, process.kill)
        timer.start()
        try:
            assert process.stdout is not None
            for line in process.stdout:
                label, _, value = line.partition(":")
                if label in LABELS:
                    setattr(self, LABELS[label], value.strip())
                if label == "settle URL":  # printed after the addresses and keys
                    break
        finally:
            timer.cancel()
        if not self.settle_url:
            self.stop()
            raise RuntimeError(f"the reference server did not start within {START_TIMEOUT_SECONDS} s")
        return self

    def stop(self) -> None:
        if self._process is None:
            return
        process, self._process = self._process, None
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
