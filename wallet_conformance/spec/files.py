"""Where the contract files live: the repository root holds them, beside this package."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CATALOGUE = ROOT / "requirements.yaml"
OPENAPI = ROOT / "openapi.yaml"
SCHEMAS = ROOT / "schemas"
