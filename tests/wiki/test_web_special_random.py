"""The random Special pages over HTTP: `Random`, `RandomRedirect`, `RandomRootpage` (by
namespace) and `RandomInCategory` (form, sub-page, bad and empty categories), each with its empty
state, the request's parameters carried along, and hostile input escaped."""

from __future__ import annotations

from urllib.parse import unquote

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit

pytestmark = pytest.mark.anyio


async def _target(client: httpx.AsyncClient, path: str) -> str:
    response = await client.get(path)
    assert response.status_code == 302, response.text
    return unquote(response.headers["location"])


async def test_empty_wiki_says_so(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for path, text in (
        ("Random", "There are no pages in the following namespace: (Main)."),
        ("RandomRedirect", 'There are no redirects in the namespace "(Main)".'),
        ("RandomRootpage/Talk", "There are no pages in the following namespace: Talk."),
    ):
        response = await client.get(f"/wiki/Special:{path}")
        assert response.status_code == 200 and text in response.text, path


async def test_random_redirect_and_root_page(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Root", "text")
    await edit(wiki, "Root/Sub", "text")
    await edit(wiki, "Pointer", "#REDIRECT [[Root]]")
    await edit(wiki, "Talk:Chat pointer", "#REDIRECT [[Root]]")
    for _ in range(8):
        assert await _target(client, "/wiki/Special:RandomRootpage") == "/wiki/Root"
        assert await _target(client, "/wiki/Special:RandomRedirect") == "/wiki/Pointer?redirect=no"
        assert (await _target(client, "/wiki/Special:Random")).startswith("/wiki/Root")
    talk = await _target(client, "/wiki/Special:RandomRedirect/Talk")
    assert talk == "/wiki/Talk:Chat_pointer?redirect=no"
    carried = await _target(client, "/wiki/Special:RandomPage?action=edit&self=1&title=x")
    assert carried.startswith("/wiki/Root") and "action=edit&self=1" in carried
    assert "title=" not in carried
    hostile = await client.get("/wiki/Special:RandomRedirect?x=%3Cscript%3E%22")
    assert hostile.status_code == 302
    assert "<" not in hostile.headers["location"] and '"' not in hostile.headers["location"]


async def test_random_in_category(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    form = await client.get("/wiki/Special:RandomInCategory")
    assert form.status_code == 200 and 'name="wpcategory"' in form.text
    await edit(wiki, "Member one", "[[Category:Fruit]]")
    await edit(wiki, "Talk:Member two", "[[Category:Fruit]]")
    seen = set()
    for _ in range(12):
        seen.add(await _target(client, "/wiki/Special:RandomInCategory/Fruit"))
    assert seen <= {"/wiki/Member_one", "/wiki/Talk:Member_two"} and seen
    via_form = await _target(client, "/wiki/Special:RandomInCategory?wpcategory=Category:Fruit")
    assert via_form in {"/wiki/Member_one", "/wiki/Talk:Member_two"}
    empty = await client.get("/wiki/Special:RandomInCategory/Nothing here")
    assert empty.status_code == 200
    assert "There are no pages in the" in empty.text and ">Nothing here</a> category." in empty.text
    bad = await client.get("/wiki/Special:RandomInCategory", params={"wpcategory": "<script>x"})
    assert bad.status_code == 200
    assert "&#34;&lt;script&gt;x&#34; is not a valid category name." in bad.text
    assert "<script>x" not in bad.text
    long = await client.get("/wiki/Special:RandomInCategory", params={"wpcategory": "y" * 9000})
    assert long.status_code == 200
