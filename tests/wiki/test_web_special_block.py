"""`Special:Block`, `Special:Unblock` and `Special:BlockList` over HTTP: blocking and lifting
through the forms (the API's block change), the refusals (no right, no token, bad target or
expiry), and hidden users' blocks listed only to those who may see them."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import page_token, sign_in

from atrium.wiki.changes.blocks import BlockRequest, blocks_of
from atrium.wiki.changes.blocks import block as do_block
from atrium.wiki.changes.journal import Performer
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

BLOCK = "/w/index.php?title=Special:Block"
UNBLOCK = "/w/index.php?title=Special:Unblock"


async def _blocks(wiki: WikiHarness, name: str) -> int:
    account = await wiki.db.read(account_by_name, name)
    assert account is not None
    return len(await wiki.db.read(blocks_of, account.id, None))


def _form(token: str, **extra: str) -> dict[str, str]:
    return {
        "wpTarget": "Alice",
        "wpEditingRestriction": "sitewide",
        "wpExpiry": "infinite",
        "wpReason-other": "spam <script>alert(1)</script>",
        "wpCreateAccount": "1",
        "wpEditToken": token,
    } | extra


async def test_administrator_blocks_lists_and_unblocks(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Admin")
    form = await client.get("/wiki/Special:Block/Alice")
    assert form.status_code == 200
    assert 'name="wpTarget" value="Alice"' in form.text
    done = await client.post(BLOCK, data=_form(await page_token(client)))
    assert done.status_code == 200, done.text
    assert "Block succeeded" in done.text and "has been blocked" in done.text
    assert await _blocks(wiki, "Alice") == 1
    listed = (await client.get("/wiki/Special:BlockList")).text
    assert ">Alice<" in listed and ">Admin<" in listed
    assert "account creation disabled" in listed
    assert "spam &lt;script&gt;alert(1)&lt;/script&gt;" in listed
    assert "<script>alert(1)" not in listed
    assert 'href="/wiki/Special:Unblock/Alice"' in listed
    # The blocked member cannot use the API to edit either.
    async with wiki.client() as member:
        await wiki.login(member, "Alice")
        token = await wiki.csrf(member)
        refused = await wiki.post(member, action="edit", title="Anything", text="x", token=token)
        assert refused["error"]["code"] == "blocked"
    lifted = await client.post(
        UNBLOCK,
        data={"wpTarget": "Alice", "wpReason": "ok", "wpEditToken": await page_token(client)},
    )
    assert lifted.status_code == 200 and "has been unblocked" in lifted.text
    assert await _blocks(wiki, "Alice") == 0
    assert "There are currently no blocks." in (await client.get("/wiki/Special:BlockList")).text


async def test_member_cannot_block_or_unblock(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await sign_in(wiki, client, "Alice")
    for page in ("Block", "Unblock"):
        shown = await client.get(f"/wiki/Special:{page}")
        assert shown.status_code == 200 and "Permission error" in shown.text
    posted = await client.post(BLOCK, data=_form(await page_token(client), wpTarget="Robot"))
    assert posted.status_code == 200 and "Permission error" in posted.text
    assert await _blocks(wiki, "Robot") == 0
    anonymous = await wiki.client().post(BLOCK, data=_form("+\\"))
    assert anonymous.status_code == 200 and "Permission error" in anonymous.text


@pytest.mark.parametrize("token", ["", "+\\", "x" * 42])
async def test_block_without_the_token_is_refused(
    wiki: WikiHarness, client: httpx.AsyncClient, token: str
) -> None:
    await sign_in(wiki, client, "Admin")
    response = await client.post(BLOCK, data=_form(token))
    assert response.status_code == 200 and "session hijacking" in response.text
    assert 'name="wpTarget"' in response.text
    assert await _blocks(wiki, "Alice") == 0


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ({"wpTarget": "Nobody here"}, "There is no user by the name"),
        ({"wpTarget": ""}, "There is no user by the name"),
        ({"wpTarget": "<>"}, "There is no user by the name"),
        ({"wpExpiry": "other", "wpExpiry-other": "whenever"}, "Expiry time invalid."),
        ({"wpExpiry": "other", "wpExpiry-other": "2001-01-01"}, "Expiry time is in the past."),
    ],
)
async def test_bad_block_input_shows_the_form_again(
    wiki: WikiHarness, client: httpx.AsyncClient, extra: dict[str, str], says: str
) -> None:
    await sign_in(wiki, client, "Admin")
    response = await client.post(BLOCK, data=_form(await page_token(client), **extra))
    # HTMLForm's answer: the form again, with the error, at 200 (as MediaWiki 1.39).
    assert response.status_code == 200
    assert says in response.text
    assert "<script>" not in response.text
    assert await _blocks(wiki, "Alice") == 0


async def test_unblock_of_nobody_blocked_says_so(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await sign_in(wiki, client, "Admin")
    token = await page_token(client)
    for target in ("Alice", "#999", "#", "<bad>"):
        response = await client.post(UNBLOCK, data={"wpTarget": target, "wpEditToken": token})
        assert response.status_code == 200 and "not found" in response.text, target
        assert "<bad>" not in response.text


async def test_hidden_users_block_is_listed_only_to_suppressors(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    account = await wiki.db.read(account_by_name, "Robot")
    assert account is not None
    suppressor = Performer(1, "Admin", frozenset({"block", "hideuser"}))
    request = BlockRequest(
        target="Robot", user_id=account.id, expiry="infinity", duration="infinite",
        reason="hidden", hidename=True,
    )  # fmt: skip
    await wiki.db.write(do_block, suppressor, request)
    await sign_in(wiki, client, "Admin")
    listed = (await client.get("/wiki/Special:BlockList")).text
    assert "Robot" not in listed
    searched = (await client.get("/wiki/Special:BlockList/Robot")).text
    assert "The requested IP address or username is not blocked." in searched
    assert 'class="mw-blocklist wikitable' not in searched
