"""`Special:ProtectedPages` and `Special:ProtectedTitles`: the protections in force, filtered by
namespace, type (edit, move, upload) and level, paged by `limit` and `offset`; for creation
protections, who set them (hidden users stay hidden) and why."""

from __future__ import annotations

from starlette.responses import Response

from atrium.wiki.changes.protection import LEVELS
from atrium.wiki.reads.protections import protected_pages, protected_titles
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import Title
from atrium.wiki.web.comments import comment_html
from atrium.wiki.web.dates import local_time
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.recentchanges import namespace_filter
from atrium.wiki.web.special.render import render

TYPES = ("edit", "move", "upload")
LEVEL_NAMES = {"": "All levels", "autoconfirmed": "Autoconfirmed users", "sysop": "Administrators"}


def _expiry(value: object) -> str:
    text = str(value or "infinity")
    return "infinite" if text == "infinity" else local_time(text)


def _filters(ctx: SpecialContext) -> tuple[int | None, str, int, int]:
    level = ctx.param("level")
    return (
        namespace_filter(ctx),
        level if level in LEVELS else "",
        ctx.int_param("offset", 0, 0, 10_000_000),
        ctx.int_param("limit", 50, 1, 500),
    )


async def pages(ctx: SpecialContext) -> Response:
    ns, level, offset, limit = _filters(ctx)
    kind = ctx.param("type", "edit")
    kind = kind if kind in TYPES else "edit"
    rows = await ctx.db.read(protected_pages, ns, kind, level, offset, limit, now14())
    found = [
        {
            "title": Title(int(r["page_namespace"]), str(r["page_title"])),
            "level": LEVEL_NAMES.get(str(r["pr_level"]), str(r["pr_level"])),
            "expiry": _expiry(r["pr_expiry"]),
            "cascade": bool(r["pr_cascade"]),
        }
        for r in rows[:limit]
    ]
    return await render(
        ctx, "protectedpages.html", "Protected pages", name="ProtectedPages", rows=found,
        namespace=ns, kind=kind, types=TYPES, level=level, levels=LEVEL_NAMES, offset=offset,
        limit=limit, more=len(rows) > limit,
    )  # fmt: skip


async def titles(ctx: SpecialContext) -> Response:
    ns, level, offset, limit = _filters(ctx)
    rows = await ctx.db.read(protected_titles, ns, level, offset, limit, now14())
    shown = rows[:limit]
    see_hidden = ctx.reader.allowed("hideuser")
    reasons = await comment_html(
        ctx.db, ctx.site,
        [(str(r["comment_text"] or ""), None) for r in shown],
    )  # fmt: skip
    found = [
        {
            "title": Title(int(r["pt_namespace"]), str(r["pt_title"])),
            "level": LEVEL_NAMES.get(str(r["pt_create_perm"]), str(r["pt_create_perm"])),
            "expiry": _expiry(r["pt_expiry"]),
            "user": None if r["user_hidden"] and not see_hidden else r["user_name"],
            "time": local_time(str(r["pt_timestamp"])),
            "reason": reason,
        }
        for r, reason in zip(shown, reasons, strict=True)
    ]
    return await render(
        ctx, "protectedpages.html", "Protected titles", name="ProtectedTitles", rows=found,
        namespace=ns, kind="create", types=(), level=level, levels=LEVEL_NAMES, offset=offset,
        limit=limit, more=len(rows) > limit,
    )  # fmt: skip


PAGE = SpecialPage("ProtectedPages", "Protected pages", "maintenance", pages)
TITLES_PAGE = SpecialPage("ProtectedTitles", "Protected titles", "maintenance", titles)
