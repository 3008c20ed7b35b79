"""Production's argon2 cost: the test session hashes cheaply, so one test checks the real one."""

from __future__ import annotations

from argon2 import PasswordHasher

from atrium.core import secrets
from atrium.wiki.reads import users

PRODUCTION_PREFIX = "$argon2id$v=19$m=65536,t=3,p=4$"


def test_production_hasher_uses_rfc9106_low_memory_cost(
    cheap_password_hashing: PasswordHasher,
) -> None:
    # The fixture yields the hasher the module had before the session swapped it out.
    cheap = secrets.use_hasher(cheap_password_hashing)
    try:
        stored = secrets.hash_password("correct horse")
        assert stored.startswith(PRODUCTION_PREFIX)
        assert secrets.verify_password(stored, "correct horse")
        assert not secrets.verify_password(stored, "wrong horse")
        wiki_stored = users.hash_password("correct horse")
        assert wiki_stored.startswith(":argon2:" + PRODUCTION_PREFIX)
        assert users.verify_password(wiki_stored, "correct horse")
    finally:
        secrets.use_hasher(cheap)


def test_hashes_of_either_cost_verify_under_the_other(
    cheap_password_hashing: PasswordHasher,
) -> None:
    cheap = secrets.use_hasher(cheap_password_hashing)
    try:
        production_hash = secrets.hash_password("pw")
        cheap_hash = cheap.hash("pw")
        assert secrets.verify_password(cheap_hash, "pw")
    finally:
        secrets.use_hasher(cheap)
    assert secrets.verify_password(production_hash, "pw")
    assert not secrets.verify_password(production_hash, "other")
