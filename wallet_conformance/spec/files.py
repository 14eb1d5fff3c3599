"""Where the contract files live: the repository root holds them, beside this package."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CATALOGUE = ROOT / "requirements.yaml"
DOCUMENT = ROOT / "spec" / "wallet-service-api.md"  # the API document the contract and the catalogue rest on
OPENAPI = ROOT / "openapi.yaml"
SCHEMAS = ROOT / "schemas"
