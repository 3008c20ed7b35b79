"""Deeply nested wikitext against the readers of the preprocessor tree: the expander, the link
tables, the pre-save transform and `parsetree` all recurse through it. Thousands of nested braces,
a run of braces closed three by three, nested links, or templates whose argument defaults nest
inside each other exhausted Python's stack (a 500 on save or parse), and a call inside a call's
title doubled the link tables' work at each level. Now brackets nest at most `MAX_OPEN` deep
(deeper ones are text), the expander stops nested walks with MediaWiki's expansion depth error,
and each reader visits a node once."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from atrium.wiki.wikitext.preprocess import MAX_OPEN
from tests.wiki.conftest import WikiHarness, client, wiki

pytestmark = pytest.mark.anyio


@pytest.fixture
def service_under_test() -> str:
    """The database these tests get is the wiki's."""
    return "wiki"


__all__ = ["client", "wiki"]

NESTED = {
    "braces": "{{a|" * 3000 + "}}" * 3000,
    "defaults": "{{{1|" * 3000 + "}}}" * 3000,
    "one run": "{{" * 2000 + "x" + "}}" * 2000,
    "links": "[[" * 3000 + "]]" * 3000,
    "titles": "{{{{{a|\n==" * 400 + "}}\n" * 400,
}


async def _parse(client: httpx.AsyncClient, text: str, prop: str) -> Any:
    response = await client.post(
        "/w/api.php",
        data={"action": "parse", "title": "Nest", "text": text, "contentmodel": "wikitext",
              "prop": prop, "format": "json", "formatversion": "2"},
    )  # fmt: skip
    assert response.status_code == 200
    return response.json()


@pytest.mark.parametrize("name", list(NESTED))
async def test_nested_text_is_saved_and_parsed(
    wiki: WikiHarness, client: httpx.AsyncClient, name: str
) -> None:
    text = NESTED[name]
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    started = time.perf_counter()
    saved = await wiki.post(client, action="edit", title="Nest", text=text, token=token)
    assert saved["edit"]["result"] == "Success", saved
    parsed = await _parse(client, text, "text|links|templates|parsetree")
    assert "parse" in parsed, parsed
    # Seconds, not the minutes a doubling per level would take.
    assert time.perf_counter() - started < 30
    expanded = await wiki.post(
        client, action="expandtemplates", title="Nest", text=text, prop="wikitext"
    )
    assert "expandtemplates" in expanded, expanded


async def test_brackets_past_the_bound_are_text(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    deep = "{{a|" * (MAX_OPEN + 1) + "}}" * (MAX_OPEN + 1)
    tree = (await _parse(client, deep, "parsetree"))["parse"]["parsetree"]
    assert tree.count("<template>") == MAX_OPEN


async def test_nested_defaults_across_templates_stop_at_the_depth_limit(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    # Each template's text nests ninety argument defaults around a call of the other: walked in
    # place, as MediaWiki walks defaults, the walks nest without bound.
    await wiki.edit_page("Template:Deep", "{{{1|" * 90 + "{{Deep2}}" + "}}}" * 90)
    await wiki.edit_page("Template:Deep2", "{{{1|" * 90 + "{{Deep}}" + "}}}" * 90)
    parsed = (await _parse(client, "{{Deep}}", "text|categories"))["parse"]
    assert '<span class="error">Expansion depth limit exceeded</span>' in parsed["text"]
    names = [c["category"] for c in parsed["categories"]]
    assert "Pages_where_expansion_depth_is_exceeded" in names
