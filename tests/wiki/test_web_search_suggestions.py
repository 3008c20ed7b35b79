"""The header search box's suggestions (`/w/rest.php/v1/search/title`): titles starting with
the text, each with its page's first sentence; a hidden current text gives no sentence, a
private wiki refuses anonymous readers, a bad limit is refused in the REST API's format."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from tests.wiki.conftest import WikiHarness
from tests.wiki.test_private_wiki import private_client
from tests.wiki.web_special_seed import edit

from atrium.wiki import schema
from atrium.wiki.wikitext.first_sentence import first_sentence

pytestmark = pytest.mark.anyio

__all__ = ["private_client"]

SEARCH = "/w/rest.php/v1/search/title"


def test_first_sentence() -> None:
    text = "{{Infobox|x={{y}}}}\n'''Pear''' is a [[fruit|sweet fruit]]<ref>r</ref>. More."
    assert first_sentence(text) == "Pear is a sweet fruit."
    assert first_sentence("== Only ==\n* a list") == ""
    assert first_sentence("[[File:X.png|thumb|cap]]\nNo stop here") == "No stop here"
    assert len(first_sentence("word " * 100)) <= 160


async def test_suggestions_with_first_sentences(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await edit(wiki, "Pear", "A '''pear''' is a <b>fruit</b>. It is sweet.")
    await edit(wiki, "Peach", "{{Stub}}")
    found = await client.get(SEARCH, params={"q": "Pea", "limit": "5"})
    assert found.status_code == 200
    pages = found.json()["pages"]
    assert [p["title"] for p in pages] == ["Peach", "Pear"]
    assert pages[1]["description"] == "A pear is a fruit."
    assert pages[0]["description"] is None
    assert (await client.get(SEARCH, params={"q": ""})).json() == {"pages": []}
    for bad in ("0", "101", "x"):
        refused = await client.get(SEARCH, params={"q": "Pea", "limit": bad})
        assert refused.status_code == 400
        assert refused.json()["errorKey"] == "paramvalidator-outofrange-minmax"


def _hide_latest_text(conn: Any) -> None:
    """The current revision's text hidden, as revision deletion hides it."""
    rev = schema.revision
    conn.execute(sa.update(rev).values(rev_deleted=1))


async def test_hidden_text_gives_no_sentence(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await edit(wiki, "Secret", "The launch code is 1234. Keep it.")
    await wiki.db.write(_hide_latest_text)
    async with wiki.client() as reader:
        pages = (await reader.get(SEARCH, params={"q": "Secr"})).json()["pages"]
        assert pages[0]["title"] == "Secret" and pages[0]["description"] is None


async def test_private_wiki_refuses_anonymous_readers(
    wiki: WikiHarness, private_client: httpx.AsyncClient
) -> None:
    await edit(wiki, "Classified", "Nobody outside may read this.")
    refused = await private_client.get(SEARCH, params={"q": "Clas"})
    assert refused.status_code == 403 and "Classified" not in refused.text
