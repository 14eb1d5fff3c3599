"""Headless Chromium for the HTML report's self-tests: Debian's `chromium` (.ci/run installs it where it can), or why
there is none, so that a test skips with the reason."""

from __future__ import annotations

import shutil

# Flags of a browser started for one page: no sandbox (containers), and nothing of its own sent anywhere.
FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
NO_BROWSER = "no Chromium installed (apt-get install chromium): the HTML report was not opened in a browser"


def chromium() -> str | None:
    """The Chromium command on PATH, if any."""
    return shutil.which("chromium") or shutil.which("chromium-browser")
