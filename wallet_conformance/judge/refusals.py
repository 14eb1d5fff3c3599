"""Error responses, which the document leaves 'not shown' (shape, statuses, codes): which answers are refusals to
look at, and where an error code may sit in one."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from wallet_conformance.client.exchange import Exchange
from wallet_conformance.judge.failures import CannotJudge

# Names a body or meta field may give an error code under (ERR-04 records what it finds).
ERROR_CODE_FIELDS = ("code", "errorCode", "error_code", "error", "errors", "type", "reason", "details")


def refusal(exchange: Exchange, case: str) -> Exchange:
    """The exchange of an error case, which must be an error response: a case the target accepted shows none
    (whether it should have refused is ERR-05's matter), and cannot be judged."""
    if exchange.ok:
        raise CannotJudge(f"the target accepted {case} (HTTP {exchange.status}): no error response to look at")
    return exchange


# What a refusal is, where the document leaves failure statuses 'not shown': any answer but a success; but a gateway's
# or an unavailable server's (RFC 9110 sections 15.6.3-15.6.5), which did not take the request up at all.
UNAVAILABLE = frozenset({HTTPStatus.BAD_GATEWAY, HTTPStatus.SERVICE_UNAVAILABLE, HTTPStatus.GATEWAY_TIMEOUT})
# Answers that are no operation's own envelope: a 413, the refusal of a body's size that a gateway or framework in
# front of the service answers (ERR-10, SHOULD: its tests judge those, world/bad_requests.py's probes); a 304, which
# HTTP gives no content (RFC 9110 section 15.4.5), answering a client's conditional request; UNAVAILABLE's.
NOT_AN_OPERATIONS_OWN = UNAVAILABLE | {HTTPStatus.REQUEST_ENTITY_TOO_LARGE, HTTPStatus.NOT_MODIFIED}


def of_an_operation(exchange: Exchange) -> bool:
    """Whether the answer is a documented operation's own (ERR-06, MUST): not one to a request no operation serves (a
    path no operation has, a method a path does not declare), nor one of NOT_AN_OPERATIONS_OWN (the exchange judge
    holds only answers of an operation)."""
    return exchange.operation_id is not None and exchange.status not in NOT_AN_OPERATIONS_OWN


def has_meta(exchange: Exchange) -> bool:
    """Whether the body is a JSON object holding a `meta` object."""
    body = exchange.json
    return isinstance(body, dict) and isinstance(body.get("meta"), dict)


def enveloped_refusal(exchange: Exchange, case: str) -> Exchange:
    """The error response of a case, which must carry a meta object to judge what meta says (ERR-06 judges the
    envelope itself)."""
    refusal(exchange, case)
    if not has_meta(exchange):
        raise CannotJudge("the error body is not an envelope with meta (see ERR-06)")
    return exchange


def error_codes(exchange: Exchange) -> dict[str, Any]:
    """What an answer carries under a name an error code may have, in meta (`meta.<name>`) and at the body's top."""
    body = exchange.json
    meta = exchange.meta
    codes = {f"meta.{name}": meta[name] for name in ERROR_CODE_FIELDS if name in meta}
    if isinstance(body, dict):
        codes.update({name: body[name] for name in ERROR_CODE_FIELDS if name in body})
    return codes
