"""The variant catalogue: named switches that each take another legitimate reading of one point the
document leaves open ('not shown', or simply not said).

A fault breaks a sentence of the document; a variant breaks none. Each member quotes the sentence
that leaves its point open and says, in one line, what a client sees. The code reads each member at
exactly one place, written `variants.on(Variant.NAME)`, so `grep Variant.NAME` finds the whole of a
variant. Variants combine with each other and with faults; on the command line a variant is named in
kebab case (`lists-oldest-first`), and `all` switches every one on. The machinery of named switches (names,
parsing, the set a server runs with) is switches.py's, shared with the faults.

The conformance suite must pass the reference with any set of variants on: a failure against a
variant is a failure of the suite (it assumed something the document does not say).
"""

from __future__ import annotations

from collections.abc import Iterable

from wallet_conformance.reference.switches import Switch, SwitchSet

ERRORS = "Error response shape, failure status codes and error codes: not shown."
PAGING = "Request parameters for paging (page number, page size) on list endpoints: not shown."
TRANSACTION_LIST = "Lists transactions. Response 200: `data` array of Transaction, with `meta.pagination`."
ACCOUNT_LIST = "Lists accounts."
CLOSE = "Closes a wallet. No body. Response 200: `data` has `publicId` and `accountNumber` (strings)."
TRANSITIONS = "Transitions between transaction statuses: not shown."
STATUSES = "Transaction status: `pending` and `success` are the observed values. Full set of values: not shown."
TRANSFER_ACCEPTED = (
    "| Transaction (debit) | none | POST /transactions/transfer accepted | valid request | `pending` "
    "| response returns the transaction with fee and actualAmount |"
)
BANK_TRANSFER_FEE = (
    "Response 200: `data` is a Transaction with status `pending`, `destinationType` `BankAccount`, and a `fee` "
    "that may be greater than 0."
)
ACTUAL_AMOUNT = "equals amount plus fee in the observed debit with a fee, and equals amount when fee is 0"
ENVELOPE = "Every response is a JSON envelope with `meta` and `data`."
TIMESTAMPS = "Timestamps are ISO 8601 UTC strings with milliseconds."
INTERNAL_FIELDS = (
    "Meaning of the internal fields `auth`, `account`, `business`, `_id`, `__v`, `version`, `clientIds`, `tags`, "
    "`metadata`, `batchId`, `debitReference`, `requestSrc`, `tRef`, `linkRef`: not shown."
)
RATE_LIMITS = "Rate limits: not shown."
KEY = (
    "Every endpoint requires the header `x-service-key` whose value is the account's secret key, written <SECRET_KEY>."
)
EVENTS = "Event kinds, payloads, delivery rules and signing of deliveries: not shown."
WEBHOOKS = "| webhooks | array of strings | URLs; settable by update |"
INBOUND = (
    "| Transaction (credit, inbound) | none | external payment into a wallet | | `success` "
    "| recorded with sourceType `External` |"
)
FILTERS = "| Query | `name` (string), `isDefault` (boolean), `live` (boolean); all optional filters |"
BANK_FIELDS = "| deletedAt | timestamp or null | |"
PRIMARY_LIMIT = "Categories: primary wallets are for the caller's own use, at most five at any time."
CUSTOMERS = "Secondary wallets are assigned to the caller's users or customers, and have no creation limit."
TRANSFER_DESTINATION = "| destination | string | publicId of the receiving wallet |"
COLLECTION_DESTINATION = "| destination | string | yes | publicId of the receiving wallet |"
BODIES = "Requests that have a body are JSON, sent with the header `Content-Type: application/json`."
COLLECTION_REFERENCE = "| reference | string | no | when provided, unique and at least 5 characters |"
PAGE_SIZE = "| Page size | list responses | `perPage` 10 observed |"
VERIFY = "Returns one transaction. `reference` is the transaction's `reference`."
VERIFY_KEY = "| reference | string | the key for the verify operation |"
CREDIT_LEG = "`meta` of a transaction may hold:"
BANK_CURRENCY = "| currency | string | |"
REQUIRED_FIELDS = (
    "Whether accountName and currency are required when creating a wallet, and whether narration is required "
    "on transfers: not shown."
)


class Variant(Switch):
    # Errors: statuses, shape and codes.
    VALIDATION_422 = (ERRORS, "Invalid input (fields, query, JSON) is answered 422 instead of 400.")
    UNKNOWN_RECORD_400 = (ERRORS, "An unknown account, wallet, transaction or bank account is answered 400, not 404.")
    CONFLICTS_400 = (ERRORS, "A used collection reference and the primary-wallet limit are answered 400, not 409.")
    INSUFFICIENT_BALANCE_402 = (ERRORS, "A transfer the balance cannot cover is answered 402, not 400.")
    OTHERS_RECORDS_403 = (ERRORS, "Another account's wallets and transactions are refused 403, not 404.")
    OTHER_ACCOUNT_UPDATE_404 = (ERRORS, "Updating another account of the business is answered 404, not 403.")
    ERROR_DETAILS = (ERRORS, 'Errors carry meta.code and data {"errors": [{"code", "message"}]} instead of null.')
    STRICT_QUERY = (PAGING, "A query parameter a list does not know is refused (400), paging included.")
    # Paging.
    PAGING_PAGE_LIMIT = (PAGING, "Lists are paged by `page` and `limit` (`perPage` is ignored).")
    PAGING_OFFSET_LIMIT = (PAGING, "Lists are paged by `offset` and `limit` (current = offset / limit + 1).")
    PAGING_ZERO_BASED = (
        PAGING,
        "Lists are paged by `page`, counted from 0, and `size`; meta.pagination.current counts from 1.",
    )
    PER_PAGE_CAPPED = (PAGING, "A page size above 20 is clamped to 20 (and pagination.perPage says 20).")
    PER_PAGE_LIMITED = (PAGING, 'A page size above 50 is refused with 400 ("must be at most 50").')
    PAGE_SIZE_20 = (PAGE_SIZE, "Lists asked without a page size hold 20 entries a page (perPage 20).")
    # List order.
    LISTS_OLDEST_FIRST = (TRANSACTION_LIST, "Wallets and transactions are listed oldest first.")
    ACCOUNTS_NEWEST_FIRST = (ACCOUNT_LIST, "Accounts are listed newest first (the default account last).")
    # Closed wallets.
    CLOSED_WALLET_READABLE = (CLOSE, "GET of a closed wallet answers 200 with the wallet.")
    CLOSED_WALLET_LISTED = (CLOSE, "Closed wallets stay in GET /virtual-accounts.")
    CLOSE_IS_IDEMPOTENT = (CLOSE, "Closing a closed wallet again answers 200 and the same data.")
    FUNDED_WALLET_NOT_CLOSABLE = (CLOSE, "A wallet that holds money cannot be closed (409) until it is empty.")
    # Settlement: timing, status word, when balances move.
    SLOW_SETTLEMENT = (
        TRANSITIONS,
        "Transfers settle three settle delays late (0.6 s at most); the sandbox settle is 404.",
    )
    SETTLED_STATUS_SUCCESSFUL = (STATUSES, "A settled transfer's status is `successful`.")
    DEBIT_AT_SETTLEMENT = (TRANSFER_ACCEPTED, "The source is debited at settlement (the amount is held until then).")
    CREDIT_AT_ACCEPTANCE = (TRANSFER_ACCEPTED, "A wallet transfer credits the destination on acceptance.")
    OVERDRAFT_FAILS_LATER = (
        TRANSITIONS,
        "A transfer the balance cannot cover is accepted `pending`, then ends `failed`; no money moves.",
    )
    BALANCES_POSTED_LATER = (
        TRANSITIONS,
        "A settled transfer shows in the balances 0.3 s after its status leaves `pending`.",
    )
    PAYOUTS_ABOVE_LIMIT_FAIL = (
        STATUSES,
        "A bank transfer above 300 naira ends `failed` at settlement, and its debit is given back.",
    )
    FAILED_PAYOUT_KEEPS_FEE = (
        STATUSES,
        "A bank transfer above 300 naira ends `failed` at settlement; its amount is given back, its fee kept.",
    )
    CLOSED_WALLET_FAILS_LATER = (
        TRANSITIONS,
        "A wallet transfer from or to a closed wallet is accepted `pending`, then ends `failed`; no money moves.",
    )
    # Fees.
    WALLET_TRANSFER_FEE = (ACTUAL_AMOUNT, "Wallet transfers cost a fee of 1,000 kobo: actualAmount = amount + fee.")
    BANK_TRANSFER_FREE = (BANK_TRANSFER_FEE, "Bank transfers cost no fee (fee 0, feeReference null).")
    BANK_TRANSFER_FEE_ABOVE_MINIMUM = (
        BANK_TRANSFER_FEE,
        "Bank transfers cost a flat fee of 150 naira, more than the minimum transfer itself.",
    )
    # What a record shows where the document leaves it open.
    VERIFY_ANY_CASE = (VERIFY, "Verify matches a reference in any letter case.")
    REFERENCES_PER_ACCOUNT = (
        VERIFY_KEY,
        "Transaction references are numbered per account, so two accounts' transactions may share one.",
    )
    NO_CREDIT_LEG = (
        CREDIT_LEG,
        "Settlement credits the destination but records no credit leg (no meta.credit, no credit transaction).",
    )
    BANK_CURRENCY_NUMERIC = (BANK_CURRENCY, "A bank's currency is the ISO 4217 numeric code `566`.")
    # Extra fields and headers.
    EXTRA_FIELDS = (INTERNAL_FIELDS, 'Every record carries extra fields ("object", and "status" on wallets).')
    REVISION_KEPT_ON_UPDATE = (INTERNAL_FIELDS, "An update that changes an account leaves its `__v` as it was.")
    EXTRA_META = (ENVELOPE, "meta also carries requestId and timestamp.")
    EXTRA_HEADERS = (RATE_LIMITS, "Responses carry X-Request-Id, RateLimit-* and Cache-Control headers.")
    CONTENT_TYPE_CHARSET = (ENVELOPE, "Responses declare `application/json; charset=utf-8`.")
    TIMESTAMPS_UTC_OFFSET = (TIMESTAMPS, "Timestamps carry the UTC offset +00:00 instead of Z.")
    # Keys.
    WRONG_KEY_403 = (KEY, "A wrong key is answered 403 (a missing one still 401).")
    # Events and webhooks.
    WEBHOOK_ON_ACCEPTANCE = (EVENTS, "Webhooks also get `transfer.created` when a transfer is accepted.")
    WEBHOOK_BARE_TRANSACTION = (EVENTS, "Deliveries are the bare Transaction, signed in `x-signature`.")
    WEBHOOK_URLS_CHECKED = (WEBHOOKS, "An update whose webhooks are not all http(s) URLs is refused (ftp:// say).")
    WEBHOOKS_SORTED = (WEBHOOKS, "An account keeps its webhooks sorted, not in the order the update sent them.")
    WEBHOOKS_NORMALISED = (
        WEBHOOKS,
        "An account keeps each webhook in its normal form (RFC 3986): `HTTPS://Hooks.Example:443` as "
        "`https://hooks.example/`.",
    )
    RESERVED_WEBHOOK_HOSTS_REFUSED = (
        EVENTS,
        "An update whose webhooks name a reserved host (.invalid, .test, .example, localhost) is refused (400).",
    )
    # Sandbox.
    FUNDING_DELAYED = (
        INBOUND,
        "The funding hook answers 202; the credit arrives a settle delay later (0.25 s at most).",
    )
    INBOUND_PAYMENT_FEE = (
        INBOUND,
        "An inbound payment is credited less a fee of 1%: the credit's amount is what the wallet gets, its fee the "
        "levy, its actualAmount what was paid.",
    )
    INBOUND_PAYMENT_FEE_NET = (
        ACTUAL_AMOUNT,
        "An inbound payment is credited less a fee of 1%: the credit's amount is what was paid, its fee the levy, its "
        "actualAmount what the wallet gets (amount less fee).",
    )
    INBOUND_LEVY_DEBITED = (
        INBOUND,
        "An inbound payment is credited whole, then a levy of 1% is debited from the wallet as a transaction of its "
        "own (to a bank account).",
    )
    # Filters and what the account already holds.
    NAME_FILTER_SUBSTRING = (FILTERS, "GET /accounts?name= matches names containing the text, ignoring case.")
    MORE_ACCOUNTS = (ACCOUNT_LIST, "The business holds twelve more accounts (more than a page), some names alike.")
    INACTIVE_BANK_FIRST = (BANK_FIELDS, "The bank list starts with an inactive, deleted bank that refuses payments.")
    PREEXISTING_RECORDS = (
        PRIMARY_LIMIT,
        "The account already holds 2 primary and 12 secondary wallets and 12 credits the run did not make.",
    )
    ACCOUNTS_OWN_ONLY = (ACCOUNT_LIST, "GET /accounts lists the key's own account only, not the business's others.")
    # Whose wallets money may go to.
    TRANSFERS_WITHIN_BUSINESS = (
        TRANSFER_DESTINATION,
        "A transfer into another business's wallet is refused (404, as an unknown wallet).",
    )
    OTHER_BUSINESS_WITHHELD = (
        TRANSFER_DESTINATION,
        "Where a transaction or collection account shows another business's wallet, its "
        "accountName is masked, its accountNumber left out (a parent number masked), and a "
        "credit leg into it has balance null.",
    )
    COLLECTIONS_INTO_ANY_WALLET = (
        COLLECTION_DESTINATION,
        "A collection account may be made for another account's wallet, of any business.",
    )
    COLLECTION_REFERENCE_IDEMPOTENT = (
        COLLECTION_REFERENCE,
        "A collection account request repeating an earlier one (reference, destination, amount, accountName) is "
        "answered with the account it opened; only another request with its reference is refused.",
    )
    # Secondary wallets: one per customer.
    CUSTOMERS_UNIQUE = (
        CUSTOMERS,
        "A secondary wallet whose emailAddress or mobile phoneNumber an earlier one of the account had is refused "
        "(409).",
    )
    # Required fields.
    WALLET_NAME_REQUIRED = (REQUIRED_FIELDS, "accountName and currency are required to create a wallet.")
    NARRATION_REQUIRED = (REQUIRED_FIELDS, "narration is required (non-empty) on both transfers.")
    # Request bodies: how strictly JSON types are read.
    NUMERIC_STRINGS_PARSED = (
        BODIES,
        'An amount or expireIn sent as a numeric string ("2500") is read as that number, and kept as one.',
    )

    def __init__(self, quote: str, description: str) -> None:
        self.quote = quote
        self.description = description


# Every variant by its command-line name.
VARIANTS: dict[str, Variant] = Variant.by_cli_name()
ALL = "all"


def list_variants() -> str:
    """Every variant: its name, what it does, and the sentence of the document it rests on."""
    width = max(len(name) for name in VARIANTS)
    lines = []
    for name, variant in sorted(VARIANTS.items()):
        lines += [f"{name:<{width}}  {variant.description}", f"{'':<{width}}  rests on: {variant.quote}"]
    return "\n".join(lines)


class VariantSet(SwitchSet[Variant]):
    """The variants switched on in one server (`all`: every one)."""

    kind = Variant
    every = ALL


def expand(names: Iterable[str | Variant]) -> list[Variant]:
    """Variants from names, `all` standing for every variant."""
    return VariantSet.expand(names)
