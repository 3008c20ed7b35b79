"""`Special:PagesWithProp` over HTTP: the form with the property names in use, the pages of a
property with their values (newest first, reversed, by value, by namespace), paging, the empty
state, bad input, and hostile values escaped."""

from __future__ import annotations

import re

import httpx
import pytest
from tests.wiki.conftest import WikiHarness
from tests.wiki.web_special_seed import edit

pytestmark = pytest.mark.anyio

HOSTILE = '<script>alert("x")</script>'


def _listed(text: str) -> list[str]:
    return re.findall(r'<li><a href="[^"]*" title="([^"]*)"', text)


async def test_pages_with_a_property(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    empty = await client.get("/wiki/Special:PagesWithProp")
    assert empty.status_code == 200 and 'name="propname"' in empty.text
    assert "There are no results" not in empty.text
    await edit(wiki, "Alpha", "{{DEFAULTSORT:Zed}} text")
    await edit(wiki, "Beta", "{{DEFAULTSORT:Able}} text")
    await edit(wiki, "Talk:Gamma", "{{DEFAULTSORT:Middle}} __NOTOC__")
    await edit(wiki, "Hostile", f"{{{{DEFAULTSORT:{HOSTILE}}}}}")
    form = (await client.get("/wiki/Special:PagesWithProp")).text
    assert '<option value="defaultsort">' in form and '<option value="notoc">' in form
    text = (await client.get("/wiki/Special:PagesWithProp/defaultsort")).text
    # Newest page first, as SpecialPagesWithProp sorts by page id descending.
    assert _listed(text) == ["Hostile", "Talk:Gamma", "Beta", "Alpha"]
    assert '<span class="prop-value">Zed</span>' in text
    assert "<script>alert" not in text and "&lt;script&gt;alert" in text
    reverse = await client.get(
        "/wiki/Special:PagesWithProp", params={"propname": "defaultsort", "reverse": "1"}
    )
    assert _listed(reverse.text) == ["Alpha", "Beta", "Talk:Gamma", "Hostile"]
    by_value = await client.get(
        "/wiki/Special:PagesWithProp",
        params={"propname": "defaultsort", "sortbyvalue": "1", "reverse": "1"},
    )
    # Text order of the values (the hostile one's place depends on the database's collation).
    assert [t for t in _listed(by_value.text) if t != "Hostile"] == ["Beta", "Talk:Gamma", "Alpha"]
    talk = await client.get(
        "/wiki/Special:PagesWithProp", params={"propname": "defaultsort", "namespace": "1"}
    )
    assert _listed(talk.text) == ["Talk:Gamma"]
    notoc = (await client.get("/wiki/Special:PagesByProp/notoc")).text
    assert _listed(notoc) == ["Talk:Gamma"] and "prop-value" not in notoc
    first = (await client.get("/wiki/Special:PagesWithProp/defaultsort?limit=2")).text
    assert _listed(first) == ["Hostile", "Talk:Gamma"] and 'class="mw-nextlink"' in first
    assert "propname=defaultsort" in first.split('class="mw-nextlink"')[0].rsplit("<a", 1)[1]
    second = (await client.get("/wiki/Special:PagesWithProp/defaultsort?limit=2&offset=2")).text
    assert _listed(second) == ["Beta", "Alpha"] and '<ol start="3"' in second


@pytest.mark.parametrize(
    "query",
    [
        "propname=nosuchprop",
        "propname=%3Cscript%3E&namespace=zz&limit=abc&offset=-4",
        "propname=" + "x" * 5000,
        "propname=defaultsort&namespace=99999999999999999999",
        "propname=%00",
    ],
)
async def test_bad_input_never_fails(
    wiki: WikiHarness, client: httpx.AsyncClient, query: str
) -> None:
    response = await client.get(f"/wiki/Special:PagesWithProp?{query}")
    assert response.status_code == 200
    assert "<script>" not in response.text
    if "nosuchprop" in query:
        assert "There are no results for this report." in response.text


async def test_long_values_are_not_shown(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Long", "{{DEFAULTSORT:" + "a" * 2000 + "}}")
    text = (await client.get("/wiki/Special:PagesWithProp/defaultsort")).text
    assert "long text property value hidden (2 KB)" in text and "a" * 2000 not in text
