"""The feed modules (`feedrecentchanges`, `feedcontributions`, `feedwatchlist`) in RSS 2.0 and
Atom 1.0: read without error by an XML parser and by feedparser, with the elements MediaWiki
1.39's feeds have (`data/mw139_feeds.json`); the watchlist feed opened by `wlowner`/`wltoken`
alone; and nothing a reader may not see reaches a feed: a private wiki's, a hidden summary or
author."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl
from xml.etree import ElementTree

import feedparser
import httpx
import pytest
from tests.wiki.conftest import WikiHarness

from atrium.server import create_app
from atrium.settings import Settings
from atrium.wiki.changes.accounts import create_user
from atrium.wiki.changes.watching import watchlist_token
from atrium.wiki.reads.users import account_by_name

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "data" / "mw139_feeds.json").read_text())
SECRET_SUMMARY = "secret summary qzx"
SECRET_AUTHOR = "198.51.100.77"
HIDER = ("Hiderqx", "hider-password-1")  # may hide revisions (`suppress` group)


def _elements(document: str) -> set[str]:
    """The paths of the feed's elements (without the repetition of items)."""
    root = ElementTree.fromstring(document.encode())
    found: set[str] = set()

    def walk(element: ElementTree.Element, path: str) -> None:
        here = f"{path}/{element.tag}"
        found.add(here)
        for child in element:
            walk(child, here)

    walk(root, "")
    return found


async def _feed(client: httpx.AsyncClient, request: str, **extra: str) -> httpx.Response:
    params = dict(parse_qsl(request, keep_blank_values=True)) | extra
    return await client.get("/w/api.php", params=params)


async def _journal(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    """Edits through the API (the feeds read the journal) by Admin, who watches them, and one by
    an IP whose summary and author an administrator then hides."""
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    for title, text in (("Apple", "An apple."), ("Banana", "A banana."), ("Apple", "Apples.")):
        done = await wiki.post(client, action="edit", title=title, text=text, summary=f"on {title}",
                               watchlist="watch", token=token)  # fmt: skip
        assert done["edit"]["result"] == "Success", done
    transport = httpx.ASGITransport(app=wiki.app, client=(SECRET_AUTHOR, 4321))
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1:8080"
    ) as anonymous:
        anon_token = await wiki.csrf(anonymous)
        done = await wiki.post(anonymous, action="edit", title="Apple", text="Apples, red.",
                               summary=SECRET_SUMMARY, token=anon_token)  # fmt: skip
    hidden = done["edit"]["newrevid"]
    await wiki.db.write(lambda conn: create_user(conn, *HIDER, groups=["suppress"]))
    async with wiki.client() as hider:
        login = await wiki.api(hider, action="query", meta="tokens", type="login")
        await wiki.post(hider, action="login", lgname=HIDER[0], lgpassword=HIDER[1],
                        lgtoken=login["query"]["tokens"]["logintoken"])  # fmt: skip
        answer = await wiki.post(hider, action="revisiondelete", type="revision",
                                 ids=str(hidden), hide="comment|user",
                                 token=await wiki.csrf(hider))  # fmt: skip
    assert answer["revisiondelete"]["items"][0]["status"] == "Success", answer


async def test_feeds_parse_with_mediawikis_elements(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _journal(wiki, client)
    admin = await wiki.db.read(account_by_name, "Admin")
    assert admin is not None
    token = await wiki.db.write(lambda conn: watchlist_token(conn, admin.id))
    for name, case in RECORDED.items():
        if "anon" in name:
            continue
        response = await _feed(client, case["request"])
        assert response.headers["content-type"] == "application/xml; charset=utf-8"
        assert _elements(response.text) == _elements(case["body"]), name
        parsed = feedparser.parse(response.content)
        assert not parsed.bozo, (name, parsed.bozo_exception)
        assert parsed.version == ("atom10" if "atom" in name else "rss20")
        assert parsed.entries, name
        assert SECRET_SUMMARY not in response.text, name
        assert SECRET_AUTHOR not in response.text, name
    # The watchlist feed of someone else, opened by the owner's token alone.
    async with wiki.client() as anonymous:
        owned = await _feed(anonymous, RECORDED["watchlist-rss"]["request"], wlowner="Admin",
                            wltoken=token)  # fmt: skip
        titles = [e.title for e in feedparser.parse(owned.content).entries]
        assert "Apple" in titles and "Banana" in titles
        refused = await _feed(anonymous, RECORDED["watchlist-anon-rss"]["request"])
        assert _elements(refused.text) == _elements(RECORDED["watchlist-anon-rss"]["body"])
        entry = feedparser.parse(refused.content).entries[0]
        assert entry.title == "Error (notloggedin)"
        wrong = await _feed(anonymous, RECORDED["watchlist-rss"]["request"], wlowner="Admin",
                            wltoken="wrong")  # fmt: skip
        assert feedparser.parse(wrong.content).entries[0].title == "Error (bad_wltoken)"
        assert "Apple" not in wrong.text


async def test_private_wiki_feeds_refuse_anonymous_readers(
    wiki: WikiHarness, client: httpx.AsyncClient, data_dir: Path, database_url: str | None
) -> None:
    await _journal(wiki, client)
    settings = Settings(
        data_dir=data_dir, database_url=database_url, port=8080, wiki_main_page=False,
        wiki_audience="private",
    )  # fmt: skip
    app = create_app(settings, services=("wiki",))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 12345))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as c:
            for request in ("action=feedrecentchanges", "action=feedcontributions&user=Admin"):
                answer: Any = (await _feed(c, request, format="json")).json()
                assert answer["error"]["code"] == "readapidenied", answer
                raw = await _feed(c, request)
                assert "Apple" not in raw.text
