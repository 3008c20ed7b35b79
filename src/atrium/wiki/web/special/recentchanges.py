"""`Special:RecentChanges`: the latest changes, with MediaWiki's legacy filters as query values
(`namespace`, `hideminor`, `hidebots` (on by default), `hidemyself`, `days` up to 90 and `limit` up
to 5000) and the links to change the period and the number shown."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from starlette.responses import Response

from atrium.wiki.reads.recent_changes import recent_changes
from atrium.wiki.reads.users import options as user_options
from atrium.wiki.web.special.changelines import change_lines, finished
from atrium.wiki.web.special.context import SpecialContext
from atrium.wiki.web.special.page import SpecialPage
from atrium.wiki.web.special.render import render

LIMITS = (50, 100, 250, 500)
DAYS = (1, 3, 7, 14, 30)


def since(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y%m%d%H%M%S")


def namespace_filter(ctx: SpecialContext) -> int | None:
    text = ctx.param("namespace")
    if not text.lstrip("-").isdigit():
        return None
    ns = int(text)
    return ns if ns in ctx.site.namespaces.by_id else None


def number(value: object, default: int) -> int:
    """A numeric preference (stored as text), or the default."""
    text = str(value if value is not None else "")
    return int(text) if text.isdigit() and len(text) < 7 else default


async def handle(ctx: SpecialContext) -> Response:
    namespace = namespace_filter(ctx)
    prefs = await ctx.db.read(user_options, ctx.reader.id) if ctx.reader.registered else {}
    days = ctx.int_param("days", number(prefs.get("rcdays"), 7), 1, 90)
    limit = ctx.int_param("limit", number(prefs.get("rclimit"), 50), 1, 5000)
    hide_minor = ctx.flag("hideminor") or (
        "hideminor" not in ctx.request.query_params and number(prefs.get("hideminor"), 0) > 0
    )
    hide_bots = ctx.param("hidebots", "1") not in ("", "0")
    hide_mine = ctx.flag("hidemyself") and ctx.reader.registered
    rows = await ctx.db.read(
        lambda conn: recent_changes(
            conn,
            since=since(days),
            limit=limit,
            namespace=namespace,
            hide_minor=hide_minor,
            hide_bots=hide_bots,
            hide_actor=ctx.reader.name if hide_mine else None,
        )
    )
    prefixes = {ns: ctx.site.namespaces.prefix(ns) for ns in ctx.site.namespaces.ids()}
    options = {
        "namespace": "" if namespace is None else namespace,
        "hideminor": int(hide_minor),
        "hidebots": int(hide_bots),
        "hidemyself": int(hide_mine),
        "days": days,
        "limit": limit,
    }
    lines = await finished(ctx.db, ctx.site, change_lines(ctx.reader, rows, prefixes))
    # An empty list answers 404, as MediaWiki's ChangesListSpecialPage does.
    return await render(
        ctx,
        "recentchanges.html",
        "Recent changes",
        200 if lines else 404,
        lines=lines,
        options=options,
        namespace=namespace,
        limits=LIMITS,
        day_choices=DAYS,
    )


PAGE = SpecialPage("RecentChanges", "Recent changes", "changes", handle)
