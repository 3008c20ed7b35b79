"""`Special:Export`: the current revision of the listed pages (one title a line, or the sub-page)
as a MediaWiki XML dump (export-0.11), the same XML as the API's `export`; saved as a file with
`wpDownload`. Invalid and missing titles are skipped, as MediaWiki skips them."""

from __future__ import annotations

from starlette.responses import Response

from atrium.core.page_headers import PAGE_HEADERS
from atrium.wiki.dump import export_pages
from atrium.wiki.reads.pages import pages_by_titles
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

MAX_TITLES = 500
MAX_TEXT = 64 * 1024


async def handle(ctx: SpecialContext) -> Response:
    text = (ctx.param("pages") or ctx.subpage)[:MAX_TEXT]
    wanted = [line.strip() for line in text.splitlines() if line.strip()][:MAX_TITLES]
    asked = ctx.method == "POST" or bool(ctx.subpage) or "pages" in ctx.request.query_params
    if not asked or not wanted:
        return await render(ctx, "export.html", "Export pages", pages=text, empty=asked)
    titles = [t for t in (ctx.title_of(line) for line in wanted) if t is not None]
    rows = await ctx.db.read(pages_by_titles, [(t.ns, t.dbkey) for t in titles])
    by_title = {(int(r["page_namespace"]), str(r["page_title"])): int(r["page_id"]) for r in rows}
    ids = list(
        dict.fromkeys(by_title[k] for k in ((t.ns, t.dbkey) for t in titles) if k in by_title)
    )
    xml = await ctx.db.read(export_pages, ctx.site, ids)
    headers = dict(PAGE_HEADERS)
    if ctx.flag("wpDownload"):
        headers["Content-Disposition"] = 'attachment; filename="export.xml"'
    return Response(xml, media_type="application/xml; charset=utf-8", headers=headers)


PAGE = SpecialPage("Export", "Export pages", "pagetools", handle)
