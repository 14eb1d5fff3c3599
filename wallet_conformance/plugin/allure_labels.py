"""Allure results (allure-pytest) for conformance runs, when asked with allure-pytest's own `--alluredir DIR`: each
test labelled with its requirement ids and levels, its part of the document as feature, its exchanges attached, and
each Schemathesis operation kept apart (its own history id).

Everything here is a no-op without `--alluredir` or when allure-pytest is not loaded (`-p no:allure_pytest`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from wallet_conformance.client.redaction import conceal, redact
from wallet_conformance.reporting.evidence import evidence_lines
from wallet_conformance.spec.catalogue import Requirement

ATTACHED = 10  # exchanges attached per test (the last ones)

try:
    import allure
except ImportError:  # pragma: no cover - allure-pytest is a dependency
    allure = None  # type: ignore[assignment]  # None: the module is missing (checked before each use)


def recording(config: pytest.Config) -> bool:
    """Whether allure-pytest writes results in this run (`--alluredir`): without it nothing here is made at all."""
    return allure is not None and bool(getattr(config.option, "allure_report_dir", None))


def label(item: pytest.Item, requirements: Sequence[Requirement], sections: dict[str, str]) -> None:
    """Requirement ids and levels as labels; the part of the document as feature and epic-less suite."""
    if not requirements or not recording(item.config):
        return
    mark = pytest.mark.allure_label  # what allure.label() makes, without needing the plugin's helper
    item.add_marker(mark(*(requirement.id for requirement in requirements), label_type="requirement"))
    item.add_marker(mark(*dict.fromkeys(requirement.level for requirement in requirements), label_type="level"))
    section = requirements[0].section
    item.add_marker(mark(f"{section}: {sections.get(section, section)}", label_type="feature"))
    item.add_marker(mark(f"{requirements[0].id} {requirements[0].title}", label_type="story"))


def operation_parameter(item: pytest.Item) -> None:
    """A Schemathesis operation gets its own history id: its label becomes an Allure parameter."""
    operation = getattr(item, "operation_label", None)
    if operation and recording(item.config):
        allure.dynamic.parameter("operation", operation)


def attach_exchanges(config: pytest.Config, exchanges: Sequence[Any]) -> None:
    """Attach a test's last exchanges (already redacted) as one text attachment."""
    if not exchanges or not recording(config):
        return
    text = "\n\n".join(exchange.describe() for exchange in exchanges[-ATTACHED:])
    allure.attach(
        text,
        name=f"exchanges ({min(len(exchanges), ATTACHED)} of {len(exchanges)})",
        attachment_type=allure.attachment_type.TEXT,
    )


def scrub(config: pytest.Config) -> None:
    """Last line of defence: no Allure result or attachment of the run keeps a secret (a traceback may hold one); the
    personal data of a run that masks it is masked here, once, in the controlling process."""
    directory = getattr(config.option, "allure_report_dir", None)
    if not directory or not Path(directory).is_dir():
        return
    for path in Path(directory).iterdir():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        clean = conceal(text)
        if clean != text:
            path.write_text(clean, encoding="utf-8")


def attach_evidence(config: pytest.Config, evidence: Sequence[dict[str, Any]]) -> None:
    """Attach a failure's evidence (check, expected/received, the exchange and its curl line)."""
    if not evidence or not recording(config):
        return
    lines = []
    for item in evidence:
        lines += [f"[{item.get('requirement') or '-'}] {item['title']}", *evidence_lines(item)]
    allure.attach(redact("\n".join(lines)), name="evidence", attachment_type=allure.attachment_type.TEXT)
