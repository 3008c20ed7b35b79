"""`list=categorymembers`: the pages, subcategories and files of a category; also a generator.

By sort key, members come type by type (pages, then subcategories, then files; reversed when
descending), each by sort key then page id; the continue value is `<type>|<hex sort key>|<page id>`.
By timestamp the order is (time added, page id) and the continue value `<timestamp>|<page id>`.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    INTEGER,
    NAMESPACE,
    TIMESTAMP,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.listing import from_key, order, parse_continue, require_one, split_page
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun, badcontinue
from atrium.wiki.changes.pages import category_sortkey
from atrium.wiki.messages import messages as msg
from atrium.wiki.timestamps import iso
from atrium.wiki.titles import NS_CATEGORY, InvalidTitle

P = schema.page
CL = schema.categorylinks
TYPES = ("page", "subcat", "file")
_RANK = sa.case({t: i for i, t in enumerate(TYPES)}, value=CL.c.cl_type)
CATEGORYMEMBERS = ModuleSpec(
    "categorymembers",
    "ApiQueryCategoryMembers",
    "list",
    "cm",
    (
        Param("title"),
        Param("pageid", INTEGER),
        Param(
            "prop",
            enum("ids", "sortkey", "sortkeyprefix", "timestamp", "title", "type"),
            default="ids|title",
            multi=True,
        ),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("type", enum("file", "page", "subcat"), default="page|subcat|file", multi=True),
        Param("continue"),
        limit(),
        Param("sort", enum("sortkey", "timestamp"), default="sortkey"),
        Param(
            "dir",
            enum("asc", "ascending", "desc", "descending", "newer", "older"),
            default="ascending",
        ),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("starthexsortkey"),
        Param("endhexsortkey"),
        Param("startsortkeyprefix"),
        Param("endsortkeyprefix"),
        Param("startsortkey", deprecated=True),
        Param("endsortkey", deprecated=True),
    ),
    generator=True,
)


def _bad_category(name: str) -> ApiUsageError:
    return ApiUsageError(
        "invalidcategory",
        msg.api("apierror-invalidcategory"),
        module=CATEGORYMEMBERS.path,
    )


async def _category(q: QueryRun, params: dict[str, Any]) -> str:
    require_one(CATEGORYMEMBERS, params, "title", "pageid")
    if params["pageid"] is not None:
        page_id = params["pageid"]
        row = await q.ctx.db.read(
            lambda conn: conn.one(
                sa.select(P.c.page_namespace, P.c.page_title).where(P.c.page_id == page_id)
            )
        )
        if row is None:
            raise ApiUsageError(
                "nosuchpageid",
                msg.api("apierror-nosuchpageid", page_id),
                module=CATEGORYMEMBERS.path,
            )
        if int(row["page_namespace"]) != NS_CATEGORY:
            raise _bad_category(str(row["page_title"]))
        return str(row["page_title"])
    try:
        title = q.ctx.site.parser.parse(params["title"])
    except InvalidTitle as exc:
        raise _bad_category(params["title"]) from exc
    if title.ns != NS_CATEGORY or not title.dbkey:
        raise _bad_category(params["title"])
    return title.dbkey


async def _fetch(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    category = await _category(q, params)
    descending = params["dir"] in ("desc", "descending", "older")
    types = [t for t in TYPES if t in params["type"]]
    by_time = params["sort"] == "timestamp"
    limit = params["limit"]
    query = (
        sa.select(
            P.c.page_id,
            P.c.page_namespace,
            P.c.page_title,
            CL.c.cl_sortkey,
            CL.c.cl_sortkey_prefix,
            CL.c.cl_type,
            CL.c.cl_timestamp,
        )
        .select_from(CL.join(P, P.c.page_id == CL.c.cl_from))
        .where(CL.c.cl_to == category, CL.c.cl_type.in_(types))
    )
    if params["namespace"]:
        query = query.where(P.c.page_namespace.in_(params["namespace"]))
    if by_time:
        columns: list[Any] = [CL.c.cl_timestamp, CL.c.cl_from]
        start = parse_continue(params["continue"], (str, int))
        lower, upper = params["start"], params["end"]
        if lower is not None:
            query = query.where(
                CL.c.cl_timestamp <= lower if descending else CL.c.cl_timestamp >= lower
            )
        if upper is not None:
            query = query.where(
                CL.c.cl_timestamp >= upper if descending else CL.c.cl_timestamp <= upper
            )
    else:
        columns = [_RANK, CL.c.cl_sortkey, CL.c.cl_from]
        start = parse_continue(params["continue"], (str, str, int))
        if start is not None:
            if start[0] not in TYPES:
                raise badcontinue()
            try:
                key = bytes.fromhex(start[1]).decode()
            except ValueError as exc:
                raise badcontinue() from exc
            start = [TYPES.index(start[0]), key, start[2]]
        low = _sortkey_bound(params, "start")
        high = _sortkey_bound(params, "end")
        if low is not None:
            query = query.where(CL.c.cl_sortkey <= low if descending else CL.c.cl_sortkey >= low)
        if high is not None:
            query = query.where(CL.c.cl_sortkey >= high if descending else CL.c.cl_sortkey <= high)
    if start is not None:
        query = query.where(from_key(columns, start, descending))
    query = query.order_by(*order(columns, descending)).limit(limit + 1)

    def read(conn: Conn) -> list[Row]:
        return conn.all(query)

    rows, following = split_page(await q.ctx.db.read(read), limit)
    cont = None
    if following is not None:
        if by_time:
            cont = f"{following['cl_timestamp']}|{following['page_id']}"
        else:
            hexkey = str(following["cl_sortkey"]).encode().hex()
            cont = f"{following['cl_type']}|{hexkey}|{following['page_id']}"
    return rows, cont


def _sortkey_bound(params: dict[str, Any], side: str) -> str | None:
    hexkey = params[f"{side}hexsortkey"]
    if hexkey is not None:
        try:
            return bytes.fromhex(hexkey).decode(errors="ignore")
        except ValueError as exc:
            raise ApiUsageError(
                "badvalue",
                msg.api("apierror-badparameter", f"cm{side}hexsortkey"),
                module=CATEGORYMEMBERS.path,
            ) from exc
    prefix = params[f"{side}sortkeyprefix"]
    if prefix is not None:
        return category_sortkey("", prefix)
    legacy = params[f"{side}sortkey"]
    if legacy is not None:
        return str(legacy)
    return None


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _fetch(q, params)
    props = set(params["prop"])
    ids, title, sortkey, sortkeyprefix, kind, stamp = (
        name in props for name in ("ids", "title", "sortkey", "sortkeyprefix", "type", "timestamp")
    )
    prefixed_text = q.ctx.site.parser.prefixed_text
    items = []
    for row in rows:
        entry: dict[str, Any] = {}
        if ids:
            entry["pageid"] = int(row["page_id"])
        if title:
            ns = int(row["page_namespace"])
            entry["ns"] = ns
            entry["title"] = prefixed_text(ns, str(row["page_title"]))
        if sortkey:
            entry["sortkey"] = str(row["cl_sortkey"]).encode().hex()
        if sortkeyprefix:
            entry["sortkeyprefix"] = row["cl_sortkey_prefix"]
        if kind:
            entry["type"] = row["cl_type"]
        if stamp:
            entry["timestamp"] = iso(str(row["cl_timestamp"]))
        items.append(entry)
    q.data["categorymembers"] = items
    if cont is not None:
        q.continuation.add(CATEGORYMEMBERS, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _fetch(q, params)
    if cont is not None:
        q.continuation.add_generator(CATEGORYMEMBERS, "continue", cont)
    return GeneratedPages(page_ids=[int(r["page_id"]) for r in rows])


MODULE = QueryModule(CATEGORYMEMBERS, run, generate)
