"""The wiki list scenarios, on a generated wiki of 100,000 pages and 1,000,000 revisions:
`bench.wiki_foundation`'s dump with ten revisions per page instead of three (its own import bench
keeps 300,000), imported with the real CLI and cached by `bench.wiki_props.imported_cache`:

- `allpages-500`: `list=allpages&aplimit=500`.
- `allrevisions-500`: `list=allrevisions&arvlimit=500` (newest first, over all revisions).
- `search-two-words`: `list=search&srsearch=<two words>&srwhat=text` (full text, totalhits).
- `categorymembers-500`: `list=categorymembers&cmtitle=<a category>&cmlimit=500`.
- `backlinks-500`: `list=backlinks&bltitle=<a linked page>&bllimit=500`.

Each at one connection (targets: median <= 20 ms for the lists, <= 50 ms for search) and at 16
connections (the request rate, no target).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from urllib.parse import quote

import httpx
from rich.console import Console

from bench.harness import (
    BenchError,
    HttpRequest,
    Row,
    ScenarioResult,
    Server,
    Settings,
    Target,
    measure,
    running,
)
from bench.wiki_foundation import PAGES, WORDS, _title, atrium_server
from bench.wiki_props import imported_wiki

FAMILY = "wiki_lists"
LOW, HIGH = 1, 16
CONNECTIONS = (LOW, HIGH)
LIST_TARGET = (Target("p50_ms", 20),)
SEARCH_TARGET = (Target("p50_ms", 50),)
REVISIONS_PER_PAGE = 10
REVISIONS = PAGES * REVISIONS_PER_PAGE


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


@dataclass(frozen=True)
class Query:
    """One list query, asked the same way of Atrium and of the reference MediaWiki."""

    key: str
    title: str
    path: str
    marker: str
    targets: tuple[Target, ...]
    description: str
    member: str  # the list in the response's `query` object

    def rows(self, body: str) -> list[object]:
        """What identifies the answer: the titles (revision ids for allrevisions) in order."""
        data = json.loads(body)
        items = data.get("query", {}).get(self.member, [])
        if self.member == "allrevisions":
            return [[p["title"], [r["revid"] for r in p["revisions"]]] for p in items]
        rows: list[object] = [item["title"] for item in items]
        if self.member == "search":
            rows.append({"totalhits": data["query"].get("searchinfo", {}).get("totalhits")})
        return rows


def queries(base: str) -> list[Query]:
    """The five queries, with a backlinks target chosen on the wiki served at `base`."""
    linked = _most_linked(base)
    words = f"{WORDS[3]} {WORDS[7]}"
    api = "/w/api.php?action=query&format=json"
    return [
        Query("allpages-500", "list=allpages&aplimit=500",
              f"{api}&list=allpages&aplimit=500", '"allpages"', LIST_TARGET,
              "500 pages of the main namespace in title order.", "allpages"),
        Query("allrevisions-500", "list=allrevisions&arvlimit=500",
              f"{api}&list=allrevisions&arvlimit=500", '"allrevisions"', LIST_TARGET,
              f"The 500 newest of the {REVISIONS:,} revisions, grouped by page.", "allrevisions"),
        Query("search-two-words", f"list=search&srsearch={words}&srwhat=text",
              f"{api}&list=search&srwhat=text&srsearch={quote(words)}", '"search"',
              SEARCH_TARGET,
              "Full-text search for two common words (the first 10 hits in page-id order as "
              "MediaWiki's SQL backend gives them, with snippets, sizes, word counts and the total "
              "number of hits).", "search"),
        Query("categorymembers-500", "list=categorymembers&cmtitle=Category:Topic 5&cmlimit=500",
              f"{api}&list=categorymembers&cmtitle={quote('Category:Topic 5')}&cmlimit=500",
              '"categorymembers"', LIST_TARGET,
              "The members of one category by sort key.", "categorymembers"),
        Query("backlinks-500", f"list=backlinks&bltitle={linked}&bllimit=500",
              f"{api}&list=backlinks&bltitle={quote(linked)}&bllimit=500", '"backlinks"',
              LIST_TARGET,
              "The pages linking to the best linked of 40 candidate pages (the generated "
              "links are spread evenly, so no page has hundreds).", "backlinks"),
    ]  # fmt: skip


def checked(base: str, query: Query) -> httpx.Response:
    """One request of `query`, which must succeed; raises BenchError otherwise."""
    check = httpx.get(base + query.path, timeout=120)
    if check.status_code != 200 or query.marker not in check.text or '"error"' in check.text:
        raise BenchError(f"a test request failed: {check.status_code} {check.text[:500]}")
    return check


def _scenario(
    settings: Settings, console: Console, server: Server, served_by: str, query: Query
) -> ScenarioResult:
    console.rule(f"wiki / {query.key}")
    check = checked(server.base_url, query)
    count = len(query.rows(check.text)) - (query.member == "search")
    requests = [HttpRequest("GET", query.path)]
    low = measure(settings, console, server, f"{query.key}, 1 connection", LOW, requests,
                  query.marker)  # fmt: skip
    high = measure(settings, console, server, f"{query.key}, 16 connections", HIGH, requests,
                   query.marker)  # fmt: skip
    return ScenarioResult(
        family=FAMILY,
        key=query.key,
        title=query.title,
        description=(
            f"{query.description} `GET {query.path}`: {count} rows, response of "
            f"{len(check.content) / 1024:,.1f} KB, served by {served_by}."
        ),
        rows=[Row(low, query.targets), Row(high, ())],
    )


def run(settings: Settings, console: Console) -> list[ScenarioResult]:
    data_dir = imported_wiki(console, REVISIONS_PER_PAGE)
    try:
        server, served_by = atrium_server(data_dir)
        with running(server):
            return [
                _scenario(settings, console, server, served_by, query)
                for query in queries(server.base_url)
            ]
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
