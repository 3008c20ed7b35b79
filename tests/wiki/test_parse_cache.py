"""Kept parser output and diff rows: action=parse answers from what it kept only while the wiki
has not changed, so edits of templates, creations, deletions and uploads show at once; texts
that read the clock are parsed each time; the kept diff rows are those of the same two texts."""

from __future__ import annotations

import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.wiki.diff import table_rows
from atrium.wiki.reads import parsing

pytestmark = pytest.mark.anyio


async def _text(wiki: WikiHarness, client: httpx.AsyncClient, **params: str) -> str:
    # The limit report carries each parse's own timings, so cached and fresh parses differ there.
    data = await wiki.api(client, action="parse", prop="text", disablelimitreport="1", **params)
    assert "error" not in data, data
    body: str = data["parse"]["text"]["*"]
    return body


async def test_template_edit_shows_in_the_next_parse(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Template:Greeting", "hello")
    await wiki.edit_page("Host", "Say {{Greeting}} to [[Later page]]")
    first = await _text(wiki, client, page="Host")
    assert "Say hello" in first and 'class="new"' in first
    assert await _text(wiki, client, page="Host") == first
    await wiki.edit_page("Template:Greeting", "goodbye")
    assert "Say goodbye" in await _text(wiki, client, page="Host")
    # A linked page created elsewhere turns the red link blue.
    await wiki.edit_page("Later page", "now here")
    assert 'class="new"' not in await _text(wiki, client, page="Host")


async def test_deletion_turns_the_link_red_again(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await wiki.edit_page("Target page", "x")
    await wiki.edit_page("Linker", "[[Target page]]")
    assert 'class="new"' not in await _text(wiki, client, page="Linker")
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    deleted = await wiki.post(client, action="delete", title="Target page", token=token)
    assert "delete" in deleted, deleted
    assert 'class="new"' in await _text(wiki, client, page="Linker")


async def test_per_revision_variables_are_part_of_the_key(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    first = await wiki.edit_page("Versioned", "rev {{REVISIONID}}")
    second = await wiki.edit_page("Versioned", "rev {{REVISIONID}}")
    assert f"rev {first}" in await _text(wiki, client, oldid=str(first))
    assert f"rev {second}" in await _text(wiki, client, oldid=str(second))
    assert f"rev {second}" in await _text(wiki, client, page="Versioned")


async def test_clock_words_are_not_kept(wiki: WikiHarness) -> None:
    title = wiki.site.parser.parse("Clock")

    async def twice(text: str) -> tuple[parsing.Parsed, parsing.Parsed]:
        first = await wiki.db.read(parsing.parse, wiki.site, title, text, None)
        second = await wiki.db.read(parsing.parse, wiki.site, title, text, None)
        return first, second

    first, second = await twice("no clock here")
    kept = wiki.settings.database_url is None  # SQLite keeps it, PostgreSQL does not
    assert (first is second) is kept
    first, second = await twice("{{CURRENTTIMESTAMP}} [[Somewhere]]")
    assert first is not second
    assert first.rendered.volatile


async def test_bad_input_is_not_kept(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for _ in range(2):
        data = await wiki.api(client, action="parse", page="No such page at all")
        assert data["error"]["code"] == "missingtitle"


def test_diff_rows_are_those_of_the_same_texts() -> None:
    old, new = "a\nb\nc\n", "a\nB\nc\n"
    rows = table_rows(old, new)
    assert "diffchange" in rows
    assert table_rows(old, new) == rows
    assert table_rows(old, "a\nb\nc\nd\n") != rows
    assert table_rows(old, old) == ""
