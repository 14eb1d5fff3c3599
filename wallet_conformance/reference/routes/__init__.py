"""The document's operations, one module per resource: what each handler reads, asks and answers."""

from wallet_conformance.reference.routes import accounts, banks, collection_accounts, transactions, wallets

# Every operation's handler, marked with its operationId; app.py serves each at the method and path
# openapi.yaml gives that operation.
HANDLERS = (
    accounts.update_account,
    accounts.list_accounts,
    wallets.create_wallet,
    wallets.list_wallets,
    wallets.get_wallet,
    wallets.close_wallet,
    collection_accounts.create_collection_account,
    banks.validate_account,
    transactions.list_transactions,
    transactions.verify_transaction,
    transactions.transfer,
    transactions.bank_transfer,
    banks.list_banks,
)
