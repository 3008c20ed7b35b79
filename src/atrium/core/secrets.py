"""Passwords (argon2, verified only at login) and API keys (random, compared in constant time)."""

from __future__ import annotations

import functools
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

# The one argon2 hasher of the package (both services hash through it), at argon2-cffi's
# RFC 9106 low-memory profile: time_cost 3, 64 MiB, 4 lanes.
_hasher = PasswordHasher()

API_KEY_LENGTH = 32
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def use_hasher(hasher: PasswordHasher) -> PasswordHasher:
    """Replace the hasher and return the previous one.

    For test sessions, which need a hash, not a costly one: argon2 reads its parameters from each
    stored hash, so hashes made at either cost verify under both.
    """
    global _hasher
    previous, _hasher = _hasher, hasher
    return previous


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    if not password_hash:
        return False
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


@functools.cache
def _dummy_hash() -> str:
    return _hasher.hash(secrets.token_hex(16))


def verify_dummy_password(password: str) -> bool:
    """Verify `password` against a hash no one knows, and say no: the login of an unknown or
    passwordless account then takes as long as a wrong password, so timing does not tell who
    has an account (Django's ModelBackend does the same)."""
    verify_password(_dummy_hash(), password)
    return False


def new_api_key() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(API_KEY_LENGTH))


def constant_time_equals(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
