"""Template bombs against MediaWiki's preprocessor limits: a ten-by-ten template tree, an argument
doubled at every call, a deep chain, a tree of empty templates, and a wall-clock budget. Each
used to hold the server (seconds to minutes) or answer hundreds of megabytes; now each stops at
its limit with MediaWiki's warning and tracking category, and renders off the event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest

from atrium.wiki.changes import pages
from atrium.wiki.wikitext import expand
from tests.wiki.conftest import WikiHarness, client, wiki
from tests.wiki.test_write_actions import GIF

pytestmark = pytest.mark.anyio


@pytest.fixture
def service_under_test() -> str:
    """The database these tests get is the wiki's."""
    return "wiki"


__all__ = ["client", "wiki"]

ARG_BOMB = "{{Arg|" * 8 + "x" + "}}" * 8


async def _tree(wiki: WikiHarness, prefix: str, leaf: str, levels: int) -> None:
    """Template:<prefix>0 is `leaf`; Template:<prefix><i> calls <prefix><i-1> ten times."""
    await wiki.edit_page(f"Template:{prefix}0", leaf)
    for i in range(1, levels + 1):
        await wiki.edit_page(f"Template:{prefix}{i}", f"{{{{{prefix}{i - 1}}}}}" * 10)


async def _parse(wiki: WikiHarness, client: httpx.AsyncClient, text: str) -> Any:
    response = await client.post(
        "/w/api.php",
        data={
            "action": "parse",
            "title": "Bomb",
            "text": text,
            "contentmodel": "wikitext",
            "prop": "text|categories|limitreportdata",
            "format": "json",
            "formatversion": "2",
        },
    )
    assert response.status_code == 200
    return response


def _report(parsed: Any) -> dict[str, Any]:
    return {e["name"]: e for e in parsed["limitreportdata"]}


def _categories(parsed: Any) -> list[str]:
    return [c["category"] for c in parsed["categories"]]


async def test_template_tree_stops_at_the_include_size(
    wiki: WikiHarness, client: httpx.AsyncClient
) -> None:
    await _tree(wiki, "L", "lol", 6)
    parsed = (await _parse(wiki, client, "{{L6}}")).json()["parse"]
    assert (
        "<!-- WARNING: template omitted, post-expand include size too large -->" in (parsed["text"])
    )
    assert "Pages_where_template_include_size_is_exceeded" in _categories(parsed)
    report = _report(parsed)
    size = report["limitreport-postexpandincludesize"]
    assert size["0"] <= size["1"] == 2 * 1024 * 1024
    # A million calls before; the limit cuts the tree after its first few hundred thousand.
    assert report["limitreport-ppvisitednodes"]["0"] < 400_000


async def test_argument_doubling_is_capped(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    await wiki.edit_page("Template:Arg", "{{{1}}}" * 10)
    response = await _parse(wiki, client, ARG_BOMB)
    # 100 MB before.
    assert len(response.content) < 3_000_000
    parsed = response.json()["parse"]
    assert "<!-- WARNING: argument omitted, expansion size too large -->" in parsed["text"]
    assert "Pages_containing_omitted_template_arguments" in _categories(parsed)
    size = _report(parsed)["limitreport-templateargumentsize"]
    assert size["0"] <= size["1"]


async def test_node_count_limit(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(expand, "MAX_NODE_COUNT", 5_000)
    await _tree(wiki, "E", "", 5)
    parsed = (await _parse(wiki, client, "{{E5}}")).json()["parse"]
    assert '<span class="error">Node-count limit exceeded</span>' in parsed["text"]
    assert "Pages_where_node_count_is_exceeded" in _categories(parsed)


async def test_expansion_depth_limit(wiki: WikiHarness, client: httpx.AsyncClient) -> None:
    for i in range(120):
        await wiki.edit_page(f"Template:D{i}", f"d{{{{D{i + 1}}}}}")
    parsed = (await _parse(wiki, client, "{{D0}}")).json()["parse"]
    assert '<span class="error">Expansion depth limit exceeded</span>' in parsed["text"]
    assert "Pages_where_expansion_depth_is_exceeded" in _categories(parsed)
    depth = _report(parsed)["limitreport-expansiondepth"]
    assert depth["0"] <= depth["1"] == 100


async def test_time_budget_cuts_the_expansion(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _tree(wiki, "E", "", 4)
    monkeypatch.setattr(expand, "_time_budget", 0.0)
    parsed = (await _parse(wiki, client, "{{E4}}")).json()["parse"]
    assert '<span class="error">Expansion time limit exceeded</span>' in parsed["text"]


async def test_saving_a_huge_tree_completes(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ten to the eighth calls: the save of Template:L8 ran for more than six minutes. The size
    # limit must stop it, not the time budget, which a loaded machine could reach first.
    monkeypatch.setattr(expand, "_time_budget", 600.0)
    await _tree(wiki, "L", "lol", 8)
    await wiki.edit_page("Bombed", "{{L8}}")
    data = await wiki.api(client, action="query", titles="Bombed", prop="categories")
    (page,) = data["query"]["pages"].values()
    names = [c["title"] for c in page["categories"]]
    assert names == ["Category:Pages where template include size is exceeded"]
    view = await client.get("/wiki/Bombed")
    assert view.status_code == 200
    assert "post-expand include size too large" in view.text


async def test_a_slow_parse_does_not_hold_other_requests(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _tree(wiki, "E", "", 4)
    monkeypatch.setattr(expand, "MAX_NODE_COUNT", 10_000_000)
    finished: list[str] = []

    async def slow() -> None:
        # A hundred thousand empty calls, six times over: seconds of rendering.
        await _parse(wiki, client, "{{E4}}" * 6)
        finished.append("parse")

    async def quick() -> None:
        await asyncio.sleep(0.05)
        await wiki.api(client, action="query", meta="siteinfo")
        finished.append("siteinfo")

    await asyncio.gather(slow(), quick())
    assert finished == ["siteinfo", "parse"]


async def _while_expanding(
    monkeypatch: pytest.MonkeyPatch, client: httpx.AsyncClient, slow: Any
) -> None:
    """Run `slow` (a request that expands templates for link tables) and, once the expansion
    has begun, a siteinfo request, which must be answered while the expansion still runs."""
    started, answered, ended = threading.Event(), threading.Event(), threading.Event()
    original = pages._add_transcluded_categories

    def watched(*args: Any) -> Any:
        started.set()
        # The expansion waits for the other request's answer (at most 10 s): where it runs
        # off the event loop that answer comes; in the event loop's thread it cannot.
        answered.wait(10)
        try:
            return original(*args)
        finally:
            ended.set()

    monkeypatch.setattr(pages, "_add_transcluded_categories", watched)
    answered_during: list[bool] = []

    async def quick() -> None:
        while not started.is_set():
            await asyncio.sleep(0.005)
        response = await client.get(
            "/w/api.php", params={"action": "query", "meta": "siteinfo", "format": "json"}
        )
        assert response.status_code == 200
        answered_during.append(not ended.is_set())
        answered.set()

    await asyncio.gather(slow, quick())
    assert answered_during == [True]


async def test_saving_a_slow_page_does_not_hold_other_requests(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Saving expands the page's templates for its link tables; inside the write, which runs on
    # the event loop, the expansion held every other request until it ended.
    await _tree(wiki, "E", "", 4)
    monkeypatch.setattr(expand, "MAX_NODE_COUNT", 10_000_000)
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    save = wiki.post(client, action="edit", title="Slow", text="{{E4}}" * 6, token=token)
    saved: list[Any] = []

    async def slow() -> None:
        saved.append(await save)

    await _while_expanding(monkeypatch, client, slow())
    assert saved[0]["edit"]["result"] == "Success", saved
    data = await wiki.api(client, action="query", titles="Slow", prop="templates", tllimit="max")
    (page,) = data["query"]["pages"].values()
    assert [t["title"] for t in page["templates"]] == [f"Template:E{i}" for i in range(5)]


async def test_relinking_a_slow_page_does_not_hold_other_requests(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # action=purge&forcelinkupdate expanded the page's templates inside its write, any number
    # of times.
    await _tree(wiki, "E", "", 4)
    monkeypatch.setattr(expand, "MAX_NODE_COUNT", 10_000_000)
    await wiki.edit_page("Slow", "{{E4}}" * 6)
    await wiki.login(client, "Admin")
    purged: list[Any] = []

    async def slow() -> None:
        purged.append(await wiki.post(client, action="purge", titles="Slow", forcelinkupdate="1"))

    await _while_expanding(monkeypatch, client, slow())
    assert "linkupdate" in purged[0]["purge"][0], purged


async def _slow_page(wiki: WikiHarness, monkeypatch: pytest.MonkeyPatch, title: str) -> str:
    """`title` saved with a text whose expansion takes a while; the text."""
    await _tree(wiki, "E", "", 4)
    monkeypatch.setattr(expand, "MAX_NODE_COUNT", 10_000_000)
    text = "{{E4}}" * 6
    await wiki.edit_page(title, text)
    return text


async def _links_of(wiki: WikiHarness, client: httpx.AsyncClient, title: str) -> list[str]:
    data = await wiki.api(client, action="query", titles=title, prop="templates", tllimit="max")
    (page,) = data["query"]["pages"].values()
    return [t["title"] for t in page.get("templates", [])]


async def test_rolling_back_to_a_slow_page_does_not_hold_other_requests(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _slow_page(wiki, monkeypatch, "Slow")
    await wiki.edit_page("Slow", "vandalism", user="Alice")
    await wiki.login(client, "Admin")
    tokens = await wiki.api(client, action="query", meta="tokens", type="rollback")
    token = tokens["query"]["tokens"]["rollbacktoken"]
    done: list[Any] = []

    async def slow() -> None:
        done.append(
            await wiki.post(client, action="rollback", title="Slow", user="Alice", token=token)
        )

    await _while_expanding(monkeypatch, client, slow())
    assert "rollback" in done[0], done
    assert await _links_of(wiki, client, "Slow") == [f"Template:E{i}" for i in range(5)]


async def test_undeleting_a_slow_page_does_not_hold_other_requests(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _slow_page(wiki, monkeypatch, "Slow")
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    deleted = await wiki.post(client, action="delete", title="Slow", token=token)
    assert "delete" in deleted, deleted
    done: list[Any] = []

    async def slow() -> None:
        done.append(await wiki.post(client, action="undelete", title="Slow", token=token))

    await _while_expanding(monkeypatch, client, slow())
    assert done[0]["undelete"]["revisions"] == 1, done
    assert await _links_of(wiki, client, "Slow") == [f"Template:E{i}" for i in range(5)]


async def test_uploading_with_a_slow_description_does_not_hold_other_requests(
    wiki: WikiHarness, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _slow_page(wiki, monkeypatch, "Elsewhere")
    await wiki.login(client, "Admin")
    token = await wiki.csrf(client)
    done: list[Any] = []

    async def slow() -> None:
        sent = await client.post(
            "/w/api.php",
            data={"action": "upload", "filename": "Slow.gif", "text": "{{E4}}" * 6,
                  "comment": "c", "token": token, "format": "json"},
            files={"file": ("s.gif", GIF, "image/gif")},
        )  # fmt: skip
        done.append(sent.json())

    await _while_expanding(monkeypatch, client, slow())
    assert done[0]["upload"]["result"] == "Success", done
    assert await _links_of(wiki, client, "File:Slow.gif") == [f"Template:E{i}" for i in range(5)]
