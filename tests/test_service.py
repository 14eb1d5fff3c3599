"""What the service does: the general conventions every response follows (envelope, meta, types)."""

import pytest

from wallet_conformance.judge import checks, envelope
from wallet_conformance.scenarios import account_queries, closed_wallets, long_lists
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import catalogue
from wallet_conformance.world import lists, page_checks

OPERATIONS = tuple(contract.operations())
MESSAGE_PRESENT = catalogue()[contract.MESSAGE_PRESENT].operations
MESSAGE_ABSENT = catalogue()[contract.MESSAGE_ABSENT].operations
PAGED = contract.paginated_operations()
SINGLE_RECORD = catalogue()[contract.SINGLE_RECORD].operations
LISTS = catalogue()["SVC-20"].operations
ACCOUNT_QUERIES = account_queries.queries()
# The most reads of the wallet list's first pages in search of two alike (lists.judgeable).
READ_AGAIN = 4
PAGES_READ = 3  # the first pages of the wallet list whose numbering and overlaps are judged
MESSAGES = [
    pytest.param(
        requirement_id,
        operation_id,
        marks=pytest.mark.requirement(requirement_id),
        id=f"{requirement_id}-{operation_id}",
    )
    for requirement_id in contract.MESSAGE_REQUIREMENTS
    for operation_id in catalogue()[requirement_id].operations
]


@pytest.mark.requirement("SVC-01")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_operation_is_served_under_the_base_url(samples, operation_id):
    """Each operation answers a valid request at {base_url} plus its documented path with a 2xx JSON envelope."""
    # Evidence from the target, not from the suite's configuration: the documented path answered as the API does.
    envelope.json_envelope(samples.accepted(operation_id))


@pytest.mark.requirement("SVC-02")
@pytest.mark.parametrize("operation_id", contract.write_operations())
def test_json_request_body_is_accepted(samples, operation_id):
    """A valid JSON body sent with Content-Type application/json is accepted: a 2xx JSON envelope answers it."""
    envelope.json_envelope(samples.accepted(operation_id))


@pytest.mark.requirement("SVC-03")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_response_is_an_envelope(samples, operation_id):
    """The success response is a JSON object holding meta and data."""
    envelope.json_envelope(samples(operation_id))


@pytest.mark.requirement("SVC-04")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_response_is_labelled_json(samples, operation_id):
    """The success response declares Content-Type application/json."""
    envelope.content_type_json(samples(operation_id))


@pytest.mark.requirement("SVC-05")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_meta_status_code_repeats_http_status(samples, operation_id):
    """meta.statusCode is an integer equal to the HTTP status."""
    envelope.meta_status_code(samples(operation_id))


@pytest.mark.requirement("SVC-06")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_meta_success_is_boolean(samples, operation_id):
    """meta.success is a JSON boolean."""
    envelope.meta_success_is_boolean(samples(operation_id))


@pytest.mark.requirement("SVC-07")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_meta_message_is_string(samples, operation_id):
    """meta.message, when present, is a string."""
    envelope.message_is_string(samples(operation_id))


@pytest.mark.requirement("SVC-08")
@pytest.mark.parametrize("operation_id", MESSAGE_PRESENT)
def test_meta_message_is_present(samples, operation_id):
    """meta.message is present on create, update, delete and transfer responses and on the bank list."""
    envelope.message_presence(samples(operation_id))


@pytest.mark.requirement("SVC-09")
@pytest.mark.parametrize("operation_id", MESSAGE_ABSENT)
def test_meta_message_is_absent(samples, operation_id):
    """meta.message is absent from the single-wallet read, the transaction list and the verify response."""
    envelope.message_presence(samples(operation_id))


@pytest.mark.parametrize(("requirement_id", "operation_id"), MESSAGES)
def test_meta_message_is_the_documented_one(samples, requirement_id, operation_id):
    """meta.message of a success response is exactly the document's message for the operation."""
    envelope.message_value(samples(operation_id), requirement=requirement_id)


@pytest.mark.requirement("SVC-16")
@pytest.mark.parametrize("operation_id", PAGED)
def test_pagination_is_present_on_paged_lists(samples, operation_id):
    """meta.pagination is present on the account, wallet and transaction lists."""
    envelope.pagination_presence(samples(operation_id))


@pytest.mark.requirement("SVC-17")
@pytest.mark.parametrize("operation_id", PAGED)
def test_pagination_fields_are_integers(samples, operation_id):
    """meta.pagination holds integer totalCount, perPage and current."""
    envelope.pagination_shape(samples(operation_id))


@pytest.mark.requirement("SVC-18")
@pytest.mark.parametrize("operation_id", PAGED)
def test_unpaged_request_is_page_one(samples, operation_id):
    """A list asked for without paging parameters is page 1."""
    pagination = envelope.pagination_shape(samples(operation_id))
    checks.equals(pagination["current"], 1, "meta.pagination.current is 1 on the first page", samples(operation_id))


@pytest.fixture(scope="module")
def long_wallet_list(api, resources) -> list[str]:
    """Wallets of this module's own, one more than a page holds: the wallet list is then longer than one page."""
    return long_lists.wallets_past_one_page(api, resources)


@pytest.mark.requirement("SVC-30")
@pytest.mark.xdist_group("long-wallet-list")  # under xdist, one worker makes the module's long list
def test_total_count_and_per_page_hold_on_a_long_list(api, long_wallet_list):
    """On a wallet list longer than a page, totalCount counts at least the wallets made and page 1 holds perPage."""
    exchange = api.call("listWallets")
    checks.accepted(exchange, "GET /virtual-accounts without parameters")
    shown = lists.pagination(exchange)
    total, per_page = shown.get("totalCount"), shown.get("perPage")
    if type(total) is not int or type(per_page) is not int:
        pytest.skip(f"totalCount {total!r} or perPage {per_page!r} is not an integer (see SVC-17)")
    if not isinstance(exchange.data, list):
        pytest.skip("data is no array (see SVC-20): how many wallets page 1 holds cannot be counted")
    made = len(long_wallet_list)
    if total < made:
        checks.fail(
            "meta.pagination.totalCount counts every wallet of the list, across its pages",
            f"at least {made} (the open wallets this test made)",
            total,
            exchange,
        )
    # A page holding more than perPage is LIM-21's matter; one holding fewer, on a list longer than it, is this one's.
    if len(exchange.data) <= per_page:
        checks.equals(
            len(exchange.data),
            min(per_page, total),
            f"a page before the last holds meta.pagination.perPage ({per_page}) entries",
            exchange,
        )


@pytest.mark.requirement("SVC-30", "SVC-32")
@pytest.mark.xdist_group("long-wallet-list")  # under xdist, one worker makes the module's long list
def test_pages_are_numbered_and_do_not_overlap(api, resources, long_wallet_list):
    """Under the paging parameters the target honours, page k says current k, is full, and shares no wallet."""
    scheme = lists.discover(api, "listWallets")
    if scheme is None:
        pytest.skip(
            f"no paging parameters the suite tried ({lists.tried()}) selected page 2 of the wallet list; "
            "the document does not show which do, so page numbers and overlaps cannot be checked"
        )
    with resources.wallet_list_still():
        pages = lists.judgeable(
            lambda: lists.first_pages(api, "listWallets", scheme, PAGES_READ),
            READ_AGAIN,
            clean=lambda read: not page_checks.numbering_problems(read, scheme),
        )
    if pages is None:
        pytest.skip(
            f"the wallet list kept changing while it was read ({READ_AGAIN} reads of its first pages; other "
            "clients of the account may be adding or closing wallets): not judged"
        )
    problems = page_checks.numbering_problems(pages, scheme)
    for judged in (page_checks.CURRENT, page_checks.PAGES):
        checks.no_problem([problem for requirement, problem in problems if requirement == judged], requirement=judged)
    for exchange in pages:
        shown = lists.pagination(exchange)
        total, per_page = shown.get("totalCount"), shown.get("perPage")
        if type(total) is not int or type(per_page) is not int or per_page < 1:
            pytest.skip(
                f"totalCount {total!r} or perPage {per_page!r} is not a usable integer (see SVC-17): "
                "page numbers and overlaps hold, how full each page is cannot be checked"
            )


@pytest.mark.requirement("SVC-30")
def test_total_count_leaves_out_the_closed_wallets_the_list_leaves_out(api, resources):
    """After a close, the wallet list's totalCount is the wallets its pages hold: a closed one counts only if listed."""
    after = closed_wallets.wallet_list_after_a_close(api, resources, READ_AGAIN)
    if after.walk is None:
        pytest.skip(
            f"the wallet list kept changing while it was read ({READ_AGAIN} reads; other clients of the "
            "account may be adding or closing wallets): not judged"
        )
    shown = "listed, as a target may list one" if after.listed else "left out of the list"
    checks.no_problem(
        page_checks.count_problems(after.walk, "the wallet list"),
        detail=f"the wallet {after.public_id}, closed just before, is {shown}",
    )


@pytest.mark.requirement("SVC-30")
@pytest.mark.parametrize("query", ACCOUNT_QUERIES, ids=str)
def test_account_total_count_is_what_the_pages_hold(api, resources, query):
    """GET /accounts, unfiltered and under each filter, answers as totalCount the number of accounts its pages hold."""
    listing = account_queries.read(api, resources, query)
    if not listing.first.ok:
        pytest.skip(f"GET /accounts?{query} was refused (HTTP {listing.first.status}; END-05..END-08 judge that)")
    checks.no_problem(page_checks.count_problems(listing, f"GET /accounts ({query})"))


@pytest.mark.requirement("SVC-19")
@pytest.mark.parametrize("operation_id", SINGLE_RECORD)
def test_single_record_data_is_object(samples, operation_id):
    """data is an object on single-record responses."""
    envelope.data_is_object(samples(operation_id))


@pytest.mark.requirement("SVC-20")
@pytest.mark.parametrize("operation_id", LISTS)
def test_list_data_is_array(samples, operation_id):
    """data is an array on list responses."""
    envelope.data_is_array(samples(operation_id))


@pytest.mark.requirement("SVC-16", "SVC-20")
@pytest.mark.parametrize("client", ["api", "second_api"], ids=["own", "second-business"])
@pytest.mark.parametrize("operation_id", PAGED)
def test_an_empty_page_keeps_the_shape_of_a_list(request, operation_id, client):
    """An empty list, or a page past its end (own, second business's), is still an array with meta.pagination."""
    api = request.getfixturevalue(client)
    page = lists.empty_page(api, operation_id)
    if isinstance(page, str):
        pytest.skip(page)
    if not page.ok:
        pytest.skip(
            f"{operation_id} {page.url} was refused (HTTP {page.status}): the document does not say what a "
            "page past a list's end answers, and no empty page was seen"
        )
    if isinstance(page.data, list) and page.data:
        pytest.skip(
            f"a page of {operation_id} past its end still held {len(page.data)} entries: the target clamps "
            "the page number, and no empty page was seen"
        )
    envelope.data_is_array(page, requirement="SVC-20")
    envelope.pagination_presence(page, requirement="SVC-16")


@pytest.mark.requirement("SVC-21")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_money_is_integer_kobo(samples, operation_id):
    """Every money amount (amount, balance, fee, actualAmount, convertedAmount) is an integer."""
    if not checks.money_is_integer_kobo(samples(operation_id)):
        pytest.skip(f"the {operation_id} response holds no money amount: nothing to check here")


@pytest.mark.requirement("SVC-22")
@pytest.mark.parametrize("operation_id", catalogue()["SVC-22"].operations)
def test_currency_is_ngn(samples, operation_id):
    """Every currency field whose table row gives NGN (a wallet's, a collection account's, a transaction's) is NGN."""
    if not checks.currencies_are_ngn(samples(operation_id)):
        pytest.skip(f"the {operation_id} response holds no currency field its table gives NGN: nothing to check here")


@pytest.mark.requirement("SVC-33")
@pytest.mark.parametrize("operation_id", catalogue()["SVC-33"].operations)
def test_currencies_given_no_value_are_observed(samples, observe, operation_id):
    """What the currency fields the document gives no value hold (a bank's, a bank account's, rate's) is recorded."""
    shown = checks.other_currencies(samples(operation_id))
    if not shown:
        pytest.skip(f"the {operation_id} response holds no currency field the document gives no value")
    observe(
        "SVC-33",
        operation=operation_id,
        values=sorted({str(value) for value in shown.values()}),
        fields=sorted({path.split(".", 1)[-1] for path in shown})[:10],
    )


@pytest.mark.requirement("SVC-23")
@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_timestamps_are_utc_with_milliseconds(samples, operation_id):
    """Every timestamp is an ISO 8601 UTC string with milliseconds."""
    if not checks.timestamps_are_utc_ms(samples(operation_id)):
        pytest.skip(f"the {operation_id} response holds no timestamp: nothing to check here")
