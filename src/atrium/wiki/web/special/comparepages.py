"""`Special:ComparePages`: the differences between two pages (their current revisions) or two
revisions by id, shown as the diff page shows them; a missing page or revision says so."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response

from atrium.wiki.reads.page_view import current_text
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import Links, render


async def _revision(ctx: SpecialContext, page_field: str, rev_field: str) -> tuple[int, str]:
    """A side's revision id, or 0 and why not."""
    rev = ctx.param(rev_field).strip()
    if rev:
        return (int(rev), "") if rev.isdigit() and len(rev) < 12 else (0, "not a revision id")
    text = ctx.param(page_field).strip()
    title = ctx.title_of(text)
    if title is None:
        return 0, "not a valid title"
    found = await ctx.db.read(current_text, title.ns, title.dbkey)
    return (found[1], "") if found else (0, "no such page")


async def handle(ctx: SpecialContext) -> Response:
    asked = any(ctx.param(f) for f in ("page1", "page2", "rev1", "rev2"))
    error = ""
    if asked:
        old, old_error = await _revision(ctx, "page1", "rev1")
        new, new_error = await _revision(ctx, "page2", "rev2")
        if old and new:
            href = Links(ctx.site).index(ctx.title, oldid=old, diff=new)
            return RedirectResponse(href.replace("title=Special:ComparePages&", ""), 302)
        error = "; ".join(
            f"{side}: {why}" for side, why in (("First", old_error), ("Second", new_error)) if why
        )
    return await render(
        ctx, "comparepages.html", "Compare pages", error=error,
        values={f: ctx.param(f) for f in ("page1", "rev1", "page2", "rev2")},
    )  # fmt: skip


PAGE = SpecialPage("ComparePages", "Compare pages", "pagetools", handle)
