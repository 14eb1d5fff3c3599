"""Named scenarios the tests run, each a documented building block that makes what a test needs on the target
and records what happened, for the test to judge: the primary-wallet limit, races of transfers, of inbound payments
and for collection references, the edge of a balance, amounts across their range, long lists paged through, changes
to the account undone afterwards, closed wallets revisited, samples of every resource and transaction."""
