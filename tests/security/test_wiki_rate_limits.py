"""The wiki's `$wgRateLimits` and `$wgAccountCreationThrottle`: an address cannot make
anonymous edits or new accounts without end, `noratelimit` (sysops, bots) is exempt, and
`ATRIUM_RATE_LIMITS=0` lifts the limits."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from atrium.settings import RateLimits
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio

ANON_TOKEN = "+\\"


@pytest.fixture
def service_under_test() -> str:
    return "wiki"


async def _edits(wiki: WikiHarness, client: httpx.AsyncClient, token: str, n: int) -> list[Any]:
    return [
        await wiki.post(client, action="edit", title=f"Sandbox {i}", text="x", token=token)
        for i in range(n)
    ]


async def _create(wiki: WikiHarness, client: httpx.AsyncClient, name: str) -> Any:
    token = (await wiki.api(client, action="query", meta="tokens", type="createaccount"))["query"][
        "tokens"
    ]["createaccounttoken"]
    data = await wiki.post(
        client,
        action="createaccount",
        username=name,
        password="a-long-password-1",
        retype="a-long-password-1",
        createtoken=token,
        createreturnurl="http://127.0.0.1:8080/",
    )
    return data["createaccount"]


async def test_ninth_anonymous_edit_in_a_minute_is_refused(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    answers = await _edits(wiki, client, ANON_TOKEN, 9)
    assert all(a["edit"]["result"] == "Success" for a in answers[:8]), answers[:8]
    assert answers[8]["error"]["code"] == "ratelimited"
    assert answers[8]["error"]["info"] == (
        "You've exceeded your rate limit. Please wait some time and try again."
    )


async def test_registered_users_and_sysops_have_room(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.login(client, "Alice")
    answers = await _edits(wiki, client, await wiki.csrf(client), 12)
    assert all(a["edit"]["result"] == "Success" for a in answers), answers


async def test_seventh_account_from_one_address_is_refused(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for i in range(6):
        assert (await _create(wiki, client, f"Newcomer {i}"))["status"] == "PASS"
    refused = await _create(wiki, client, "Newcomer 6")
    assert refused["status"] == "FAIL"
    assert refused["messagecode"] == "acct_creation_throttle_hit", refused


async def test_sysops_are_exempt(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.login(client, "Admin")
    for i in range(7):
        assert (await _create(wiki, client, f"Staff {i}"))["status"] == "PASS"


async def test_rate_limits_off_lifts_them(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    state = wiki.app.state
    state.settings = state.settings.with_(rate_limits=RateLimits(enabled=False))
    state.wiki_limits = None
    answers = await _edits(wiki, client, ANON_TOKEN, 10)
    assert all(a["edit"]["result"] == "Success" for a in answers), answers[-1]
    for i in range(7):
        assert (await _create(wiki, client, f"Newcomer {i}"))["status"] == "PASS"


async def test_ninth_move_in_a_minute_is_refused(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    for i in range(9):
        await wiki.edit_page(f"Draft {i}", "x", user="Alice")
    await wiki.login(client, "Alice")
    token = await wiki.csrf(client)
    answers = [
        await wiki.post(
            client, action="move", **{"from": f"Draft {i}"}, to=f"Moved {i}", token=token
        )
        for i in range(9)
    ]
    assert all("move" in a for a in answers[:8]), answers[:8]
    assert answers[8]["error"]["code"] == "ratelimited"
