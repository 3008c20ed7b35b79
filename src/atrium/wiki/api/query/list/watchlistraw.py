"""`list=watchlistraw` (ApiQueryWatchlistRaw): the titles on a watchlist, the caller's or, with a
token, another user's; continued by (namespace, title)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    NAMESPACE,
    USER,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.journal import check_show, timestamp
from atrium.wiki.api.query.list.watchlist import watchlist_owner
from atrium.wiki.api.query.listing import (
    from_key,
    order,
    parse_continue,
    prefixed,
    split_page,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.messages import messages as msg
from atrium.wiki.titles import InvalidTitle

WL = schema.watchlist


WATCHLISTRAW = ModuleSpec(
    "watchlistraw",
    "ApiQueryWatchlistRaw",
    "list",
    "wr",
    (
        Param("continue"),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        limit(default=10),
        Param("prop", enum("changed"), multi=True),
        Param("show", enum("!changed", "changed"), multi=True),
        Param("owner", USER, subtypes=("name",)),
        Param("token", sensitive=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("fromtitle"),
        Param("totitle"),
    ),
    generator=True,
)


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = WATCHLISTRAW
    owner = await watchlist_owner(q, spec, params)
    show = list(params["show"] or ())
    check_show(spec, show, (("changed", "!changed"),))
    descending = params["dir"] == "descending"
    columns = [WL.c.wl_namespace, WL.c.wl_title]
    query = sa.select(WL.c.wl_namespace, WL.c.wl_title, WL.c.wl_notificationtimestamp).where(
        WL.c.wl_user == owner
    )
    if params["namespace"]:
        query = query.where(WL.c.wl_namespace.in_(params["namespace"]))
    if "changed" in show:
        query = query.where(WL.c.wl_notificationtimestamp.is_not(None))
    if "!changed" in show:
        query = query.where(WL.c.wl_notificationtimestamp.is_(None))
    for side in ("fromtitle", "totitle"):
        text = params[side]
        if text is None:
            continue
        try:
            title = q.ctx.site.parser.parse(text)
        except InvalidTitle as exc:
            raise ApiUsageError(
                "invalidtitle",
                msg.api("apierror-invalidtitle", msg.escape_wikitext(text)),
                module=spec.path,
            ) from exc
        # fromtitle: where the walk begins; totitle: where it ends (both inclusive).
        reverse = descending if side == "fromtitle" else not descending
        query = query.where(from_key(columns, [title.ns, title.dbkey], reverse))
    cont = parse_continue(params["continue"], (int, str))
    if cont is not None:
        query = query.where(from_key(columns, cont, descending))
    limit = params["limit"]
    query = query.order_by(*order(columns, descending)).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    nxt = None
    if following is not None:
        nxt = f"{following['wl_namespace']}|{following['wl_title']}"
    return rows, nxt


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    changed = "changed" in (params["prop"] or ())
    items = []
    for row in rows:
        ns = int(row["wl_namespace"])
        item: dict[str, Any] = {"ns": ns, "title": prefixed(q, ns, str(row["wl_title"]))}
        if changed and row["wl_notificationtimestamp"] is not None:
            item["changed"] = timestamp(row["wl_notificationtimestamp"])
        items.append(item)
    # ApiQueryWatchlistRaw adds its list at the top of the result, beside `query`.
    q.root["watchlistraw"] = items
    if cont is not None:
        q.continuation.add(WATCHLISTRAW, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(WATCHLISTRAW, "continue", cont)
    return GeneratedPages(titles=[(int(r["wl_namespace"]), str(r["wl_title"])) for r in rows])


MODULE = QueryModule(WATCHLISTRAW, run, generate)
