"""Cleanup after a crash: what a run changed on the target is journaled as it goes, and
`./conformance --cleanup` closes what earlier runs left open and restores the account settings they changed.

A run normally closes its own wallets and restores the webhooks it changed (wallets.py, the tests). A run
killed mid-way (SIGINT twice, SIGKILL, a lost CI runner) cannot; then:
- the journal (one small JSON file per run and xdist worker in `<report-dir>/cleanup/`) holds the wallets the
  run created and still had open, and each account's webhooks and name as they were before the run changed them;
- `--cleanup` lists the target's wallets through the API and closes every one named with the suite's run-id
  prefix (`cf` + 8 hex digits, see fixtures.run_id and bodies.py), plus the journaled ones, restores the
  journaled account settings when the account still carries the suite's marks, and reports what it could not
  close and how much money the closed test wallets still hold. It never touches a record without the prefix.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wallet_conformance.client.api import ApiClient, TargetError
from wallet_conformance.client.exchange import Exchange
from wallet_conformance.client.target import Target
from wallet_conformance.exit_status import ExitStatus
from wallet_conformance.settings import Settings
from wallet_conformance.world import lists
from wallet_conformance.world.bodies import RUN_ID, is_test_record

JOURNAL_DIR = "cleanup"


class Journal:
    """What one run (one process) changed on the target, kept on disk while it is changed."""

    def __init__(self, work_dir: Path, base_url: str, run_id: str) -> None:
        self.path = work_dir / JOURNAL_DIR / f"{run_id}.json"
        self.state: dict[str, Any] = {"run_id": run_id, "base_url": base_url, "wallets": [], "accounts": {}}
        self._lock = threading.Lock()  # the end-of-run sweep closes wallets from several threads

    def __call__(
        self, client: ApiClient, operation_id: str, path_params: Mapping[str, str], exchange: Exchange | None
    ) -> None:
        """What the client tells of a call carrying its key (client/api.Journal): before it, and with its answer."""
        if exchange is None:
            if operation_id == "updateAccount":
                self._before_update(client, str(path_params.get("accountId", "")))
            return
        data = exchange.data if exchange.ok and isinstance(exchange.data, dict) else {}
        public_id = data.get("publicId")
        with self._lock:
            if operation_id == "createWallet" and isinstance(public_id, str):
                self.state["wallets"].append(public_id)
                self._write()
            elif operation_id == "closeWallet" and public_id in self.state["wallets"]:
                self.state["wallets"].remove(public_id)
                self._write()

    def _before_update(self, client: ApiClient, account_id: str) -> None:
        if account_id in self.state["accounts"]:
            return

        def shows(entry: Any) -> bool:
            return isinstance(entry, dict) and entry.get("publicId") == account_id

        # Page after page: the key's account need not be on the first (a business with many accounts).
        account = next(
            filter(shows, lists.read(client, "listAccounts", until=lambda entries: any(map(shows, entries))).entries),
            None,
        )
        if account is not None:
            self.state["accounts"][account_id] = {"webhooks": account.get("webhooks"), "name": account.get("name")}
            self._write()

    def _write(self) -> None:
        """Written whole or not at all (a run killed mid-write leaves the previous version)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(self.state, indent=1) + "\n", encoding="utf-8")
        os.replace(partial, self.path)

    def finish(self) -> None:
        """At the normal end of the run: forget it, unless wallets stayed open (then --cleanup has work)."""
        if not self.path.exists():
            return
        if self.state["wallets"]:
            self.state["accounts"] = {}
            self._write()
        else:
            self.path.unlink()


def journals(work_dir: Path, base_url: str, unreadable: list[str] | None = None) -> list[tuple[Path, dict[str, Any]]]:
    """The journals of runs against `base_url`; the names of those that cannot be read go to `unreadable`."""
    found = []
    for path in sorted((work_dir / JOURNAL_DIR).glob("*.json")):
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            if unreadable is not None:
                unreadable.append(path.name)
            continue
        if isinstance(state, dict) and state.get("base_url") == base_url:
            found.append((path, state))
    return found


def listed_wallets(client: ApiClient) -> tuple[dict[str, dict[str, Any]], str]:
    """Every wallet the list shows (page after page, under the paging parameters the target honours), and a note."""
    listing = lists.read(client, "listWallets")
    if not listing.first.ok or not isinstance(listing.first.data, list):
        raise TargetError(f"could not list the wallets (HTTP {listing.first.status})", listing.first)
    wallets = {w["publicId"]: w for w in listing.entries if isinstance(w, dict) and isinstance(w.get("publicId"), str)}
    return wallets, f"{len(wallets)} wallets listed: {listing.note}"


def clean_up(target: Target, settings: Settings) -> tuple[str, int]:
    """Close what earlier runs left on the target and restore what they changed; the report and exit status. The
    caller has made the preflight (plugin/preflight.py): the target speaks the protocol and takes the key."""
    client = ApiClient(
        target.base_url,
        target.secret_key,
        timeout=settings.request_timeout,
        ca_bundle=settings.ca_bundle,
        rate_limit_wait=settings.rate_limit_wait,
    )
    lines: list[str] = []
    left: list[str] = []
    try:
        unreadable: list[str] = []
        found = journals(settings.work_dir, target.base_url, unreadable)
        lines.append(
            f"{len(found)} journal(s) of earlier runs in {settings.work_dir / JOURNAL_DIR}"
            + (f"; unreadable, left in place: {', '.join(unreadable)}" if unreadable else "")
        )
        restored_all = _restore_accounts(client, found, lines, left)
        wallets, note = listed_wallets(client)
        journaled = {public_id for _, state in found for public_id in state.get("wallets", [])}
        candidates = {
            public_id: wallet for public_id, wallet in wallets.items() if is_test_record(wallet.get("accountName"))
        }
        for public_id in sorted(journaled - set(candidates)):
            read = client.call("getWallet", {"walletId": public_id})
            if read.ok and isinstance(read.data, dict) and is_test_record(read.data.get("accountName")):
                candidates[public_id] = read.data
        lines.append(f"{note}; {len(candidates)} named with the suite's run-id prefix")
        money, closed, refused = 0, 0, 0
        for public_id, wallet in sorted(candidates.items()):
            exchange = client.call("closeWallet", {"walletId": public_id})
            if exchange.ok:
                closed += 1
            elif 400 <= exchange.status < 500:
                refused += 1  # what a closed wallet answers is not shown: most likely closed already
            else:
                left.append(f"wallet {public_id} ({wallet.get('accountName')}): close answered {exchange.status}")
            balance = wallet.get("balance")
            after = client.call("getWallet", {"walletId": public_id})
            if after.ok and isinstance(after.data, dict):
                balance = after.data.get("balance", balance)
            if type(balance) is int and balance > 0:
                money += balance
        lines.append(f"closed {closed} wallet(s); {refused} refused the close with a 4xx (already closed, most likely)")
        lines.append(f"money left in the suite's test wallets: {money} kobo")
    except TargetError as error:
        left.append(f"the target failed during cleanup: {error}")
    finally:
        client.close()
    if not left and restored_all:
        for path, _ in journals(settings.work_dir, target.base_url):
            path.unlink(missing_ok=True)
    lines.extend(f"NOT cleaned: {entry}" for entry in left)
    status = ExitStatus.CLEANUP_LEFT_OVER if left else ExitStatus.GATE_PASSES
    return "wallet-conformance cleanup:\n  " + "\n  ".join(lines), status


def _restore_accounts(
    client: ApiClient, found: list[tuple[Path, dict[str, Any]]], lines: list[str], left: list[str]
) -> bool:
    saved = {account_id: before for _, state in found for account_id, before in state.get("accounts", {}).items()}
    if not saved:
        lines.append("no account settings to restore")
        return True
    listed = client.call("listAccounts")
    accounts = {
        a.get("publicId"): a
        for a in (listed.data if listed.ok and isinstance(listed.data, list) else [])
        if isinstance(a, dict)
    }
    for account_id, before in saved.items():
        now = accounts.get(account_id)
        if now is None:
            left.append(f"account {account_id}: not listed, its settings could not be checked")
            continue
        body: dict[str, Any] = {"webhooks": before.get("webhooks") or []}
        marked_hooks = any(RUN_ID.search(str(hook)) for hook in now.get("webhooks") or [])
        marked_name = RUN_ID.search(str(now.get("name"))) and now.get("name") != before.get("name")
        if not marked_hooks and not marked_name:
            lines.append(f"account {account_id}: carries none of the suite's changes, left as it is")
            continue
        if marked_name:
            body["name"] = before.get("name")
        exchange = client.call("updateAccount", {"accountId": account_id}, json_body=body)
        if exchange.ok:
            lines.append(f"account {account_id}: webhooks{' and name' if marked_name else ''} restored")
        else:
            left.append(f"account {account_id}: restoring its settings answered {exchange.status}")
    return True
