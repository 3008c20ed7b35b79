"""`prop=iwlinks`: the interwiki links of each page of the set, as ApiQueryIWLinks."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.wiki import schema
from atrium.wiki.api.params import (
    BOOLEAN,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.interwiki_links import interwiki_url, mustusewith, url_props
from atrium.wiki.api.query.pageset import QueryModule, QueryRun, badcontinue, cont_int
from atrium.wiki.reads import links as linkreads

IWLINKS = ModuleSpec(
    "iwlinks",
    "ApiQueryIWLinks",
    "prop",
    "iw",
    (
        Param("prop", enum("url"), multi=True),
        Param("prefix"),
        Param("title"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        limit(default=10),
        Param("continue"),
        Param("url", BOOLEAN, deprecated=True),
    ),
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    if params["title"] is not None and params["prefix"] is None:
        raise mustusewith(IWLINKS, "title", "prefix")
    ids = sorted(q.pages.good)
    if not ids:
        return
    iwl = schema.iwlinks
    where: list[sa.ColumnElement[bool]] = []
    if params["prefix"] is not None:
        where.append(iwl.c.iwl_prefix == params["prefix"])
        if params["title"] is not None:
            where.append(iwl.c.iwl_title == params["title"])
    cont = None
    if params["continue"] is not None:
        parts = params["continue"].split("|", 2)
        if len(parts) != 3 or not parts[0].isdigit():
            raise badcontinue()
        cont = [cont_int(parts[0]), parts[1], parts[2]]
    limit = params["limit"]
    rows = await q.ctx.db.read(
        lambda conn: linkreads.outgoing(
            conn,
            iwl,
            ids,
            ["iwl_prefix", "iwl_title"],
            where=where,
            cont=cont,
            descending=params["dir"] == "descending",
            limit=limit + 1,
        )
    )
    if len(rows) > limit:
        nxt = rows[limit]
        q.continuation.add(
            IWLINKS, "continue", f"{nxt['iwl_from']}|{nxt['iwl_prefix']}|{nxt['iwl_title']}"
        )
        rows = rows[:limit]
    props = url_props(q, IWLINKS, params)
    for row in rows:
        prefix, title = str(row["iwl_prefix"]), str(row["iwl_title"])
        item: dict[str, Any] = {"prefix": prefix}
        if "url" in props:
            item["url"] = interwiki_url(prefix, title)
        q.ctx.out.content(item, "title", title.replace("_", " "))
        q.page_entry(int(row["iwl_from"])).setdefault("iwlinks", []).append(item)


MODULE = QueryModule(IWLINKS, run)
