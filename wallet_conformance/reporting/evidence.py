"""A failure's evidence (judge/classification.py made it) as lines of text, for the formats that show it as text:
JUnit's failure bodies and Allure's attachments."""

from __future__ import annotations

from typing import Any


def evidence_lines(item: dict[str, Any]) -> list[str]:
    """One evidence item of the report as text, under its title: expected and received, the exchange, the curl line."""
    lines = []
    if "expected" in item:
        lines += [f"  expected: {item['expected']}", f"  received: {item['received']}"]
    if item.get("first_seen_in"):
        lines.append(f"  first seen in: {item['first_seen_in']}")
    for exchange in filter(None, [item.get("exchange"), *item.get("compared_with", ())]):
        if exchange is not item.get("exchange"):
            lines.append("  compared with:")
        lines += [
            f"  request:  {exchange['request']}",
            f"  response: {exchange['status']} {exchange['response']}",
            "Reproduce with:",
            f"  {exchange['curl']}",
        ]
    return lines
