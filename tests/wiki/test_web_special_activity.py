"""Contributions, Log, NewPages, WhatLinksHere and Version over HTTP: each lists what the API's
matching module lists; hidden users and deleted log actions stay hidden; bad input never fails;
hostile text is escaped."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit, sign_in

from atrium.wiki.changes.blocks import BlockRequest
from atrium.wiki.changes.blocks import block as do_block
from atrium.wiki.changes.journal import Performer
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio


async def _hide(wiki: WikiHarness, name: str) -> None:
    """A hidename block on `name`, made by a suppressor."""
    account = await wiki.db.read(account_by_name, name)
    assert account is not None
    suppressor = Performer(1, "Admin", frozenset({"block", "hideuser"}))
    request = BlockRequest(
        target=name, user_id=account.id, expiry="infinity", duration="infinite",
        reason="gone", hidename=True,
    )  # fmt: skip
    await wiki.db.write(do_block, suppressor, request)


async def test_contributions_list_a_users_edits(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await edit(wiki, "Lake", "one", user="Alice", summary="<i>first</i>")
    await edit(wiki, "Lake", "two", user="Alice", summary="second")
    await edit(wiki, "Talk:Lake", "three", user="Alice")
    await edit(wiki, "River", "by admin", user="Admin")
    text = (await client.get("/wiki/Special:Contributions/Alice")).text
    assert "Contributions of Alice" in text
    assert text.count("data-mw-revid=") == 3
    assert ">Lake<" in text and ">Talk:Lake<" in text and ">River<" not in text
    assert "(&lt;i&gt;first&lt;/i&gt;)" in text and "<i>first" not in text
    assert text.count("mw-uctop") == 2  # the latest edit of each page is "current"
    only_talk = await client.get("/wiki/Special:Contributions", params={"target": "Alice",
                                                                        "namespace": "1"})  # fmt: skip
    assert only_talk.text.count("data-mw-revid=") == 1
    nobody = (await client.get("/wiki/Special:Contributions/Nobody")).text
    assert "No changes were found matching these criteria." in nobody


async def test_hidden_user_is_hidden_in_contributions_changes_and_logs(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await edit(wiki, "Secret garden", "text", user="Robot", summary="robot was here")
    await _hide(wiki, "Robot")
    await sign_in(wiki, client, "Admin")  # an administrator, but no suppressor
    contribs = (await client.get("/wiki/Special:Contributions/Robot")).text
    assert 'User account "Robot" is not registered.' in contribs
    assert "Secret garden" not in contribs
    changes = (await client.get("/wiki/Special:RecentChanges", params={"hidebots": "0"})).text
    assert ">Secret garden<" in changes
    assert "Robot" not in changes and "(username removed)" in changes
    logs = (await client.get("/wiki/Special:Log")).text
    assert "Robot" not in logs
    by_robot = (await client.get("/wiki/Special:Log", params={"user": "Robot"})).text
    assert "No matching items in log." in by_robot


async def test_log_filters_by_type_user_and_page(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await edit(wiki, "Fort", "walls", user="Admin")
    alice = await wiki.db.read(account_by_name, "Alice")
    assert alice is not None
    admin = Performer(1, "Admin", frozenset({"block"}))
    await wiki.db.write(
        do_block, admin, BlockRequest(target="Alice", user_id=alice.id, expiry="infinity",
                                      duration="infinite", reason="<b>loud</b>")
    )  # fmt: skip
    text = (await client.get("/wiki/Special:Log")).text
    assert "blocked" in text and "User:Alice" in text
    assert "(&lt;b&gt;loud&lt;/b&gt;)" in text
    blocks = (await client.get("/wiki/Special:Log/block")).text
    assert "blocked" in blocks and "created page" not in blocks
    created = (await client.get("/wiki/Special:Log", params={"type": "create"})).text
    assert ">Fort<" in created
    by_page = (await client.get("/wiki/Special:Log", params={"page": "User:Alice"})).text
    assert "blocked" in by_page and ">Fort<" not in by_page
    by_user = (await client.get("/wiki/Special:Log", params={"user": "Alice"})).text
    assert "No matching items in log." in by_user


async def test_new_pages_lists_creations_only(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Fresh", "new", user="Alice")
    await edit(wiki, "Fresh", "edited", user="Alice")
    await edit(wiki, "Talk:Fresh", "new talk", user="Alice")
    text = (await client.get("/wiki/Special:NewPages")).text
    assert ">Fresh<" in text and ">Talk:Fresh<" in text
    assert text.count("mw-changeslist-line") == 2
    talk = (await client.get("/wiki/Special:NewPages", params={"namespace": "1"})).text
    assert talk.count("mw-changeslist-line") == 1


async def test_what_links_here(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Harbour", "The harbour.")
    await wiki.edit_page("Boat", "Sails to [[Harbour]].")
    await wiki.edit_page("Port", "#REDIRECT [[Harbour]]")
    await wiki.edit_page("Template:Harbour", "x")
    await wiki.edit_page("Quay", "{{Harbour}}")
    await wiki.edit_page("Elsewhere", "Nothing.")
    text = (await client.get("/wiki/Special:WhatLinksHere/Harbour")).text
    assert ">Boat<" in text and ">Port<" in text and "(redirect page)" in text
    assert ">Elsewhere<" not in text
    used = (await client.get("/wiki/Special:WhatLinksHere/Template:Harbour")).text
    assert ">Quay<" in used and "(transclusion)" in used
    none = (await client.get("/wiki/Special:WhatLinksHere/Elsewhere")).text
    assert "No pages link to" in none
    bad = await client.get("/wiki/Special:WhatLinksHere", params={"target": "<>"})
    assert bad.status_code == 200 and "empty or invalid" in bad.text


@pytest.mark.parametrize(
    "path",
    [
        "/wiki/Special:Contributions/<script>",
        "/wiki/Special:Contributions?target=%00&namespace=zz&limit=-4",
        "/wiki/Special:Log?type=nonsense&user=%00&page=%5B%5B&limit=x",
        "/wiki/Special:Log/suppress",
        "/wiki/Special:NewPages?namespace=9999999999999999999999&limit=abc",
        "/wiki/Special:WhatLinksHere/%5B%5B%5D%5D?namespace=-7",
        "/wiki/Special:Version",
    ],
)
async def test_bad_input_never_fails(
    wiki: WikiHarness, client: httpx.AsyncClient, path: str
) -> None:
    response = await client.get(path)
    # A sub-page that is no valid title makes the whole title bad: MediaWiki's "Bad title".
    assert response.status_code in (200, 404), path
    assert "<script>" not in response.text


async def test_version_names_the_software(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    text = (await client.get("/wiki/Special:Version")).text
    assert "1.39" in text and "Python" in text and "/w/api.php" in text
