"""The feed modules (`feedrecentchanges`, `feedcontributions`, `feedwatchlist`) in RSS 2.0 and
Atom 1.0: read without error by an XML parser and by feedparser, with the elements MediaWiki
1.39's feeds have (`data/mw139_feeds.json`); the watchlist feed opened by `wlowner`/`wltoken`
alone; and nothing a reader may not see reaches a feed: a private wiki's, a hidden summary or
author."""

from __future__ import annotations

import json
import re
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
from atrium.wiki.reads.revisions import revision_text
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
        if "anon" in name or name == "diff-items":
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


DIFFS = RECORDED["diff-items"]


def _items(body: str) -> list[dict[str, str]]:
    """The items about the page of the recorded edits, as tools/capture_feed_diffs.py reads them."""
    root = ElementTree.fromstring(body.encode())
    atom = "{http://www.w3.org/2005/Atom}"
    found = [{k: item.findtext(k) or "" for k in ("title", "link", "description")}
             for item in root.iter("item")]  # fmt: skip
    for entry in root.iter(f"{atom}entry"):
        link = entry.find(f"{atom}link")
        found.append({"title": entry.findtext(f"{atom}title") or "",
                      "link": "" if link is None else link.get("href", ""),
                      "description": entry.findtext(f"{atom}summary") or ""})  # fmt: skip
    return [each for each in found if each["title"] == "Feed diff page"]


def _steady(item: dict[str, str]) -> dict[str, str]:
    """An item without what differs between two wikis: host, revision ids, the edit's time."""
    out = {}
    for key, value in item.items():
        value = re.sub(r"https?://[^/\"]+", "", value)
        value = re.sub(r"(diff|oldid)=\d+", r"\1=N", value)
        out[key] = re.sub(r"Revision as of \d\d:\d\d, \d+ \w+ \d{4}", "Revision as of T", value)
    # The reference (1.39.17) wraps an autocomment and what follows it in a bidi isolating
    # span, a point release's change Atrium's summaries do not have anywhere yet.
    out["description"] = re.sub(
        r'<span dir="auto">(<span class="autocomment">.*?)</span></p>',
        r"\1</p>",
        out["description"],
    )
    return out


async def _edits(wiki: WikiHarness, client: httpx.AsyncClient) -> list[int]:
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    made = []
    for text, summary in DIFFS["edits"]:
        done = await wiki.post(client, action="edit", title="Feed diff page", text=text,
                               summary=summary, token=token)  # fmt: skip
        made.append(done["edit"]["newrevid"])
    return made


async def test_feed_items_are_mediawikis_diffs_and_texts(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """A new page's item shows its text, an edit's the diff table (two adjacent edits by one
    person as one diff), a contribution the revision's text: as MediaWiki 1.39's items."""
    made = await _edits(wiki, client)
    for name in ("rc-rss", "rc-atom", "contribs-rss"):
        response = await _feed(client, DIFFS[name]["request"])
        assert not feedparser.parse(response.content).bozo, name
        mine = [_steady(each) for each in _items(response.text)]
        assert mine == [_steady(each) for each in DIFFS[name]["items"]], name
    rss = (await _feed(client, DIFFS["rc-rss"]["request"])).text
    merged = f"diff={made[2]}&amp;oldid={made[0]}"
    assert merged in rss
    first = ElementTree.fromstring(rss.encode()).find("channel/item/description")
    diff = "" if first is None else first.text or ""
    assert '<table style="background-color: #fff; color: #202122;"' in diff
    assert "&lt;b&gt;Bold&lt;/b&gt;" in diff and "<b>Bold</b>" not in diff


async def test_feed_items_keep_hidden_and_private_text_out(
    wiki: WikiHarness, client: httpx.AsyncClient, data_dir: Path, database_url: str | None
) -> None:
    """A change with a hidden part is left out of the recent changes feed; a contribution whose
    text is hidden shows none; a private wiki's items carry no text for a member either."""
    await _journal(wiki, client)
    secret_text = "Apples, red."
    recent = await _feed(client, "action=feedrecentchanges&limit=10")
    assert secret_text not in recent.text and SECRET_SUMMARY not in recent.text
    titles = [e.title for e in feedparser.parse(recent.content).entries]
    assert "Apple" in titles and "Banana" in titles
    async with wiki.client() as hider:
        login = await wiki.api(hider, action="query", meta="tokens", type="login")
        await wiki.post(hider, action="login", lgname=HIDER[0], lgpassword=HIDER[1],
                        lgtoken=login["query"]["tokens"]["logintoken"])  # fmt: skip
        mine = await wiki.api(hider, action="query", list="usercontribs", ucuser="Admin",
                              uclimit="1", format="json")  # fmt: skip
        newest = mine["query"]["usercontribs"][0]["revid"]
        done = await wiki.post(hider, action="revisiondelete", type="revision", ids=str(newest),
                               hide="content", token=await wiki.csrf(hider))  # fmt: skip
        assert done["revisiondelete"]["items"][0]["status"] == "Success", done
        hidden_text = await wiki.db.read(_text_of, newest)
        contributions = await _feed(hider, "action=feedcontributions&user=Admin")
        assert hidden_text and hidden_text not in contributions.text
        recent = await _feed(hider, "action=feedrecentchanges&limit=10")
        assert f"diff={newest}" not in recent.text
    settings = Settings(
        data_dir=data_dir, database_url=database_url, port=8080, wiki_main_page=False,
        wiki_audience="private",
    )  # fmt: skip
    app = create_app(settings, services=("wiki",))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 12345))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as c:
            await wiki.login(c, "Admin")
            for request in ("action=feedrecentchanges", "action=feedcontributions&user=Admin"):
                answer = await _feed(c, request)
                entries = feedparser.parse(answer.content).entries
                assert entries and "Banana" in [e.title for e in entries], request
                assert "A banana." not in answer.text and "New page" not in answer.text


def _text_of(conn: Any, revid: int) -> str:
    row = revision_text(conn, revid)
    return "" if row is None else str(row["old_text"])


async def test_log_items_start_with_the_log_sentence(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    """FeedUtils::formatDiff: a log entry's item is its sentence (the performer as a plain user
    link) and then its summary, as MediaWiki 1.39's (`rc-rss`'s upload item); the watchlist
    feed keeps MediaWiki's "summary (user)" only. A log entry with a hidden part is left out."""
    recorded = RECORDED["rc-rss"]["body"]
    assert "&lt;bdi&gt;Admin&lt;/bdi&gt;&lt;/a&gt; uploaded &lt;a href=" in recorded
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    done = await wiki.post(client, action="edit", title="Feed moved", text="x", summary="start",
                           watchlist="watch", token=token)  # fmt: skip
    assert done["edit"]["result"] == "Success", done
    moved = await wiki.post(client, action="move", **{"from": "Feed moved"}, to="Feed target",
                            reason="tidy <b>up</b>", watchlist="watch", token=token)  # fmt: skip
    assert "move" in moved, moved
    response = await _feed(client, "action=feedrecentchanges&feedformat=rss&limit=10")
    parsed = feedparser.parse(response.content)
    assert not parsed.bozo, parsed.bozo_exception
    [item] = [e for e in parsed.entries if "moved page" in e.summary]
    assert "Admin" in item.summary and "Feed target" in item.summary
    # The description as sent (feedparser cleans the HTML it hands out).
    root = ElementTree.fromstring(response.content)
    [sent] = [d.text or "" for d in root.iter("description") if "moved page" in (d.text or "")]
    user = '<a href="/wiki/User:Admin" class="mw-userlink" title="User:Admin"><bdi>Admin</bdi></a>'
    assert sent.startswith(f"<p>{user} moved page <a ")
    assert 'title="Feed target">Feed target</a> tidy &lt;b&gt;up&lt;/b&gt;</p>' in sent
    assert "talk</a>" not in sent and "contribs</a>" not in sent
    atom = await _feed(client, "action=feedrecentchanges&feedformat=atom&limit=10")
    summaries = [s.text for s in ElementTree.fromstring(atom.content).iter(
        "{http://www.w3.org/2005/Atom}summary")]  # fmt: skip
    assert sent in summaries
    watched = feedparser.parse(
        (await _feed(client, "action=feedwatchlist&feedformat=rss&hours=1")).content
    )
    [line] = [e for e in watched.entries if "Special:Log" in e.link]
    assert line.summary == "tidy <b>up</b> (Admin)"
    # Hidden, the log entry leaves the feed.
    await wiki.db.write(lambda conn: create_user(conn, *HIDER, groups=["suppress"]))
    async with wiki.client() as hider:
        login = await wiki.api(hider, action="query", meta="tokens", type="login")
        await wiki.post(hider, action="login", lgname=HIDER[0], lgpassword=HIDER[1],
                        lgtoken=login["query"]["tokens"]["logintoken"])  # fmt: skip
        answer = await wiki.post(hider, action="revisiondelete", type="logging",
                                 ids=str(await _last_move(wiki, client)),
                                 hide="content", token=await wiki.csrf(hider))  # fmt: skip
    assert answer["revisiondelete"]["items"][0]["status"] == "Success", answer
    again = feedparser.parse(
        (await _feed(client, "action=feedrecentchanges&feedformat=rss&limit=10")).content
    )
    assert not [e for e in again.entries if "moved page" in e.summary]


async def _last_move(wiki: WikiHarness, client: httpx.AsyncClient) -> int:
    found = await wiki.api(client, action="query", list="logevents", letype="move", lelimit=1)
    return int(found["query"]["logevents"][0]["logid"])
