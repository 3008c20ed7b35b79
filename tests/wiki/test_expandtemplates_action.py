"""action=expandtemplates: templates, parser functions and variables expanded; the legacy form,
comments, and MediaWiki's errors."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

pytestmark = pytest.mark.anyio


async def test_expands_templates_and_functions(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Template:Hello", "Hello {{{1|world}}}<noinclude>doc</noinclude>")
    text = "{{Hello|you}}, {{uc:b}}<!--c--> {{#if:x|yes|no}} {{PAGENAME}}"
    data = await wiki.api(
        client, action="expandtemplates", text=text, title="Page", prop="wikitext"
    )
    assert data["expandtemplates"] == {"wikitext": "Hello you, B yes Page"}
    data = await wiki.api(
        client,
        action="expandtemplates",
        text=text,
        title="Page",
        prop="wikitext|volatile|modules",
        includecomments="1",
        formatversion="2",
    )
    out = data["expandtemplates"]
    assert out["wikitext"] == "Hello you, B<!--c--> yes Page"
    assert out["volatile"] is False and out["modules"] == []


async def test_legacy_form_warns(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    data = await wiki.api(client, action="expandtemplates", text="{{lc:AB}}")
    assert data["expandtemplates"] == {"*": "ab"}
    assert '"prop" was not specified' in data["warnings"]["expandtemplates"]["*"]


async def test_revision_variables(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    rev = await wiki.edit_page("Page", "x", "Alice")
    data = await wiki.api(
        client,
        action="expandtemplates",
        text="{{REVISIONID}}/{{REVISIONUSER}}",
        revid=str(rev),
        prop="wikitext",
    )
    assert data["expandtemplates"]["wikitext"] == f"{rev}/Alice"


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({}, "missingparam"),
        ({"text": "x", "title": "Bad[[title"}, "invalidtitle"),
        ({"text": "x", "prop": "nonsense|wikitext", "revid": "abc"}, "badinteger"),
    ],
)
async def test_bad_input(
    wiki: WikiHarness, client: httpx.AsyncClient, params: dict[str, str], code: str
) -> None:
    data = await wiki.api(client, action="expandtemplates", **params)
    assert data["error"]["code"] == code, data
