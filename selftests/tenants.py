"""Reference servers that answer more than one secret key, for the self-tests of key handling and isolation."""

from __future__ import annotations

import inspect
from typing import Any

from wallet_conformance.reference import ReferenceServer
from wallet_conformance.reference.records import Credential

NON_DEFAULT = 1  # the index of an account of the reference's business that is not its default one


def add_key(server: ReferenceServer, key: str, account_index: int = NON_DEFAULT) -> None:
    """Let `key` open another account of the reference's business (test mode)."""
    store = server.service.store
    store.credentials[key] = Credential(store.object_id(), store.accounts[account_index], live=False, secret_key=key)


def reference_with_second_key(secret_key: str, second_key: str, **options: Any) -> ReferenceServer:
    """A reference server answering `secret_key` and `second_key`: the key of its second business where the reference
    seeds one (`ReferenceServer(second_secret_key=...)`), else the key of another account of its one business."""
    if "second_secret_key" in inspect.signature(ReferenceServer).parameters:
        return ReferenceServer(secret_key=secret_key, second_secret_key=second_key, **options)
    server = ReferenceServer(secret_key=secret_key, **options)
    add_key(server, second_key)
    return server
