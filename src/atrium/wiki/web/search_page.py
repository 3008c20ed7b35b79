"""`Special:Search` (and `index.php?search=`): "go" straight to a page whose title is the query,
else full-text results with MediaWiki's snippets, through the same index and highlighter as
`list=search`."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from atrium.core.db import Conn, Database
from atrium.wiki import search
from atrium.wiki.reads import comparing
from atrium.wiki.reads import page_view as reading
from atrium.wiki.reads import revisions as revision_reads
from atrium.wiki.site import Site
from atrium.wiki.titles import NS_SPECIAL, InvalidTitle, Title
from atrium.wiki.web import links, neighbours
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.skin import render_page, trusted
from atrium.wiki.web.specialpages import special_page
from atrium.wiki.web.viewer import current_viewer

PAGE_SIZE = 20
MAX_LIMIT = 500


@dataclass(frozen=True)
class Result:
    name: str
    href: str
    snippet: object  # trusted HTML from the highlighter
    size: int
    words: int
    timestamp: str


def _int(value: str | None, default: int, high: int) -> int:
    if value is None or not value.isdigit():
        return default
    return min(int(value), high)


def _near_match(site: Site, query: str) -> list[Title]:
    """SearchNearMatcher's candidates: the query as typed and case-adjusted."""
    found = []
    for variant in dict.fromkeys((query, query.lower(), query.title(), query.upper())):
        try:
            title = site.parser.parse(variant)
        except InvalidTitle:
            continue
        if title.dbkey and not title.interwiki and title.ns >= 0:
            found.append(title)
    return found


def _results(
    conn: Conn, site: Site, query: str, limit: int, offset: int
) -> tuple[list[Result], int, bool]:
    hits = search.search(
        conn, query, [0], titles_only=False, limit=limit + 1, offset=offset, count=True
    )
    patterns = search.parse_query(query).highlight
    results = []
    for row in hits.rows[:limit]:
        title = Title(int(row["page_namespace"]), str(row["page_title"]))
        latest = revision_reads.latest_text(conn, int(row["page_id"]))
        text = str(latest["old_text"]) if latest is not None else ""
        stamp = _timestamp(conn, site, int(row["page_latest"]))
        results.append(
            Result(
                links.prefixed_text(site, title),
                links.page_href(site, title),
                trusted(search.highlight(text, patterns)),
                int(row["page_len"]),
                search.word_count(text),
                stamp,
            )
        )
    return results, hits.total, len(hits.rows) > limit


def _timestamp(conn: Conn, site: Site, rev_id: int) -> str:
    rev = comparing.revision(conn, site, rev_id)
    return local_time(rev.timestamp) if rev is not None else ""


@special_page("Search", group="redirects")
async def search_page(request: Request, site: Site, db: Database, subpage: str | None) -> Response:
    params = request.query_params
    query = (params.get("search") or subpage or "").strip()
    title = Title(NS_SPECIAL, "Search")
    if query and "go" in params and "fulltext" not in params:
        near = _near_match(site, query)
        exists = await db.read(reading.existing, {(t.ns, t.dbkey) for t in near})
        for candidate in near:
            if (candidate.ns, candidate.dbkey) in exists:
                return RedirectResponse(links.page_href(site, candidate), 302)
    limit = max(1, _int(params.get("limit"), PAGE_SIZE, MAX_LIMIT))
    offset = _int(params.get("offset"), 0, 100_000)
    results: list[Result] = []
    total, more = 0, False
    create_href = ""
    exact_href = ""
    candidates: list[Title] = []
    if query:
        results, total, more = await db.read(_results, site, query, limit, offset)
        candidates = _near_match(site, query)
        if candidates:
            first = candidates[0]
            exists = await db.read(reading.existing, {(first.ns, first.dbkey)})
            if (first.ns, first.dbkey) in exists:
                exact_href = links.page_href(site, first)
            else:
                create_href = links.index_href(site, first, action="edit", redlink="1")
    chat_hits: list[neighbours.ChatMessageHit] = []
    find_messages = neighbours.chat_search(db)
    if query and find_messages is not None:
        # The messages the viewer's chat user may read (none for a viewer who is no member).
        account = (await current_viewer(request, db)).account
        reader = account.id if account.registered else None
        chat_hits = await find_messages(reader, query, limit)
    context = {
        "query": query,
        "results": results,
        "chat_hits": chat_hits,
        "total": total,
        "offset": offset,
        "create_href": create_href,
        "exact_href": exact_href,
        "exact_name": links.prefixed_text(site, candidates[0]) if candidates else "",
        "prev_href": links.special_href(
            "Search", search=query, limit=str(limit), offset=str(max(0, offset - limit)),
            fulltext="1",
        ) if offset > 0 else "",
        "next_href": links.special_href(
            "Search", search=query, limit=str(limit), offset=str(offset + limit), fulltext="1"
        ) if more else "",
    }  # fmt: skip
    return await render_page(
        request, site, db, "search.html", context, title=title,
        heading="Search results" if query else "Search",
    )  # fmt: skip
