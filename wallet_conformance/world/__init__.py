"""The world the tests make on the target and follow: what a run creates and closes (resources, made of its
wallets, their funding, the bank accounts and the key's own account), valid and invalid request bodies (bodies,
bad_requests), the money and how to follow it (money), lists read past page one (lists, page_checks), the production
guard and money budget (safety), locks shared by the run's processes, bounded waits, requests sent at once
(concurrency), the crash journal (cleanup) and a webhook listener."""
