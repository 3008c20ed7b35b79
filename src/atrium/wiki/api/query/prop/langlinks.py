"""`prop=langlinks`: the language links of each page of the set, as ApiQueryLangLinks."""

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
from atrium.wiki.messages.language_facts import autonym, name_in
from atrium.wiki.reads import links as linkreads

LANGLINKS = ModuleSpec(
    "langlinks",
    "ApiQueryLangLinks",
    "prop",
    "ll",
    (
        Param("prop", enum("autonym", "langname", "url"), multi=True),
        Param("lang"),
        Param("title"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("inlanguagecode", default="en"),
        limit(default=10),
        Param("continue"),
        Param("url", BOOLEAN, deprecated=True),
    ),
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    if params["title"] is not None and params["lang"] is None:
        raise mustusewith(LANGLINKS, "title", "lang")
    ids = sorted(q.pages.good)
    if not ids:
        return
    ll = schema.langlinks
    where: list[sa.ColumnElement[bool]] = []
    if params["lang"] is not None:
        where.append(ll.c.ll_lang == params["lang"])
        if params["title"] is not None:
            where.append(ll.c.ll_title == params["title"])
    cont = None
    if params["continue"] is not None:
        parts = params["continue"].split("|", 1)
        if len(parts) != 2 or not parts[0].isdigit():
            raise badcontinue()
        cont = [cont_int(parts[0]), parts[1]]
    limit = params["limit"]
    rows = await q.ctx.db.read(
        lambda conn: linkreads.outgoing(
            conn,
            ll,
            ids,
            ["ll_lang"],
            where=where,
            extra=["ll_title"],
            cont=cont,
            descending=params["dir"] == "descending",
            limit=limit + 1,
        )
    )
    if len(rows) > limit:
        q.continuation.add(
            LANGLINKS, "continue", f"{rows[limit]['ll_from']}|{rows[limit]['ll_lang']}"
        )
        rows = rows[:limit]
    props = url_props(q, LANGLINKS, params)
    for row in rows:
        lang, title = str(row["ll_lang"]), str(row["ll_title"])
        item: dict[str, Any] = {"lang": lang}
        if "url" in props:
            item["url"] = interwiki_url(lang, title)
        if "langname" in props:
            item["langname"] = name_in(lang, params["inlanguagecode"]) or ""
        if "autonym" in props:
            item["autonym"] = autonym(lang) or ""
        q.ctx.out.content(item, "title", title)
        q.page_entry(int(row["ll_from"])).setdefault("langlinks", []).append(item)


MODULE = QueryModule(LANGLINKS, run)
