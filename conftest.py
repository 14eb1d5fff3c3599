"""Root conftest: loads the suite's plugin and keeps Hypothesis' files in the work folder."""

import os
from pathlib import Path

# Read lazily by Hypothesis; set before any test imports it.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(Path(__file__).parent / ".wallet-conformance" / "hypothesis"))

pytest_plugins = ["wallet_conformance.plugin"]
