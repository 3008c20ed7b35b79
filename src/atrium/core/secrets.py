"""Passwords (argon2, verified only at login) and API keys (random, compared in constant time)."""

from __future__ import annotations

import functools
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()

API_KEY_LENGTH = 32
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


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
