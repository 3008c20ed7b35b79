"""Checking a password against a stored hash without holding the event loop, and without
telling by its timing whether the account has a password at all."""

from __future__ import annotations

from atrium.core import workers
from atrium.core.secrets import verify_dummy_password
from atrium.wiki.reads.users import verify_password


async def password_ok(stored: str | None, password: str) -> bool:
    """Verify in the worker pool; a missing hash (unknown account, no password) costs the same
    argon2 verification as a wrong password."""
    if not stored:
        return await workers.run(verify_dummy_password, password)
    return await workers.run(verify_password, stored, password)
