"""`prop=categories`: the categories each page of the set is in; also a generator.

Rows come in (page, category) order and continue with `from|category`, as MediaWiki's
ApiQueryCategories. `hidden` is the `hiddencat` page property of the category page.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.pageset import (
    GeneratedPages,
    QueryModule,
    QueryRun,
    badcontinue,
    cont_int,
)
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads import links as linkreads
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import NS_CATEGORY, InvalidTitle

CL = schema.categorylinks


def _show_error() -> ApiUsageError:
    return ApiUsageError(
        "show",
        msg.api("apierror-show"),
        module="query+categories",
    )


CATEGORIES = ModuleSpec(
    "categories",
    "ApiQueryCategories",
    "prop",
    "cl",
    (
        Param("prop", enum("hidden", "sortkey", "timestamp"), multi=True),
        Param("show", enum("!hidden", "hidden"), multi=True),
        limit(default=10),
        Param("continue"),
        Param("categories", multi=True),
        Param("dir", enum("ascending", "descending"), default="ascending"),
    ),
    generator=True,
)


async def _fetch(q: QueryRun, params: dict[str, Any]) -> tuple[list[Any], str | None, set[str]]:
    ids = sorted(q.pages.good)
    show = set(params["show"])
    if {"hidden", "!hidden"} <= show:
        raise _show_error()
    if not ids:
        return [], None, set()
    cont = None
    if params["continue"] is not None:
        parts = params["continue"].split("|", 1)
        if len(parts) != 2 or not parts[0].isdigit():
            raise badcontinue()
        cont = [cont_int(parts[0]), parts[1]]
    where: list[sa.ColumnElement[bool]] = []
    if params["categories"]:
        names = []
        for text in params["categories"]:
            try:
                title = q.ctx.site.parser.parse(text)
            except InvalidTitle:
                continue
            if title.ns == NS_CATEGORY:
                names.append(title.dbkey)
            else:
                q.ctx.warn(
                    CATEGORIES,
                    "notcategory",
                    msg.api("apiwarn-invalidcategory", text),
                )
        if not names:
            return [], None, set()
        where.append(CL.c.cl_to.in_(names))
    limit = params["limit"]
    want_hidden = "hidden" in params["prop"] or bool(show)

    def read(conn: Any) -> tuple[list[Any], set[str]]:
        hidden_all: set[str] = set()
        query_where = list(where)
        if show:
            hidden_rows = conn.all(
                sa.select(schema.page.c.page_title)
                .select_from(
                    schema.page.join(
                        schema.page_props, schema.page_props.c.pp_page == schema.page.c.page_id
                    )
                )
                .where(
                    schema.page.c.page_namespace == NS_CATEGORY,
                    schema.page_props.c.pp_propname == "hiddencat",
                )
            )
            hidden_all = {str(r["page_title"]) for r in hidden_rows}
            if "hidden" in show:
                query_where.append(CL.c.cl_to.in_(sorted(hidden_all)))
            else:
                query_where.append(CL.c.cl_to.not_in(sorted(hidden_all)))
        rows = linkreads.outgoing(
            conn,
            CL,
            ids,
            ["cl_to"],
            where=query_where,
            extra=["cl_sortkey", "cl_sortkey_prefix", "cl_timestamp"],
            cont=cont,
            descending=params["dir"] == "descending",
            limit=limit + 1,
        )
        hidden = (
            linkreads.hidden_categories(conn, [str(r["cl_to"]) for r in rows])
            if want_hidden
            else set()
        )
        return rows, hidden

    rows, hidden = await q.ctx.db.read(read)
    following = None
    if len(rows) > limit:
        following = f"{rows[limit]['cl_from']}|{rows[limit]['cl_to']}"
        rows = rows[:limit]
    return rows, following, hidden


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, following, hidden = await _fetch(q, params)
    out = q.ctx.out
    parser = q.ctx.site.parser
    props = set(params["prop"])
    for row in rows:
        name = str(row["cl_to"])
        item: dict[str, Any] = {"ns": NS_CATEGORY, "title": parser.prefixed_text(NS_CATEGORY, name)}
        if "sortkey" in props:
            item["sortkey"] = str(row["cl_sortkey"]).encode().hex()
            item["sortkeyprefix"] = str(row["cl_sortkey_prefix"])
        if "timestamp" in props:
            item["timestamp"] = iso(str(row["cl_timestamp"]))
        if "hidden" in props:
            out.flag(item, "hidden", name in hidden)
        q.page_entry(int(row["cl_from"])).setdefault("categories", []).append(item)
    if following is not None:
        q.continuation.add(CATEGORIES, "continue", following)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, following, _ = await _fetch(q, params)
    generated = GeneratedPages()
    for row in rows:
        key = (NS_CATEGORY, str(row["cl_to"]))
        if key not in generated.titles:
            generated.titles.append(key)
    if following is not None:
        q.continuation.add_generator(CATEGORIES, "continue", following)
    return generated


MODULE = QueryModule(CATEGORIES, run, generate)
