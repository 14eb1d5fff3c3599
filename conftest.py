"""Root conftest: loads the suite's plugin, keeps Hypothesis' files out of the working tree, and names the
profile of the generated tests."""

import os
from pathlib import Path

# Read lazily by Hypothesis; set before any test imports it.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(Path(__file__).parent / "reports" / ".hypothesis"))

pytest_plugins = ["wallet_conformance.plugin.hooks", "wallet_conformance.plugin.fixtures", "pytester"]


def pytest_configure(config):
    from wallet_conformance.generation import profiles

    profiles.register_hypothesis_profiles()


def pytest_report_header(config):
    from wallet_conformance.generation import profiles
    from wallet_conformance.plugin.hooks import state

    seed = profiles.run_seed(config, state(config).settings.seed)
    return [f"wallet-conformance: generated tests: profile {profiles.profile(config).name}, seed {seed} "
            f"(reproduce with --seed {seed} --profile {profiles.profile(config).name})"]
