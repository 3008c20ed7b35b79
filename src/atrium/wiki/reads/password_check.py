"""Checking a password against a stored hash without holding the event loop, and without
telling by its timing whether the account has a password at all."""

from __future__ import annotations

from atrium.core import workers
from atrium.core.accounts import LinkedLogin
from atrium.core.secrets import verify_dummy_password
from atrium.core.secrets import verify_password as verify_core_password
from atrium.wiki.reads.users import verify_password


async def password_ok(stored: str | None, password: str) -> bool:
    """Verify in the worker pool; a missing hash (unknown account, no password) costs the same
    argon2 verification as a wrong password."""
    if not stored:
        return await workers.run(verify_dummy_password, password)
    return await workers.run(verify_password, stored, password)


async def linked_password_ok(linked: LinkedLogin, password: str) -> bool:
    """A password against a person's one password (a workspace identity): only an active
    person whose wiki account exists signs in."""
    if not linked.password_hash:
        return await workers.run(verify_dummy_password, password)
    ok = await workers.run(verify_core_password, linked.password_hash, password)
    return ok and linked.active and linked.user_id is not None
