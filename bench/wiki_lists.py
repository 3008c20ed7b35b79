"""The wiki list scenarios of issue 8, on the generated 100,000-page wiki of
`bench.wiki_foundation` (its dump imported with the real CLI, cached by `bench.wiki_props`):

- `allpages-500`: `list=allpages&aplimit=500`.
- `allrevisions-500`: `list=allrevisions&arvlimit=500` (newest first, over all revisions).
- `search-two-words`: `list=search&srsearch=<two words>&srwhat=text` (full text, totalhits).
- `categorymembers-500`: `list=categorymembers&cmtitle=<a category>&cmlimit=500`.
- `backlinks-500`: `list=backlinks&bltitle=<a linked page>&bllimit=500`.

Each at one connection (targets: median <= 20 ms for the lists, <= 50 ms for search) and at 16
connections (the request rate, no target).
"""

from __future__ import annotations

import shutil
from urllib.parse import quote

import httpx
from rich.console import Console

from bench.harness import (
    BenchError,
    HttpRequest,
    Row,
    ScenarioResult,
    Settings,
    Target,
    measure,
    running,
)
from bench.wiki_foundation import WORDS, _title, atrium_server
from bench.wiki_props import imported_wiki

FAMILY = "wiki_lists"
LOW, HIGH = 1, 16
CONNECTIONS = (LOW, HIGH)
LIST_TARGET = (Target("p50_ms", 20),)
SEARCH_TARGET = (Target("p50_ms", 50),)


def _most_linked(base: str) -> str:
    """A page with many backlinks: the first title of querypage=Mostlinked would cost a scan of
    every link, so take the best linked of a few candidates instead."""
    best, best_count = _title(1000)[1], -1
    with httpx.Client(base_url=base, timeout=60) as client:
        for i in range(1000, 1040):
            title = _title(i)[1]
            data = client.get(
                "/w/api.php",
                params={"action": "query", "list": "backlinks", "bltitle": title,
                        "bllimit": "500", "format": "json"},
            ).json()  # fmt: skip
            count = len(data.get("query", {}).get("backlinks", []))
            if count > best_count:
                best, best_count = title, count
    return best


def _scenario(
    settings: Settings,
    console: Console,
    server: object,
    served_by: str,
    key: str,
    title: str,
    path: str,
    marker: str,
    targets: tuple[Target, ...],
    description: str,
) -> ScenarioResult:
    console.rule(f"wiki / {key}")
    check = httpx.get(server.base_url + path, timeout=60)  # type: ignore[attr-defined]
    if check.status_code != 200 or marker not in check.text or '"error"' in check.text:
        raise BenchError(f"a test request failed: {check.status_code} {check.text[:500]}")
    requests = [HttpRequest("GET", path)]
    low = measure(settings, console, server, f"{key}, 1 connection", LOW, requests, marker)  # type: ignore[arg-type]
    high = measure(settings, console, server, f"{key}, 16 connections", HIGH, requests, marker)  # type: ignore[arg-type]
    return ScenarioResult(
        family=FAMILY,
        key=key,
        title=title,
        description=(
            f"{description} `GET {path}`, response of {len(check.content) / 1024:,.1f} KB, "
            f"served by {served_by}."
        ),
        rows=[Row(low, targets), Row(high, ())],
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    data_dir = imported_wiki(console)
    try:
        server, served_by = atrium_server(data_dir)
        with running(server):
            linked = _most_linked(server.base_url)
            words = f"{WORDS[3]} {WORDS[7]}"
            api = "/w/api.php?action=query&format=json"
            cases = [
                ("allpages-500", "list=allpages&aplimit=500",
                 f"{api}&list=allpages&aplimit=500", '"allpages"', LIST_TARGET,
                 "500 pages of the main namespace in title order."),
                ("allrevisions-500", "list=allrevisions&arvlimit=500",
                 f"{api}&list=allrevisions&arvlimit=500", '"allrevisions"', LIST_TARGET,
                 "The 500 newest of the 300,000 revisions, grouped by page."),
                ("search-two-words", f"list=search&srsearch={words}&srwhat=text",
                 f"{api}&list=search&srwhat=text&srsearch={quote(words)}", '"search"',
                 SEARCH_TARGET,
                 "Full-text search for two common words (about 80,000 hits; the first 10 in "
                 "page-id order as MediaWiki's SQL backend gives them, with snippets, sizes, "
                 "word counts and the total number of hits)."),
                ("categorymembers-500", "list=categorymembers&cmtitle=Category:Topic 5&cmlimit=500",
                 f"{api}&list=categorymembers&cmtitle={quote('Category:Topic 5')}&cmlimit=500",
                 '"categorymembers"', LIST_TARGET,
                 "The members of one category (about 100 pages) by sort key."),
                ("backlinks-500", f"list=backlinks&bltitle={linked}&bllimit=500",
                 f"{api}&list=backlinks&bltitle={quote(linked)}&bllimit=500", '"backlinks"',
                 LIST_TARGET,
                 "The pages linking to the best linked of 40 candidate pages (the generated "
                 "links are spread evenly, about ten per page, so no page has hundreds)."),
            ]  # fmt: skip
            return [
                _scenario(settings, console, server, served_by, *case)  # type: ignore[arg-type]
                for case in cases
            ]
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
