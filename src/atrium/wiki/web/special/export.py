"""`Special:Export`: the listed pages (one title a line, or the sub-page) as a MediaWiki XML dump
(export-0.11), the same XML as the API's `export`, saved as a file with `wpDownload`.

As in MediaWiki 1.39 (`$wgExportAllowHistory` on): a posted form exports every revision unless
`curonly` is ticked, a link (GET) only the current one unless it asks for `history`; `templates`
adds the templates the pages use, and "Add pages from category" (`addcat`, `catname`) fills the
list from a category, as many as `$wgExportPagelistLimit`. Invalid and missing titles are
skipped, as MediaWiki skips them. The reply is written as it is read, a few revisions at a time,
so a long history costs no more memory than a short one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import Response, StreamingResponse

from atrium.core.db import Conn
from atrium.core.page_headers import PAGE_HEADERS
from atrium.wiki.dump import EXPORT_FOOTER, export_header, export_page_step
from atrium.wiki.reads.categories import member_titles
from atrium.wiki.reads.pages import pages_by_titles, templates_of
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

# `$wgExportPagelistLimit`: titles taken from a category, and titles exported at once.
MAX_TITLES = 5000
MAX_TEXT = 1024 * 1024
# Revisions read per step of a full history (each up to the largest page's size).
REVISIONS_PER_STEP = 20


async def handle(ctx: SpecialContext) -> Response:
    text = (ctx.param("pages") or ctx.subpage)[:MAX_TEXT]
    if ctx.flag("addcat"):
        shown = await _with_category(ctx, text)
        return await render(ctx, "export.html", "Export pages", **shown, ticked=_ticked(ctx))
    wanted = [line.strip() for line in text.splitlines() if line.strip()][:MAX_TITLES]
    posted = ctx.method == "POST" and not ctx.subpage
    asked = posted or bool(ctx.subpage) or "pages" in ctx.request.query_params
    if not asked or not wanted:
        shown = _form(text, empty=asked)
        return await render(ctx, "export.html", "Export pages", **shown, ticked=_ticked(ctx))
    current_only = ctx.flag("curonly") if posted else not ctx.flag("history")
    titles = [t for t in (ctx.title_of(line) for line in wanted) if t is not None]
    keys = list(dict.fromkeys((t.ns, t.dbkey) for t in titles))
    ids = await ctx.db.read(_page_ids, keys, ctx.flag("templates"))
    headers = dict(PAGE_HEADERS)
    if ctx.flag("wpDownload"):
        headers["Content-Disposition"] = 'attachment; filename="export.xml"'
    return StreamingResponse(
        _export(ctx, ids, current_only),
        media_type="application/xml; charset=utf-8",
        headers=headers,
    )


def _ticked(ctx: SpecialContext) -> dict[str, bool]:
    """The check boxes as the form shows them: as posted when it comes back, else the defaults."""
    if ctx.method != "POST":
        return {"curonly": True, "templates": False, "wpDownload": True}
    return {name: ctx.flag(name) for name in ("curonly", "templates", "wpDownload")}


def _form(pages: str, *, empty: bool = False, category: str = "") -> dict[str, Any]:
    return {"pages": pages, "empty": empty, "category": category}


async def _with_category(ctx: SpecialContext, pages: str) -> dict[str, Any]:
    """The form again, its list followed by the pages of the category named in `catname`."""
    name = ctx.param("catname").strip()
    title = ctx.title_of(name)
    if title is None:
        return _form(pages, category=name)
    members = await ctx.db.read(member_titles, title.dbkey, MAX_TITLES)
    prefixed = [ctx.site.parser.prefixed_text(ns, key) for ns, key in members]
    if prefixed:
        pages = "\n".join([pages, *prefixed]) if pages else "\n".join(prefixed)
    return _form(pages, category=name)


def _page_ids(conn: Conn, keys: list[tuple[int, str]], templates: bool) -> list[int]:
    """The ids of the pages that exist, in the order asked, then (`templates`) those of the
    templates they use."""
    rows = pages_by_titles(conn, keys)
    by_key = {(int(r["page_namespace"]), str(r["page_title"])): int(r["page_id"]) for r in rows}
    ids = [by_key[k] for k in keys if k in by_key]
    if templates and ids:
        used = templates_of(
            conn, ids, namespaces=None, targets=None, descending=False, cont=None,
            limit=MAX_TITLES,
        )  # fmt: skip
        more = list(dict.fromkeys((int(r["tl_namespace"]), str(r["tl_title"])) for r in used))
        found = {
            (int(r["page_namespace"]), str(r["page_title"])): int(r["page_id"])
            for r in pages_by_titles(conn, more)
        }
        ids += [found[k] for k in more if k in found and found[k] not in ids]
    return ids[:MAX_TITLES]


async def _export(ctx: SpecialContext, ids: list[int], current_only: bool) -> AsyncIterator[str]:
    yield export_header(ctx.site)
    for page_id in ids:
        chunk, mark = await ctx.db.read(
            export_page_step, ctx.site, page_id, current_only, None, REVISIONS_PER_STEP
        )
        yield chunk
        while mark is not None:
            chunk, mark = await ctx.db.read(
                export_page_step, ctx.site, page_id, current_only, mark, REVISIONS_PER_STEP
            )
            yield chunk
    yield EXPORT_FOOTER


PAGE = SpecialPage("Export", "Export pages", "pagetools", handle)
