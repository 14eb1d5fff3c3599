"""The document's operations, one module per resource: what each handler reads, asks and answers."""

from wallet_conformance.reference.routes import accounts, banks, collection_accounts, transactions, wallets

# (method, path under /v1, handler); each handler knows its operationId.
ROUTES = (
    ("PATCH", "/accounts/{accountId}", accounts.update_account),
    ("GET", "/accounts", accounts.list_accounts),
    ("POST", "/virtual-accounts", wallets.create_wallet),
    ("GET", "/virtual-accounts", wallets.list_wallets),
    ("GET", "/virtual-accounts/{walletId}", wallets.get_wallet),
    ("DELETE", "/virtual-accounts/{walletId}", wallets.close_wallet),
    ("POST", "/collection-accounts", collection_accounts.create_collection_account),
    ("POST", "/transactions/validate-account", banks.validate_account),
    ("GET", "/transactions", transactions.list_transactions),
    ("GET", "/transactions/{reference}/verify", transactions.verify_transaction),
    ("POST", "/transactions/transfer", transactions.transfer),
    ("POST", "/transactions/bank-transfer", transactions.bank_transfer),
    ("GET", "/transactions/banks", banks.list_banks),
)
