"""PATCH /accounts/{accountId} and GET /accounts."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from starlette.requests import Request
from starlette.responses import Response

from wallet_conformance.reference import fields, serialize
from wallet_conformance.reference.errors import ApiError, Refusal, crash, invalid
from wallet_conformance.reference.faults import Fault
from wallet_conformance.reference.paging import paginate
from wallet_conformance.reference.service import DOCUMENTED, Call, envelope, operation, reply
from wallet_conformance.reference.variants import Variant

# The documented filters of GET /accounts.
FILTERS = ("name", "isDefault", "live")


def _absolute_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _timestamp(value: object) -> datetime | None:
    """A sent ISO 8601 timestamp (None when it is not one)."""
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    if moment is None:
        return None
    return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# Hosts no one can receive at (RFC 2606, RFC 6761): a server may refuse them as webhooks.
RESERVED_HOSTS = ("localhost", ".invalid", ".test", ".example", ".localhost")


def _reserved(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return any(host == name.lstrip(".") or host.endswith(name) for name in RESERVED_HOSTS)


def _webhooks(call: Call, body: fields.Body) -> list[str]:
    """The webhooks of an update: URLs (http(s) ones under a variant), sorted under another."""
    if isinstance(body.get("webhooks"), list) and None in body["webhooks"] and call.faults.on(Fault.NULL_WEBHOOK_500):
        raise crash()
    webhooks = fields.webhooks(body, urls_checked=not call.faults.on(Fault.NON_URL_WEBHOOK_ACCEPTED))
    if call.variants.on(Variant.WEBHOOK_URLS_CHECKED) and not all(_absolute_url(url) for url in webhooks):
        raise invalid("webhooks", "must hold absolute http(s) URLs")
    if call.variants.on(Variant.RESERVED_WEBHOOK_HOSTS_REFUSED) and any(_reserved(url) for url in webhooks):
        raise invalid("webhooks", "must not name a reserved host")
    if call.variants.on(Variant.WEBHOOKS_NORMALISED):
        webhooks = [_normal_url(url) for url in webhooks]
    if call.variants.on(Variant.WEBHOOKS_SORTED):
        webhooks = sorted(webhooks)
    return webhooks


def _normal_url(url: str) -> str:
    """A URL as a URL type of a web framework keeps it: scheme and host in lower case, no default port, a path; one
    whose host or port cannot be read (`x://h:99999`, `x://[::1`) as it was sent."""
    try:
        parts = urlsplit(url)
        port_number = parts.port
    except ValueError:
        return url
    if not parts.netloc or parts.hostname is None:
        return url
    scheme, host = parts.scheme.lower(), f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}.get(scheme)
    port = f":{port_number}" if port_number is not None and port_number != default else ""
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@{host}{port}" if userinfo else f"{host}{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, parts.fragment))


@operation("updateAccount")
async def update_account(request: Request, call: Call) -> Response:
    # Only the key's own account: another of its business is refused, another business's is not found.
    try:
        account = call.store.account_to_update(
            call.caller,
            request.path_params["accountId"],
            sibling=call.faults.on(Fault.SIBLING_ACCOUNT_UPDATABLE),
            other_business=call.faults.on(Fault.OTHER_BUSINESS_ACCOUNT_UPDATABLE),
        )
    except ApiError as error:
        if error.refusal is not Refusal.NOT_FOUND or not call.faults.on(Fault.UPDATE_UNKNOWN_ACCOUNT_ACCEPTED):
            raise
        account = call.caller.account
    body = await fields.json_body(request, call.faults)
    # webhooks is the one updatable field; an update without it changes nothing. Every other field of the body is
    # ignored, the server-owned ones (_id, id, publicId, business, pubKey, createdAt, __v) above all.
    webhooks: list[str] | str = list(account.webhooks)
    if isinstance(body.get("webhooks"), str) and call.faults.on(Fault.WEBHOOKS_STRING_ACCEPTED):
        webhooks = body["webhooks"]
    elif fields.present(body, "webhooks"):
        webhooks = _webhooks(call, body)
    created = _timestamp(body.get("createdAt"))
    if created is not None and call.faults.on(Fault.SERVER_OWNED_FIELD_OVERWRITTEN):
        account.created_at = created
    before = serialize.account(account, call.faults)
    if call.faults.on(Fault.WEBHOOKS_NOT_PERSISTED):
        shown = before | {"webhooks": webhooks}
    else:
        if webhooks != account.webhooks:
            call.store.set_webhooks(account, webhooks)
        shown = serialize.account(account, call.faults)
    if call.faults.on(Fault.UPDATE_RETURNS_OLD_WEBHOOKS):
        shown["webhooks"] = before["webhooks"]
    if call.faults.on(Fault.UPDATE_RETURNS_WEBHOOKS_ONLY):
        shown = {"webhooks": shown["webhooks"]}
    return reply(*envelope(call, "updateAccount", shown))


@operation("listAccounts")
async def list_accounts(request: Request, call: Call) -> Response:
    name = request.query_params.get("name")
    is_default = fields.boolean_query(request, "isDefault")
    live = fields.boolean_query(request, "live")
    if live is not None and call.faults.on(Fault.ACCOUNTS_LIVE_FILTER_REJECTED):
        raise Refusal.INVALID_QUERY.error(field="live", problem="is not supported")
    unfiltered = accounts = call.store.listed_accounts(call.caller)
    if name is not None and not call.faults.on(Fault.ACCOUNTS_NAME_FILTER_IGNORED):
        if call.variants.on(Variant.NAME_FILTER_SUBSTRING):
            accounts = [account for account in accounts if name.casefold() in account.name.casefold()]
        else:
            accounts = [account for account in accounts if account.name == name]
        if not accounts and call.faults.on(Fault.UNMATCHED_NAME_LISTS_ALL):
            accounts = unfiltered
    if is_default is not None and not call.faults.on(Fault.ACCOUNTS_ISDEFAULT_FILTER_IGNORED):
        accounts = [account for account in accounts if account.is_default == is_default]
    # Accounts serve both modes and carry no live field: the live filter is accepted and keeps them all.
    if live is not None and call.faults.on(Fault.ACCOUNTS_LIVE_FALSE_FILTERED_AS_TRUE):
        holding = {credential.account.id for credential in call.store.credentials.values() if credential.live}
        accounts = [account for account in accounts if account.id in holding]  # live=true's reading, either value
    page, pagination = paginate(request, accounts, call, filters=FILTERS)
    if call.faults.on(Fault.ACCOUNT_TOTAL_IGNORES_FILTERS):
        pagination["totalCount"] = len(unfiltered)
    data: list[Any] = [serialize.account(account, call.faults) for account in page]
    if call.faults.on(Fault.ACCOUNTS_LIST_WRAPPED):
        data = [{"account": entry} for entry in data]
    message: Any = DOCUMENTED
    if call.faults.on(Fault.MESSAGE_NOT_STRING_ON_ACCOUNT_LIST):
        message = 0
    return reply(*envelope(call, "listAccounts", data, message=message, pagination=pagination))
