"""The common-password filter against what MediaWiki 1.39 says of the same passwords.

The verdicts were taken from the reference wiki (tools/capture_auth_failures.py records them in
data/auth_failure_cases.json, asked through `action=createaccount` there) and checked against
wikimedia/common-passwords' own `isCommon` in PHP: the common ones, the filter's false
positives among random ten-letter strings, and strings it does not hold.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atrium.wiki.accounts.common_passwords import (
    DATA_FILE,
    HEADER,
    BloomFilter,
    common_password_filter,
    is_common,
)
from atrium.wiki.accounts.password_policy import password_problems

COMMON = ["password", "123456", "iloveyou", "qwerty123", "testpass", "letmein", "trustno1"]
FALSE_POSITIVES = ["t916VqoUaw", "1zvMaUtPwU", "imsEchUF9L", "K6OFhMEHEV", "04qed25LaD"]
NOT_COMMON = [
    "Long-secret-1",
    "correct horse battery staple",
    "t916VqoUax",
    "K6OFhMEHEW",
    "Über-Passwort-9",
    "",
    "x" * 4097,
]


@pytest.mark.parametrize("password", COMMON + FALSE_POSITIVES)
def test_members(password: str) -> None:
    assert is_common(password)


@pytest.mark.parametrize("password", NOT_COMMON)
def test_non_members(password: str) -> None:
    assert not is_common(password)


def test_the_reference_verdicts() -> None:
    """Each password the capture asked as its own account name: refused as common there iff
    here (the answer lists two refusals instead of the name's one)."""
    cases = json.loads(
        (Path(__file__).parent / "data" / "auth_failure_cases.json").read_text(encoding="utf-8")
    )["cases"]
    asked = [
        c
        for c in cases
        if c["request"]["action"] == "createaccount"
        and c["request"].get("username") == c["request"].get("password") != "Admin"
    ]
    assert len(asked) >= 20
    for case in asked:
        refused_as_common = case["name"].endswith("+passwordincommonlist")
        assert is_common(case["request"]["password"]) == refused_as_common, case["request"]


def test_the_filter_is_read_once() -> None:
    bloom = common_password_filter()
    assert common_password_filter() is bloom
    assert (bloom.size, bloom.hash_count) == (2875518, 20)
    assert DATA_FILE.stat().st_size == HEADER.size + (bloom.size + 7) // 8


def test_bit_order_and_hashes() -> None:
    """Only the bits of an item's positions decide; bit n is bit n % 8 of byte n // 8."""
    empty = BloomFilter(bytes(2), 16, 3)
    positions = list(empty.positions(b"abc"))
    assert len(positions) == 3
    assert all(0 <= p < 16 for p in positions)
    assert b"abc" not in empty
    bits = bytearray(2)
    for p in positions:
        bits[p // 8] |= 1 << (p % 8)
    assert b"abc" in BloomFilter(bytes(bits), 16, 3)


def test_common_comes_last_in_the_policy() -> None:
    assert [m.key for m in password_problems("Newcomer", "password")] == ["passwordincommonlist"]
    keys = [m.key for m in password_problems("Apitestuser", "testpass")]
    assert keys == ["password-login-forbidden", "passwordincommonlist"]
    assert password_problems("Newcomer", "Long-secret-1") == []


def test_a_damaged_file_is_refused() -> None:
    data = DATA_FILE.read_bytes()
    with pytest.raises(ValueError):
        BloomFilter.from_bytes(b"NOPE" + data[4:])
    with pytest.raises(ValueError):
        BloomFilter.from_bytes(data[:-1])
