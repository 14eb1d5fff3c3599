"""The fault catalogue: named switches that each break one requirement of requirements.yaml.

Every member names the requirement it breaks and says, in one line, what changes. The code reads
each member at exactly one place, written `faults.on(Fault.NAME)`, so `grep Fault.NAME` finds the
whole of a fault. On the command line a fault is named in kebab case (`sixth-primary-accepted`). The machinery of
named switches (names, parsing, the set a server runs with) is switches.py's, shared with the variants.
"""

from __future__ import annotations

from wallet_conformance.reference.switches import Switch, SwitchSet
from wallet_conformance.spec import contract


class Fault(Switch):
    # What the service does: envelope, messages, pagination, money.
    VERIFY_UNDER_OTHER_PATH = ("SVC-01", "Verify is served at /transactions/verify/{reference}; its path is 404.")
    VALIDATE_REQUIRES_CHARSET = ("SVC-02", "Validate-account is 415 unless Content-Type has `; charset=utf-8`.")
    ENVELOPE_DATA_MISSING_ON_WALLET_READ = ("SVC-03", "The single-wallet read puts the wallet under `result`.")
    CONTENT_TYPE_TEXT_ON_BANK_LIST = ("SVC-04", "The bank list is served as text/plain (body unchanged).")
    STATUS_CODE_200_IN_META_ON_CREATE = ("SVC-05", "meta.statusCode is 200 on the three 201 responses.")
    SUCCESS_AS_STRING_ON_TRANSFER = ("SVC-06", 'meta.success is the string "true" on both transfer responses.')
    SUCCESS_AS_STRING_PAST_FIRST_PAGE = (
        "SVC-06",
        'meta.success is the string "true" on a list\'s pages after the first (only paging walks read them).',
    )
    MESSAGE_NOT_STRING_ON_ACCOUNT_LIST = ("SVC-07", "The account list carries meta.message 0 (a number).")
    MESSAGE_MISSING_ON_CLOSE = ("SVC-08", "The close-wallet response has no meta.message.")
    MESSAGE_ON_WALLET_READ = ("SVC-09", "The single-wallet read carries a meta.message.")
    WRONG_UPDATE_MESSAGE = ("SVC-10", "The update-account message is `account successfully updated`.")
    WRONG_CREATE_WALLET_MESSAGE = ("SVC-11", "The create-wallet message is `Virtual account successfully created`.")
    WRONG_CLOSE_MESSAGE = ("SVC-12", "The close-wallet message is `VirtualAccount successfully closed`.")
    WRONG_COLLECTION_MESSAGE = ("SVC-13", "The collection message is `Collection account successfully created`.")
    WRONG_VALIDATE_MESSAGE = ("SVC-14", "The validate-account message is `BankAccount successfully validated`.")
    WRONG_BANK_LIST_MESSAGE = ("SVC-15", "The bank list's message is `success`.")
    PAGINATION_MISSING_ON_TRANSACTIONS = ("SVC-16", "The transaction list has no meta.pagination.")
    PAGINATION_TOTAL_AS_STRING = ("SVC-17", "The wallet list's pagination.totalCount is a string.")
    TOTAL_COUNT_IS_PAGE_SIZE = ("SVC-30", "meta.pagination.totalCount is the number of entries on the page.")
    TOTAL_COUNTS_CLOSED_WALLETS = (
        "SVC-30",
        "The wallet list's totalCount also counts the closed wallets it leaves out.",
    )
    PAGINATION_ZERO_BASED = ("SVC-18", "pagination.current is one less than the page number: 0 on the first page.")
    CURRENT_ALWAYS_ONE = ("SVC-32", "pagination.current is 1 on every page.")
    VALIDATE_DATA_ARRAY = ("SVC-19", "Validate-account answers data as a one-element array.")
    DATA_OBJECT_ON_WALLET_LIST = ("SVC-20", 'The wallet list\'s data is an object {"items": [...]}.')
    BALANCE_IN_NAIRA_ON_WALLET_LIST = ("SVC-21", "Wallet list entries show balance in naira (a float).")
    CURRENCY_LOWERCASE_ON_COLLECTION = ("SVC-22", "A collection account's currency is `ngn`.")
    TIMESTAMPS_WITHOUT_MILLISECONDS_ON_TRANSACTIONS = ("SVC-23", "Transaction timestamps have no milliseconds.")
    FUNDING_NOT_CREDITED = ("SVC-24", "An inbound credit is recorded but the balance is not raised.")
    FUNDING_CREDITED_SHORT = ("SVC-24", "An inbound payment raises the balance 1% short, with no fee recorded.")
    SETTLEMENT_CREDITS_TWICE = ("SVC-25", "Settlement credits the destination wallet twice the amount.")
    CREDIT_FROM_BALANCE_AT_ACCEPTANCE = (
        "SVC-25",
        "Settlement writes the destination's balance as it was when the "
        "transfer was accepted, plus the amount: of two transfers into "
        "one wallet accepted before either settles, one credit is lost.",
    )
    BANK_TRANSFER_FEE_NOT_DEBITED = ("SVC-26", "A bank transfer debits the amount only, not the fee.")
    OVERDRAFT_ALLOWED = ("SVC-27", "The wallet-to-wallet balance check is skipped.")
    OVERDRAFT_BY_ONE_KOBO = ("SVC-27", "The balance check lets a transfer one kobo larger than the balance through.")
    HIDDEN_FEE_ABOVE_TIER = ("SVC-25", "A wallet transfer above 100,000 kobo is debited 1% beyond actualAmount.")
    CONCURRENT_OVERDRAFT = ("SVC-28", "The wallet-to-wallet balance check and debit are separated by an await.")
    BALANCE_CHECKED_THEN_DEBITED = (
        "SVC-28",
        "The wallet-to-wallet balance check and debit are one event-loop turn apart (an await of 0 s).",
    )
    SOURCE_BALANCE_WRITTEN_BACK_STALE = (
        "SVC-28",
        "A transfer reads its source's balance, awaits, then writes back "
        "that read less its own debit: of transfers sent at once, every "
        "one is accepted and completes, and the source is debited once.",
    )
    REFUSED_TRANSFER_STILL_DEBITS = (
        "SVC-31",
        "A wallet transfer refused for being below the minimum still takes its amount from the source.",
    )
    CREDIT_READ_THEN_WRITTEN = (
        "SVC-24",
        "An inbound payment's new balance is read, then written a loop turn later: of two in one turn, one is lost.",
    )
    AMOUNT_STRING_ACCEPTED_AND_ECHOED = (
        "SVC-21",
        "A collection account's amount sent as a string is accepted, kept and shown as that string.",
    )
    # Resources and their fields.
    WALLET_PREFIX_VA = ("RES-01", "Wallet publicIds start `va-`.")
    BANK_ACCOUNT_PREFIX = ("RES-02", "Validated bank account publicIds start `bacc-`.")
    TRANSACTION_PREFIX = ("RES-03", "Transaction publicIds start `txn-`.")
    EXTERNAL_SOURCE_PREFIX = ("RES-04", "External source publicIds start `ext-`.")
    BANK_PREFIX = ("RES-05", "Bank publicIds start `bank-`.")
    FEE_REFERENCE_PREFIX = ("RES-06", "Fee references start `fe_`.")
    ACCOUNT_PUBLICID_PREFIXED = ("RES-07", "Account publicIds are `acc-<uuid>`.")
    ACCOUNT_WITHOUT_BUSINESS = ("RES-10", "Accounts lack `business`.")
    ACCOUNT_ID_DIFFERS = ("RES-11", "An account's id is `acct_` + _id.")
    PUBKEY_PREFIX = ("RES-12", "Public keys start `pk_live_` and `pk_test_`.")
    WEBHOOKS_AS_STRING = ("RES-13", "An account's webhooks is a comma-joined string.")
    WEBHOOKS_STRING_ACCEPTED = (
        "RES-13",
        "An update's webhooks sent as one string is accepted and held as that string.",
    )
    WALLET_READ_WITHOUT_PROCESSOR = ("RES-20", "The single-wallet read lacks `processor`.")
    WALLET_CREATE_ID_NULL = ("RES-21", "The create-wallet response has id null.")
    WALLET_READ_WITHOUT_ID = ("RES-22", "The single-wallet read has no _id.")
    WALLET_READ_ID_INTEGER = ("RES-23", "The single-wallet read shows the integer sequence id, not _id.")
    WALLET_CREATE_ID_STRING = ("RES-24", "The create-wallet response shows id as a string.")
    WALLET_LIST_ID_STRING = ("RES-25", "Wallet list entries show id as a string.")
    WALLET_CATEGORY_UPPERCASE_ON_LIST = ("RES-26", "Wallet list entries show the category in upper case.")
    COLLECTION_WITHOUT_BANK_NAME = ("RES-30", "A collection account lacks bankName.")
    COLLECTION_PREFIX = ("RES-31", "Collection account publicIds start `col-` (wallets keep theirs).")
    COLLECTION_REFERENCE_IGNORED = ("RES-32", "A supplied collection reference is replaced by a generated one.")
    COLLECTION_REFERENCE_NOT_GENERATED = ("RES-33", "A collection account made without reference has reference null.")
    COLLECTION_PARENT_IS_OWN_NUMBER = ("RES-34", "parentAccountNumber is the collection account's own number.")
    COLLECTION_AMOUNT_IN_NAIRA = ("RES-35", "A collection account shows its amount in whole naira (amount // 100).")
    COLLECTION_AMOUNT_IN_NAIRA_WHEN_LARGE = (
        "RES-35",
        "A collection account of 10,000,000 kobo or more shows its amount in whole naira.",
    )
    COLLECTION_NUMBER_IS_PARENT = ("RES-36", "A collection account's accountNumber is its wallet's (parent kept).")
    BANK_ACCOUNT_WITHOUT_VERSION = ("RES-40", "The validated bank account lacks `version`.")
    BANK_ACCOUNT_CODE_IS_NIBSS = ("RES-41", "The validated bank account's bankCode is the bank's NIBSS code.")
    BANK_WITHOUT_SLUG = ("RES-50", "Banks lack `slug`.")
    BANK_COUNTRY_UPPERCASE = ("RES-53", "A bank's country is `NIGERIA`.")
    BANK_DELETED_AT_EMPTY = ("RES-51", "A bank's deletedAt is an empty string.")
    BANK_META_WITHOUT_NIBSS = ("RES-52", "A bank's meta lacks nibssBankCode.")
    TRANSACTION_WITHOUT_TREF = ("RES-60", "Transactions lack `tRef`.")
    INBOUND_ENTRY_CR = ("RES-61", "Inbound credits say entry `CR`.")
    INBOUND_SOURCE_TYPE_LOWERCASE = ("RES-62", "Inbound credits say sourceType `external`.")
    LISTED_BANK_DESTINATION_TYPE = ("RES-63", "Listed bank transfers have destinationType `bank_account`.")
    CLIENT_TRANSACTION_MISSING = ("RES-64", "Transactions lack clientTransaction.")
    ACTUAL_AMOUNT_EXCLUDES_FEE = ("RES-87", "Bank-transfer responses show actualAmount equal to amount.")
    CREDIT_LEG_ACTUAL_AMOUNT_ZERO = ("RES-65", "A credit leg (meta.credit) shows actualAmount 0.")
    ACTUAL_AMOUNT_WITHOUT_FEE_IN_TOP_TIER = (
        "RES-87",
        "Bank transfers in the top fee tier (above 5,000,000 kobo) "
        "show actualAmount equal to amount (the fee is still debited).",
    )
    CLIENT_TRANSACTION_FEE_ZERO = ("RES-66", "Bank transfers show clientTransaction.fee 0 (fee stays right).")
    CURRENCY_PAIR_DASH = ("RES-67", "currencyPair is written `NGN-NGN`.")
    CURRENCY_PAIR_FOREIGN_SOURCE = ("RES-67", "currencyPair reads `USD/NGN` where both parties are naira.")
    TRANSFER_DESTINATION_IS_ACCOUNT_NUMBER = ("RES-68", "A transfer's destination is the wallet's accountNumber.")
    LISTED_DESTINATION_IS_ACCOUNT_NUMBER = (
        "RES-68",
        "GET /transactions names a wallet destination by its accountNumber.",
    )
    DESTINATION_DATA_ID_STRING = ("RES-69", "destinationData.id is a string.")
    EXTERNAL_SOURCE_WITHOUT_SESSION = ("RES-70", "External sourceData lacks sessionId.")
    RATE_AS_STRING = ("RES-71", 'meta.rate.rate is the string "1.00".')
    CREDIT_LEG_WITHOUT_BALANCE = ("RES-72", "meta.credit lacks balance.")
    VERIFY_WITHOUT_BENEFICIARY = ("RES-73", "meta.verify.data.data lacks beneficiary.")
    CLIENT_RESPONSE_WITHOUT_AUTHORIZATION = ("RES-74", "meta.clientResponse lacks authorization.")
    THIRD_PARTY_AS_STRING = ("RES-75", 'meta.isThirdParty is a string ("false" or "true").')
    TRANSACTION_DELETED_AT_EMPTY = ("RES-76", 'Transactions show deletedAt "".')
    TRANSFER_REFERENCE_REPEATS = (
        "RES-79",
        "Every third transfer from a wallet gets the reference of the wallet's transfer before it.",
    )
    WALLET_LIST_NUMBER_REVERSED = (
        "RES-80",
        "Wallet list entries show the accountNumber written backwards (the create "
        "answer, reads and transactions show it right).",
    )
    INBOUND_CREDIT_LEG_WITHOUT_LINK_FIELDS = (
        "RES-81",
        "An inbound credit's credit leg lacks auth, account and linkRef.",
    )
    DESTINATION_DATA_IS_SOURCE = (
        "RES-82",
        "A wallet transfer's destinationData describes its source wallet (the credit leg's is right).",
    )
    CREDIT_LEG_DESTINATION_INTERNAL_ID = (
        "RES-83",
        "The credit leg names its destination wallet by the wallet's internal _id, not its publicId.",
    )
    CREDIT_LEG_FROM_ITS_DESTINATION = (
        "RES-84",
        "A wallet transfer's credit leg names the destination wallet as its source too (source and sourceData).",
    )
    # States and transitions.
    TRANSFER_IMMEDIATELY_SUCCESSFUL = ("STA-03", "A wallet transfer is returned with status `success`.")
    BANK_TRANSFER_STATUS_PROCESSING = ("STA-04", "A bank transfer is returned with status `processing`.")
    INBOUND_CREDIT_PENDING = ("STA-05", "Inbound credits are recorded `pending` (the balance is still raised).")
    COLLECTION_INACTIVE = ("STA-06", "A new collection account has active false.")
    COLLECTION_EXPIRATION_IN_MINUTES = ("STA-07", "expiration is expireIn minutes after creation, not seconds.")
    CLOSE_WITHOUT_ACCOUNT_NUMBER = ("STA-08", "The close-wallet response lacks accountNumber.")
    CLOSED_WALLET_STILL_TRANSFERS = ("STA-09", "A closed wallet can still send transfers.")
    # Endpoints.
    UPDATE_RETURNS_WEBHOOKS_ONLY = ("END-01", 'The update answers data {"webhooks": [...]} instead of the Account.')
    UPDATE_RETURNS_OLD_WEBHOOKS = ("END-02", "The update response shows the webhooks as they were before.")
    UPDATE_UNKNOWN_ACCOUNT_ACCEPTED = ("END-04", "PATCH of an unknown accountId updates the default account (200).")
    ACCOUNTS_LIST_WRAPPED = ("END-05", 'GET /accounts entries are {"account": {...}}.')
    ACCOUNTS_NAME_FILTER_IGNORED = ("END-06", "GET /accounts ignores the name filter.")
    UNMATCHED_NAME_LISTS_ALL = ("END-06", "GET /accounts?name= that matches no account lists every account.")
    ACCOUNTS_ISDEFAULT_FILTER_IGNORED = ("END-07", "GET /accounts ignores the isDefault filter.")
    ACCOUNTS_LIVE_FILTER_REJECTED = ("END-08", "GET /accounts?live= is answered 400.")
    WALLET_LISTED_A_MINUTE_LATE = ("END-56", "GET /virtual-accounts lists a wallet only a minute after its creation.")
    TRANSACTION_LISTED_A_MINUTE_LATE = (
        "END-57",
        "GET /transactions lists a transaction only a minute after its creation.",
    )
    COLLECTION_ACCOUNT_IS_BUSINESS = (
        "RES-86",
        "A collection account's `account` is the id of its business, not of its account.",
    )
    COLLECTION_COLLECTS_INTO_OLDEST_WALLET = (
        "END-55",
        "A collection account collects its payments into the "
        "account's oldest open wallet, whichever wallet it was made "
        "for (its answer still names that one).",
    )
    ACCOUNT_TOTAL_IGNORES_FILTERS = ("SVC-30", "GET /accounts with a filter answers the unfiltered list's totalCount.")
    CREATE_WALLET_WITH_ID = ("END-10", "The create-wallet response carries _id.")
    CREATE_WALLET_CATEGORY_ALWAYS_PRIMARY = ("END-11", "The create response says category primary whatever was asked.")
    WALLET_NAME_FROM_ACCOUNT = ("END-12", "A created wallet is named after the account, not as requested.")
    WALLET_LIST_OF_IDS = ("END-14", "GET /virtual-accounts data is a list of publicId strings.")
    WALLET_LIST_BALANCE_STALE = ("END-14", "Wallet list entries show the balance before the last transfer credited.")
    GET_WALLET_RETURNS_FIRST = ("END-16", "GET one wallet returns the caller's oldest open wallet whatever the id.")
    UNKNOWN_WALLET_200 = ("END-17", "GET an unknown wallet answers 200 with data null.")
    CLOSE_ACCOUNT_NUMBER_INTEGER = ("END-18", "The close response's accountNumber is an integer.")
    COLLECTION_CREATE_RETURNS_WALLET = ("END-20", "Create collection account answers the destination wallet as data.")
    COLLECTION_ACCEPTS_MISSING_ACCOUNT_NAME = ("END-21", "A collection account without accountName is accepted.")
    COLLECTION_ACCEPTS_UNKNOWN_DESTINATION = ("END-22", "A collection account for an unknown destination is accepted.")
    COLLECTION_REQUIRES_REFERENCE = ("END-23", "A collection account without reference is refused.")
    VALIDATE_NAME_UNRESOLVED = ("END-25", 'The validated bank account\'s accountName is "".')
    VALIDATE_ACCEPTS_MISSING_BANK_CODE = ("END-26", "Validate-account without bankCode is accepted (first bank used).")
    TRANSACTIONS_LIST_OF_REFERENCES = ("END-27", "GET /transactions data is a list of reference strings.")
    VERIFY_BY_PUBLIC_ID = ("END-28", "Verify looks the transaction up by publicId, not reference.")
    VERIFY_WITHOUT_REQUEST_SRC = ("END-29", "The verify response lacks requestSrc.")
    VERIFY_STATUS_FROZEN = (
        "END-45",
        "Verify answers the status a transaction had when it was accepted (pending), "
        "whatever the transaction list shows since.",
    )
    VERIFY_CACHED_PER_REFERENCE = (
        "END-45",
        "Verify answers each transaction as its first verify did (a cache filled "
        "then): one verified while pending stays pending there.",
    )
    UNKNOWN_REFERENCE_200 = ("END-30", "Verify of an unknown reference answers 200 with data null.")
    TRANSFER_ENTRY_CREDIT = ("END-31", "The transfer response says entry `credit`.")
    TRANSFER_DESTINATION_TYPE_WALLET = ("END-32", "The transfer response says destinationType `Wallet`.")
    BANK_TRANSFER_DESTINATION_VIRTUAL = ("END-33", "The bank-transfer response says destinationType `VirtualAccount`.")
    BANK_TRANSFER_NEGATIVE_FEE = ("END-34", "Bank-transfer fees are negative (actualAmount = amount + fee is debited).")
    OWN_WALLET_NUMBER_MASKED = (
        "RES-80",
        "A transaction masks its destination wallet's accountNumber (******0002), "
        "the caller's own wallet's too: what another business may withhold, used "
        "on the caller's own record.",
    )
    BANK_TRANSFER_DESTINATION_NUMBER_REVERSED = ("END-35", "Bank-transfer destinationData.accountNumber is reversed.")
    BANK_LIST_NAMES_ONLY = ("END-37", "GET /transactions/banks data is a list of bank names.")
    BANK_LIST_PAGINATED = ("END-38", "The bank list carries meta.pagination.")
    VERIFY_BY_PREFIX = (
        "END-42",
        "Verify, failing an exact match, answers the newest transaction whose reference starts with the path's text.",
    )
    WALLET_READ_BY_PREFIX = (
        "END-43",
        "A wallet read, failing an exact match, answers the newest wallet whose publicId starts with the path's text.",
    )
    MOBILE_WITHOUT_ISO_CODE_ACCEPTED = ("END-53", "A secondary wallet whose mobile lacks isoCode is created.")
    # Authentication.
    NO_AUTH_ON_BANK_LIST = ("AUTH-01", "GET /transactions/banks answers a request without x-service-key.")
    NO_AUTH_ON_CLOSE = ("AUTH-01", "DELETE /virtual-accounts/{walletId} works without x-service-key.")
    ANY_KEY_ACCEPTED_ON_READS = ("AUTH-02", "Any non-empty key is accepted on GET operations.")
    AUTH_REFUSAL_403 = ("AUTH-03", "A missing or wrong key is answered 403.")
    KEY_REFUSED_ON_COLLECTION_ACCOUNTS = ("AUTH-04", "POST /collection-accounts answers 401 even with the right key.")
    PUBKEY_TEST_MISSING = ("AUTH-05", "Account pubKey lacks `test`.")
    KEY_CASE_INSENSITIVE = ("AUTH-02", "The key is compared ignoring letter case.")
    KEY_PREFIX_ACCEPTED = ("AUTH-02", "A non-empty prefix of a secret key is accepted as that key.")
    KEY_WITH_SUFFIX_ACCEPTED = ("AUTH-02", "A secret key with characters appended is accepted as that key.")
    EMPTY_KEY_ACCEPTED = ("AUTH-02", "An empty x-service-key is taken as the test key.")
    KEY_FROM_QUERY_PARAMETER = (
        "AUTH-01",
        "Without the header, a key, apiKey, api_key, secretKey or x-service-key query parameter is taken as the key.",
    )
    BEARER_KEY_ACCEPTED = ("AUTH-01", "Without the header, `Authorization: Bearer <key>` is taken as the key.")
    # Isolation between accounts and businesses (records of the key's mode).
    OTHER_ACCOUNT_WALLET_READABLE = ("AUTH-10", "GET /virtual-accounts/{walletId} reads another account's wallet.")
    OTHER_ACCOUNT_WALLET_CLOSABLE = ("AUTH-11", "DELETE /virtual-accounts/{walletId} closes another account's wallet.")
    OTHER_ACCOUNT_WALLET_TRANSFERS = (
        "AUTH-12",
        "A wallet transfer takes another account's wallet as its source and debits it.",
    )
    OTHER_ACCOUNT_WALLET_BANK_TRANSFERS = (
        "AUTH-13",
        "A bank transfer takes another account's wallet as its source and debits it.",
    )
    OTHER_ACCOUNT_TRANSACTION_VERIFIABLE = ("AUTH-14", "Verify finds another account's transaction.")
    OTHER_BUSINESS_TRANSACTIONS_LISTED = (
        "AUTH-15",
        "GET /transactions also lists other accounts' and businesses' transactions.",
    )
    OTHER_BUSINESS_ACCOUNT_UPDATABLE = ("AUTH-16", "PATCH /accounts/{accountId} updates another business's account.")
    SIBLING_ACCOUNT_UPDATABLE = (
        "AUTH-21",
        "PATCH /accounts/{accountId} updates another account of the key's own business.",
    )
    SERVER_OWNED_FIELD_OVERWRITTEN = ("AUTH-20", "An update's `createdAt` (a timestamp) is applied to the account.")
    # Errors.
    COLLECTION_CREATED_200 = ("ERR-02", "Create collection account answers 200.")
    TRANSFER_201 = ("ERR-01", "A wallet transfer answers 201.")
    SUCCESS_FALSE_ON_BANK_LIST = ("ERR-03", "The bank list carries meta.success false.")
    MALFORMED_JSON_500 = ("ERR-05", "A body that is not JSON is answered 500.")
    # Input outside a stated limit refused with a 5xx: not accepted, so the limit holds; the 5xx is ERR-05's alone.
    INVALID_EMAIL_500 = ("ERR-05", "A secondary wallet with an invalid emailAddress is answered 500.")
    AMOUNT_BELOW_MINIMUM_500 = ("ERR-05", "A wallet transfer below the minimum amount is answered 500.")
    EXPIRE_IN_OUT_OF_RANGE_500 = (
        "ERR-05",
        "A collection account with expireIn out of range below the lower bound is answered 500.",
    )
    SHORT_REFERENCE_500 = ("ERR-05", "A collection reference shorter than the minimum is answered 500.")
    PLAIN_ERROR_BODY = ("ERR-06", 'Errors are {"error": message} without envelope.')
    UNKNOWN_PATH_HTML_PAGE = ("ERR-10", "A path under /v1 that no operation has is answered 404 with an HTML page.")
    WRONG_METHOD_TEXT_PAGE = ("ERR-10", "A method a path does not serve is answered 405 with a text/plain line.")
    LARGE_BODY_HTML_PAGE = (
        "ERR-10",
        "A request body over 100 KiB is answered 413 with an HTML page (Express's default body limit and error page).",
    )
    ERROR_STATUS_CODE_200_IN_META = ("ERR-07", "Error envelopes carry meta.statusCode 200.")
    ERROR_SUCCESS_TRUE = ("ERR-08", "Error envelopes carry meta.success true.")
    UNKNOWN_DESTINATION_UNANSWERED = (
        "ERR-09",
        "A collection account for a destination that is no wallet gets no answer: held until the client gives up.",
    )
    # Limits.
    SIXTH_PRIMARY_ACCEPTED = ("LIM-01", "A sixth open primary wallet is created.")
    FIFTH_PRIMARY_REFUSED = ("LIM-02", "The fifth open primary wallet is refused.")
    CLOSED_PRIMARY_STILL_COUNTED = ("LIM-03", "Closed primary wallets still count toward the limit.")
    PRIMARY_LIMIT_RACE = ("LIM-01", "The primary-wallet count and the wallet's opening are separated by an await.")
    PRIMARY_COUNTED_THEN_OPENED = (
        "LIM-01",
        "The primary-wallet count and the wallet's opening are one event-loop turn apart.",
    )
    SECONDARY_LIMITED_TO_FIVE = ("LIM-04", "A sixth open secondary wallet is refused.")
    SECONDARY_WITHOUT_EMAIL_ACCEPTED = ("LIM-05", "A secondary wallet without emailAddress is created.")
    EMAIL_NOT_VALIDATED = ("LIM-06", "Any string is accepted as emailAddress.")
    SECONDARY_WITHOUT_MOBILE_ACCEPTED = ("LIM-07", "A secondary wallet without mobile is created.")
    PRIMARY_REQUIRES_EMAIL = ("LIM-08", "Primary wallets also require emailAddress.")
    UNKNOWN_CATEGORY_ACCEPTED = ("LIM-09", "An unknown category is stored as secondary.")
    TRANSFER_MINIMUM_OFF_BY_ONE = ("LIM-10", "A wallet transfer one kobo below the minimum is accepted.")
    TRANSFER_MINIMUM_EXCLUSIVE = ("LIM-11", "A wallet transfer of exactly the minimum is refused.")
    BANK_TRANSFER_MINIMUM_MISSING = ("LIM-12", "Bank transfers have no minimum (any amount of 1 kobo or more).")
    BANK_TRANSFER_MINIMUM_EXCLUSIVE = ("LIM-13", "A bank transfer of exactly the minimum is refused.")
    EXPIRE_IN_LOWER_BOUND_OFF = ("LIM-14", "expireIn one second below the lower bound is accepted.")
    EXPIRE_IN_UPPER_BOUND_EXCLUSIVE = ("LIM-15", "expireIn of exactly the upper bound is refused.")
    EXPIRE_IN_NO_UPPER_BOUND = ("LIM-16", "expireIn has no upper bound.")
    REFERENCE_MIN_LENGTH_4 = ("LIM-17", "A collection reference one character shorter than the minimum is accepted.")
    REFERENCE_MIN_LENGTH_6 = ("LIM-18", "A collection reference of exactly the minimum length is refused.")
    DUPLICATE_REFERENCE_ACCEPTED = ("LIM-19", "A collection reference already used is accepted again.")
    REFERENCE_UNIQUE_PER_WALLET = ("LIM-19", "A collection reference is unique per wallet only; another may reuse it.")
    REFERENCE_CHECKED_THEN_STORED = (
        "LIM-19",
        "A collection reference's uniqueness check and the account's insert are one event-loop turn apart.",
    )
    PAGE_OVERFLOWS_PER_PAGE = ("LIM-21", "List pages return every entry while reporting the default perPage.")
    PAGES_OVERLAP = ("SVC-30", "Each page after the first repeats the last entry of the page before.")
    SMALL_PAGES_OVERLAP = ("SVC-30", "Under a small page size, each page repeats the last entry of the one before.")
    TOTAL_SHRINKS_PAST_FIRST_PAGE = ("SVC-30", "Past the first page, totalCount counts the entries from that page on.")
    PER_PAGE_NOT_PAGE_SIZE = ("SVC-30", "Pages hold half of meta.pagination.perPage entries (5 by default).")
    FRACTIONAL_AMOUNT_ACCEPTED = ("LIM-22", "Fractional kobo amounts on wallet transfers are accepted (rounded down).")
    TRANSFER_OTHER_CURRENCY_ACCEPTED = (
        "LIM-24",
        "A wallet transfer in a currency other than NGN is accepted (and moves naira).",
    )
    TRANSFER_OTHER_SOURCE_TYPE_ACCEPTED = (
        "LIM-25",
        "A wallet transfer with a sourceType other than VirtualAccount is "
        "accepted, and answered with the sourceType sent.",
    )
    # Events.
    WEBHOOKS_NOT_PERSISTED = ("EVT-01", "The update answers with the new webhooks but the account keeps the old ones.")
    NON_URL_WEBHOOK_ACCEPTED = ("EVT-03", "An update's webhooks that are no URLs (no scheme) are accepted and held.")
    # Money, echoes, boolean filters and isolation through lists, as implementations in other languages break them.
    TRANSFER_ACTUAL_AMOUNT_VIA_NAIRA_FLOAT = (
        "SVC-21",
        "A wallet transfer's actualAmount is worked out through its "
        "amount in naira held as a 32-bit float: exact for whole "
        "naira, fractional for an amount with kobo (10001 shows "
        "10001.000213623047).",
    )
    BALANCE_WRAPS_AT_32_BITS = (
        "SVC-24",
        "A wallet's balance is kept in a signed 32-bit integer: past 2,147,483,647 kobo it wraps below zero.",
    )
    BANK_TRANSFER_ANSWER_DROPS_NARRATION = (
        "END-70",
        'A bank transfer is answered with narration "" (the transaction '
        "keeps the one sent: verify and the list show it).",
    )
    ACCOUNTS_LIVE_FALSE_FILTERED_AS_TRUE = (
        "END-08",
        "GET /accounts?live= keeps the accounts holding a live key, "
        "whatever the value: live=false lists what live=true lists.",
    )
    WALLET_CATEGORY_FILTER_ACROSS_BUSINESSES = (
        "AUTH-15",
        "GET /virtual-accounts?category= lists the open wallets of that category of every account and business.",
    )
    PAYERS_DEBIT_LISTED_TO_PAYEE = (
        "AUTH-15",
        "GET /transactions also lists, for a transfer another business made "
        "into one of the key's wallets, that business's debit (with its "
        "balance) beside the key's credit leg.",
    )
    COLLECTION_INTO_CLOSED_WALLET_ACCEPTED = (
        "END-71",
        "A collection account for a wallet the caller closed is opened.",
    )
    # Empty lists, nulls, numbers in other spellings, lengths in characters and member names' case.
    EMPTY_WALLET_LIST_DATA_NULL = ("SVC-20", "A wallet list page with no entries answers data null.")
    EMPTY_TRANSACTION_LIST_WITHOUT_PAGINATION = (
        "SVC-16",
        "A transaction list page with no entries carries no meta.pagination.",
    )
    NULL_MOBILE_UNANSWERED = (
        "ERR-09",
        "A primary wallet's creation whose mobile is null gets no answer: held until the client gives up.",
    )
    NULL_WEBHOOK_500 = ("ERR-05", "An update whose webhooks hold a null item is answered 500.")
    COLLECTION_FRACTIONAL_AMOUNT_ACCEPTED = (
        "LIM-22",
        "A collection account's fractional amount is accepted (rounded down).",
    )
    COLLECTION_FLOAT_AMOUNT_KEPT = (
        "SVC-21",
        "A collection account's amount sent as a whole float (10000.0) is kept and shown as that float.",
    )
    EXPONENT_AMOUNT_READ_AS_MANTISSA = (
        "RES-35",
        "A collection account's amount written with an exponent (1e4) is read as the digits before the `e` (1).",
    )
    REFERENCE_LENGTH_IN_BYTES = ("LIM-17", "A collection reference's length is counted in UTF-8 bytes, not characters.")
    REFERENCE_LENGTH_IN_UTF16_UNITS = (
        "LIM-17",
        "A collection reference's length is counted in UTF-16 code units "
        "(JavaScript's `length`): a character past U+FFFF counts twice.",
    )
    NAMES_MATCHED_IGNORING_CASE = (
        "ERR-05",
        "A collection account's body field names are matched ignoring letter case (`AMOUNT` is taken for `amount`).",
    )

    def __init__(self, requirement_id: str, description: str) -> None:
        self.requirement_id = requirement_id
        self.description = description


# Every fault by its command-line name.
FAULTS: dict[str, Fault] = Fault.by_cli_name()


def list_faults() -> str:
    """Every fault, one line each: its name, the requirement it breaks, what it does."""
    width = max(len(name) for name in FAULTS)
    return "\n".join(
        f"{name:<{width}}  {fault.requirement_id:<7}  {fault.description}" for name, fault in sorted(FAULTS.items())
    )


class FaultSet(SwitchSet[Fault]):
    """The faults switched on in one server."""

    kind = Fault


# Requirements a fault breaks beyond its own, each a consequence the document implies, with why. The mutation matrix's
# precision column holds every other requirement a fault's run fails to be a defect: of the suite (a failure landing on
# the wrong requirement) or of the fault (it breaks more than one statement).
COLLATERAL: dict[Fault, dict[str, str]] = {
    Fault.OVERDRAFT_ALLOWED: {
        "SVC-28": "With no balance check at all, transfers sent at once overdraw as surely as one after the other.",
    },
    Fault.SUCCESS_AS_STRING_PAST_FIRST_PAGE: {
        "ERR-03": 'The string "true" is not the boolean true that a success\'s meta.success is.',
    },
    Fault.SUCCESS_AS_STRING_ON_TRANSFER: {
        "ERR-03": 'The string "true" is not the boolean true that a success\'s meta.success is.',
    },
    Fault.CREDIT_FROM_BALANCE_AT_ACCEPTANCE: {
        "SVC-28": "Transfers released at once into one wallet are all accepted before any settles: each credit lost is "
        "a completed concurrent transfer whose destination did not gain its amount.",
    },
    Fault.VERIFY_UNDER_OTHER_PATH: {
        "END-28": "Not served at GET /transactions/{reference}/verify, that request returns no Transaction with the "
        "reference.",
    },
    Fault.PAGINATION_ZERO_BASED: {
        "SVC-32": "Pages numbered from 0 say, on every page, a current one less than the page number (SVC-18 says "
        "the first page is 1, SVC-32 that current is the page number).",
    },
    Fault.PAGE_OVERFLOWS_PER_PAGE: {
        "SVC-30": "Every page holding every entry, each entry is on every page: no item is on one page only.",
    },
    Fault.INBOUND_CREDIT_LEG_WITHOUT_LINK_FIELDS: {
        "RES-60": "A Transaction has every field the document lists for it at every depth (schemas/transaction.json), "
        "the inbound credit leg's auth, account and linkRef among them.",
        "END-27": "GET /transactions answers an array of Transaction, each entry held to that schema.",
    },
}


# ---------------------------------------------------------------- the tables of the resources
# A requirement that holds a resource's whole table (contract.RESOURCE_TABLES) fails with every row of it: a fault that
# breaks one row (an identifier's prefix, a value the table's notes give, a field of it) breaks that table too.


def _table_rows() -> dict[Fault, dict[str, str]]:
    """Each fault whose requirement states a row of a resource's table, with the table requirements that hold it."""
    return {
        fault: {
            table: f"{fault.requirement_id} states a row of the table {table} holds whole: the row broken, the table is"
            for table in contract.tables_holding(fault.requirement_id)
        }
        for fault in Fault
        if contract.tables_holding(fault.requirement_id)
    }


# Answers of another kind than the document names, and rows shared by two tables: each failure they add, with why.
_SHAPES: dict[Fault, dict[str, str]] = {
    Fault.UPDATE_RETURNS_WEBHOOKS_ONLY: {
        "RES-10": 'The update\'s data is the Account the document names; {"webhooks": [...]} lacks every other field '
        "of the Account's table.",
    },
    Fault.ACCOUNTS_LIST_WRAPPED: {
        "RES-10": 'Each entry should be an Account; {"account": {...}} lacks every field of the Account\'s table.',
        "END-07": "The list under the isDefault filter is of the same wrapped entries: none is an account with that "
        "isDefault.",
        "END-08": "The list under the live filter is of the same wrapped entries: no list of Account, as END-08 says.",
    },
    Fault.COLLECTION_CREATE_RETURNS_WALLET: {
        "RES-30": "The wallet answered lacks the Collection account's own fields (parentAccountNumber, expiration...).",
        "RES-32": "The wallet answered carries no collection reference, so not the one supplied.",
        "RES-33": "The wallet answered carries no collection reference, so no generated one.",
        "RES-34": "The wallet answered has no parentAccountNumber.",
        "RES-35": "The wallet answered carries the wallet's balance, not the collection account's amount.",
        "RES-36": "The wallet answered has the wallet's name and number, not the collection account's own.",
        "STA-07": "The wallet answered has no expiration.",
    },
    Fault.CLOSE_WITHOUT_ACCOUNT_NUMBER: {
        "END-18": "The close answer's data has publicId and accountNumber (END-18): without accountNumber it breaks "
        "both the transition's statement and the endpoint's.",
    },
    Fault.GET_WALLET_RETURNS_FIRST: {
        "END-17": "Answering the oldest wallet whatever the id answers an unknown publicId too, where a refusal is "
        "due.",
        "END-43": "Answering the oldest wallet whatever the id answers a prefix of a publicId with a wallet too.",
    },
    Fault.SECONDARY_LIMITED_TO_FIVE: {
        "END-10": "The run's sample wallet is a further secondary one: refused, so no Wallet is returned.",
    },
    Fault.REFERENCE_MIN_LENGTH_6: {
        "END-20": "The sample collection account carries a reference of the minimum length: refused, so no Collection "
        "account is returned.",
    },
    Fault.VALIDATE_REQUIRES_CHARSET: {
        "END-25": "The documented request is refused, so no Bank account is returned.",
    },
    Fault.COLLECTION_REQUIRES_REFERENCE: {
        "END-20": "The sample collection account is created without a reference: refused, so no Collection account is "
        "returned.",
    },
    Fault.TRANSFER_DESTINATION_TYPE_WALLET: {
        "RES-60": "`Wallet` is no destinationType the Transaction's table gives (`VirtualAccount` or `BankAccount`).",
    },
    Fault.BANK_TRANSFER_DESTINATION_VIRTUAL: {
        "RES-60": "The table gives destinationData the form its destinationType names: a bank account's data under "
        "`VirtualAccount` is no wallet's.",
    },
    Fault.TRANSFER_OTHER_SOURCE_TYPE_ACCEPTED: {
        "RES-60": "The transaction answered carries the sourceType sent, which is none the Transaction's table gives.",
    },
    Fault.DATA_OBJECT_ON_WALLET_LIST: {
        "END-14": "GET /virtual-accounts answers data as an array of Wallet (END-14): an object is no array.",
    },
    Fault.BALANCE_IN_NAIRA_ON_WALLET_LIST: {
        "END-14": "Each entry of the list shows its wallet with a balance (in naira) that the wallet's own read (in "
        "kobo) does not give: the list's Wallet is not the wallet as it is.",
    },
    Fault.WALLET_PREFIX_VA: {
        "END-22": "openapi.yaml gives a collection account's destination the form of a wallet's publicId (`vba-`): "
        "the caller's wallets, named without it, are destinations of no wallet's form, and their acceptance "
        "is judged an invalid request accepted.",
    },
    Fault.ENVELOPE_DATA_MISSING_ON_WALLET_READ: {
        "END-16": "Without `data` the read returns no Wallet at all.",
    },
    Fault.KEY_REFUSED_ON_COLLECTION_ACCOUNTS: {
        "END-20": "The documented request is refused, so no Collection account is returned.",
        "END-23": "A collection account without a reference is refused too.",
    },
    Fault.PUBKEY_TEST_MISSING: {
        "RES-10": "The Account's table gives pubKey as the `live` and `test` strings: a pubKey without `test` breaks "
        "that row.",
    },
    Fault.WEBHOOKS_STRING_ACCEPTED: {
        "RES-10": "The account then holds webhooks as a string, where the Account's table gives an array of strings.",
        "END-02": "The update answers the webhooks as the string sent, not as a list of those URLs.",
    },
}


# A documented, valid request refused: SVC-01's and SVC-02's tests send each operation's documented request, at its
# path with a JSON body, and hold the operation to answering it with a 2xx envelope.
_DOCUMENTED_REQUEST_REFUSED: dict[Fault, tuple[str, ...]] = {
    Fault.BANK_TRANSFER_MINIMUM_EXCLUSIVE: ("SVC-01", "SVC-02"),
    Fault.TRANSFER_MINIMUM_EXCLUSIVE: ("SVC-01", "SVC-02"),
    Fault.COLLECTION_REQUIRES_REFERENCE: ("SVC-01", "SVC-02"),
    Fault.KEY_REFUSED_ON_COLLECTION_ACCOUNTS: ("SVC-01", "SVC-02"),
    Fault.SECONDARY_LIMITED_TO_FIVE: ("SVC-01", "SVC-02"),
    Fault.VALIDATE_REQUIRES_CHARSET: ("SVC-01",),
    Fault.VERIFY_BY_PUBLIC_ID: ("SVC-01",),
    Fault.ENVELOPE_DATA_MISSING_ON_WALLET_READ: ("SVC-01",),
}
_WHY_REFUSED = {
    "SVC-01": "The operation's documented request, sent at its documented path, is not answered with the 2xx envelope "
    "SVC-01's test holds a served operation to.",
    "SVC-02": "The documented JSON body, sent with Content-Type application/json, is refused where SVC-02 says it is "
    "accepted.",
}
# Invalid input accepted: ERR-05 states that invalid input is refused with a 4xx, and its test sends the suite's
# invalid cases, this fault's among them (an out-of-range value, an identifier that names nothing).
_INVALID_ACCEPTED = (
    Fault.AMOUNT_STRING_ACCEPTED_AND_ECHOED,
    Fault.COLLECTION_ACCEPTS_UNKNOWN_DESTINATION,
    Fault.EMAIL_NOT_VALIDATED,
    Fault.EXPIRE_IN_LOWER_BOUND_OFF,
    Fault.GET_WALLET_RETURNS_FIRST,
    Fault.REFERENCE_MIN_LENGTH_4,
    Fault.TRANSFER_MINIMUM_OFF_BY_ONE,
    Fault.UNKNOWN_REFERENCE_200,
    Fault.UNKNOWN_WALLET_200,
    Fault.UPDATE_UNKNOWN_ACCOUNT_ACCEPTED,
)
# A list whose entries are not records of its kind (wrapped, names, ids): each row of the record's table that the
# suite reads off the entries is missing from every entry.
_ENTRIES_NOT_RECORDS: dict[Fault, tuple[str, ...]] = {
    Fault.ACCOUNTS_LIST_WRAPPED: ("RES-07", "RES-11", "RES-12", "RES-13", "AUTH-05"),
    Fault.UPDATE_RETURNS_WEBHOOKS_ONLY: ("RES-07", "RES-11", "RES-12"),
    Fault.BANK_LIST_NAMES_ONLY: ("RES-05", "RES-50", "RES-51", "RES-52", "RES-53"),
    Fault.WALLET_LIST_OF_IDS: ("RES-01", "RES-20", "RES-21", "RES-22", "RES-25", "RES-26"),
}
# One value that two statements of the document rule.
_ONE_VALUE_TWO_STATEMENTS: dict[Fault, dict[str, str]] = {
    Fault.BANK_TRANSFER_DESTINATION_VIRTUAL: {
        "RES-69": "destinationData under `VirtualAccount` is held to a wallet's documented fields, which a bank "
        "account's data does not have.",
    },
    Fault.TRANSFER_DESTINATION_TYPE_WALLET: {
        "RES-63": "`Wallet` is neither `VirtualAccount` nor `BankAccount`, the destinationTypes RES-63 gives.",
    },
    Fault.COLLECTION_PARENT_IS_OWN_NUMBER: {
        "RES-36": "Its parentAccountNumber being its own number, the suite reads the wallet's number there: the "
        "collection account's accountNumber is then the wallet's as the answer shows it.",
    },
    Fault.DESTINATION_DATA_ID_STRING: {
        "RES-72": "The credit leg repeats the transaction's destinationData, with its id a string too.",
    },
    Fault.EXTERNAL_SOURCE_WITHOUT_SESSION: {
        "RES-72": "The credit leg of an inbound credit repeats its sourceData, without sessionId too.",
    },
    Fault.PAGINATION_MISSING_ON_TRANSACTIONS: {
        "END-27": "END-27 says GET /transactions returns its array with meta.pagination.",
    },
    Fault.PAGINATION_TOTAL_AS_STRING: {
        "SVC-18": "meta.pagination of a list asked without paging parameters is then no pagination of page 1 with "
        "integer fields.",
    },
    Fault.PUBKEY_TEST_MISSING: {
        "RES-12": "RES-12 states pubKey holds both `live` and `test`.",
    },
    Fault.ENVELOPE_DATA_MISSING_ON_WALLET_READ: {
        "SVC-19": "Without `data`, the single-wallet read has no data object.",
    },
}


def _declare(extra: dict[Fault, dict[str, str]]) -> None:
    """Add `extra` to COLLATERAL; a why written there already stands."""
    for fault, requirements in extra.items():
        for requirement_id, why in requirements.items():
            COLLATERAL.setdefault(fault, {}).setdefault(requirement_id, why)


_declare(_table_rows())
_declare(_SHAPES)
_declare({fault: {rid: _WHY_REFUSED[rid] for rid in rids} for fault, rids in _DOCUMENTED_REQUEST_REFUSED.items()})
_declare(
    {
        fault: {
            "ERR-05": "The request this fault accepts is invalid input, which ERR-05 says is refused with a "
            "4xx; ERR-05's test sends it among the suite's invalid cases."
        }
        for fault in _INVALID_ACCEPTED
    }
)
_declare(
    {
        fault: {
            rid: "The list's entries are not records of its kind: none shows the fields this statement is about."
            for rid in rids
        }
        for fault, rids in _ENTRIES_NOT_RECORDS.items()
    }
)
_declare(_ONE_VALUE_TWO_STATEMENTS)

# MUST and SHOULD requirements that no fault breaks, and why; every other one has a fault above.
NOT_FAULTED: dict[str, str] = {
    "END-40": (
        "Accepting the documented transfer body is the precondition of every transfer test; refusing it turns "
        "every money and transfer test red at once, so no fault singles the requirement out."
    ),
    "END-41": (
        "Accepting the documented bank-transfer body is the precondition of every bank-transfer test; refusing it "
        "turns every money and transfer test red at once, so no fault singles the requirement out."
    ),
    "AUTH-07": (
        "The reference's HTTP server (uvicorn with h11) gives the application header names in lower case: how the "
        "client spelled x-service-key never reaches the code, so no fault can refuse one spelling."
    ),
    "AUTH-08": (
        "h11 strips the whitespace around a header's value before the application sees it: no fault can keep it."
    ),
    "VER-01": (
        "The version segment is the suite's configuration (it refuses a base URL not ending in /v1); "
        "a server cannot break it."
    ),
}
