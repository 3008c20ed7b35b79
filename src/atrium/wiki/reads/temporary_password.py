"""Checking a mailed temporary password: whether a password is it, and which one is current.

Kept apart from `password_reset`, which the changes read: verifying a hash goes through the
password checks, and they know the workspace's linked accounts and with them the web framework,
which no change may import.
"""

from __future__ import annotations

from atrium.core.db import Database
from atrium.wiki.reads.password_check import password_ok
from atrium.wiki.reads.password_reset import (
    NEW_PASSWORD_EXPIRY_DAYS,
    temporary_password_hash,
    ts14_ago,
)


async def temporary_password_ok(db: Database, user_id: int, password: str) -> str:
    """The stored hash of the account's unexpired mailed temporary password when `password`
    is it, else "" (a used one is gone: setting a new password clears it)."""
    made_after = ts14_ago(NEW_PASSWORD_EXPIRY_DAYS * 86400)
    stored = await db.read(temporary_password_hash, user_id, made_after)
    return stored if stored and await password_ok(stored, password) else ""


async def unexpired_temporary_hash(db: Database, user_id: int) -> str:
    """The stored hash of the account's unexpired temporary password, "" if none."""
    made_after = ts14_ago(NEW_PASSWORD_EXPIRY_DAYS * 86400)
    return str(await db.read(temporary_password_hash, user_id, made_after))
