"""The failures of `action=createaccount`, `action=clientlogin` and `action=login` as MediaWiki 1.39
words them: each request of data/auth_failure_cases.json (recorded from the reference wiki by
tools/capture_auth_failures.py) is asked again here, in a fresh session with a fresh token, and
the module's answer must be the reference's, byte for byte once parsed.

The cases cover every refusal in each `createmessageformat`/`loginmessageformat` (wikitext, html,
raw, none, unset) and `uselang` (en, de, fr, de-ch), `errorlang` (which the AuthManager modules
ignore and `action=login` follows), `action=login` in every `errorformat` (bc: English plain text),
formatversion=2 (`canpreservestate: false`), and which check comes first when several apply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.wiki.conftest import WikiHarness

from atrium.core.ratelimit import MemoryRateLimiter
from atrium.wiki.limits import WikiLimits

pytestmark = pytest.mark.anyio

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "auth_failure_cases.json").read_text(encoding="utf-8")
)["cases"]
TOKEN_PARAM = {"createaccount": "createtoken", "clientlogin": "logintoken", "login": "lgtoken"}


async def _differences(wiki: WikiHarness, action: str) -> list[str]:
    # Every case is one more wrong password or new account from the same address; the reference
    # answered each one unthrottled, so the throttles are lifted here.
    wiki.app.state.wiki_limits = WikiLimits(MemoryRateLimiter(), enabled=False)
    found = []
    for case in (c for c in CASES if c["request"]["action"] == action):
        kind = "createaccount" if action == "createaccount" else "login"
        async with wiki.client() as client:
            tokens = await wiki.api(client, action="query", meta="tokens", type=kind)
            token = tokens["query"]["tokens"][f"{kind}token"]
            answer = await wiki.post(client, **case["request"], **{TOKEN_PARAM[action]: token})
        if answer != case["response"]:
            shown = {k: v[:40] for k, v in case["request"].items()}
            found.append(f"{case['name']} {shown}:\n  got  {answer}\n  want {case['response']}")
    return found


@pytest.mark.parametrize("action", ["createaccount", "clientlogin", "login"])
async def test_failures_as_the_reference_words_them(wiki: WikiHarness, action: str) -> None:
    assert sum(c["request"]["action"] == action for c in CASES) >= 20
    differences = await _differences(wiki, action)
    assert not differences, "\n".join(differences)


async def test_no_account_is_made(wiki: WikiHarness) -> None:
    """Every refused creation leaves the names it tried free."""
    await _differences(wiki, "createaccount")
    for name in ("Newcomer", "ExamplePassword1"):
        async with wiki.client() as client:
            users = await wiki.api(client, action="query", list="users", ususers=name)
        assert users["query"]["users"][0].get("missing") == ""
