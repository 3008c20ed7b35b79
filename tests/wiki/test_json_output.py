"""`format=json` encoding (api/jsonout.py): orjson's bytes, with non-ASCII characters escaped
when the answer must be ASCII, or the standard library's when orjson refuses a value — the same
JSON once parsed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from atrium.wiki.api.jsonout import compact

BODIES: list[dict[str, Any]] = [
    {"batchcomplete": "", "query": {"allpages": [{"pageid": 1, "ns": 0, "title": "Apple 0"}]}},
    {"query": {"pages": {"-1": {"ns": 0, "title": "Äpfel 日本 😀", "missing": ""}}}},
    {"x": 'tab\there "quoted" back\\slash \u2028 \x00 \x7f', "n": [1.5, -0.0, 10**18, None]},
    {"nested": {"empty": {}, "list": [], "flag": True}},
]


def _expected(body: dict[str, Any], escape_unicode: bool) -> Any:
    return json.loads(json.dumps(body, ensure_ascii=escape_unicode, separators=(",", ":")))


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("escape_unicode", [True, False])
def test_same_json_as_the_standard_encoder(body: dict[str, Any], escape_unicode: bool) -> None:
    data = compact(body, escape_unicode=escape_unicode)
    assert json.loads(data) == _expected(body, escape_unicode)
    if escape_unicode:
        assert data.isascii()


def test_ascii_answers_keep_the_standard_encoders_bytes() -> None:
    body = BODIES[0]
    assert compact(body, escape_unicode=True) == json.dumps(body, separators=(",", ":")).encode()


def test_non_ascii_is_escaped_when_asked() -> None:
    assert compact({"t": "Äpfel 😀"}, escape_unicode=True) == b'{"t":"\\u00c4pfel \\ud83d\\ude00"}'
    assert compact({"t": "Äpfel"}, escape_unicode=False) == '{"t":"Äpfel"}'.encode()
    # Byte for byte the standard encoder's escapes, keys included (a parse's limit report says
    # "Post‐expand" with U+2010).
    body = {"Schlüssel": ["Post‐expand", "é\u2028😀\U0010ffff", 'q"\\', {"日本": "x" * 5000}]}
    expected = json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode()
    assert compact(body, escape_unicode=True) == expected


@pytest.mark.parametrize(
    "body",
    [
        {"by id": {1: "integer key"}},  # orjson takes string keys only
        {"t": "lone \ud800 surrogate"},  # not encodable as UTF-8
        {"n": 2**70},  # beyond 64 bits
    ],
)
@pytest.mark.parametrize("escape_unicode", [True, False])
def test_values_orjson_refuses(body: dict[str, Any], escape_unicode: bool) -> None:
    data = compact(body, escape_unicode=escape_unicode)
    assert data.isascii()
    assert json.loads(data) == json.loads(json.dumps(body))
