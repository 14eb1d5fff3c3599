"""Where the suite's files live: the API document, the contract (catalogue, OpenAPI, schemas) and the conformance
tests. In a checkout they sit at the repository's root; the package reaches them through `wallet_conformance/suite/`,
whose links an installed distribution replaces with the files themselves. ROOT is the folder holding them."""

from pathlib import Path

SHIPPED = Path(__file__).resolve().parent.parent / "suite"
ROOT = (SHIPPED / "tests").resolve().parent
CATALOGUE = ROOT / "requirements.yaml"
DOCUMENT = ROOT / "spec" / "wallet-service-api.md"  # the API document the contract and the catalogue rest on
OPENAPI = ROOT / "openapi.yaml"
SCHEMAS = ROOT / "schemas"
TESTS = ROOT / "tests"
REQUIREMENTS_PAGE = ROOT / "docs" / "requirements.md"  # the catalogue rendered (wallet_conformance/pages.py)
PYTEST_CONFIG = ROOT / "pyproject.toml"  # the suite's pytest settings ([tool.pytest.ini_options])
