"""API keys as they are issued: a new ``ck_``/``cs_`` pair, the consumer key's stored hash and
the permissions a key may hold (decisions.md §2 "Keys").

Apart from the security policy so that ``shopsvc CONFIG create-key`` issues a key without
loading Pyramid."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from typing import Any

PERMISSIONS = ("read", "write", "read_write")
# The HMAC key under which consumer keys are stored (the original's ``wc-api``, brand-neutral).
KEY_HASH_SECRET = b"shop-api"

#: The HMAC keyed once: a copy per consumer key skips setting up the key and the digest
#: (OpenSSL 3 looks the digest up again for every new HMAC: ~10 µs, a copy ~3 µs).
_KEY_HASH = hmac.new(KEY_HASH_SECRET, digestmod=hashlib.sha256)


def hash_consumer_key(consumer_key: str) -> str:
    hashed = _KEY_HASH.copy()
    hashed.update(consumer_key.encode("utf-8"))
    return hashed.hexdigest()


def generate_key_pair() -> tuple[str, str]:
    """A new ``(ck_…, cs_…)`` pair: 40 lowercase hex characters each."""
    return "ck_" + secrets.token_hex(20), "cs_" + secrets.token_hex(20)


@dataclass(frozen=True)
class NewKey:
    """A freshly issued key: the ``api_keys`` row to store and the plain credentials, which are
    shown once (the consumer key is stored only as its hash)."""

    row: dict[str, Any]
    consumer_key: str
    consumer_secret: str


def issue_key(user_id: int, permissions: str, description: str = "") -> NewKey:
    consumer_key, consumer_secret = generate_key_pair()
    row = {
        "user_id": user_id,
        "description": description,
        "permissions": permissions,
        "consumer_key_hash": hash_consumer_key(consumer_key),
        "consumer_secret": consumer_secret,
        "truncated_key": consumer_key[-7:],
    }
    return NewKey(row, consumer_key, consumer_secret)


def first_key_hint(config_uri: str) -> str:
    """How to make the first administrator and API key (logged by a fresh server, printed by
    ``shopsvc CONFIG migrate`` on a database without keys)."""
    ini = os.path.basename(config_uri)
    return (
        "No API key exists yet. Create an administrator and a key with:\n"
        f"  shopsvc {ini} create-user --login admin --email admin@example.com"
        " --role administrator\n"
        f"  shopsvc {ini} create-key --user admin --permissions read_write"
    )
