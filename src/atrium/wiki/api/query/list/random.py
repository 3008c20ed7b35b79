"""`list=random` (ApiQueryRandom): from a random point of page_random, wrapping around once;
continue `<rand>|<page_random>|<page_id>|<wrapped 0/1>`."""

from __future__ import annotations

import random as random_numbers
import re
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.params import (
    BOOLEAN,
    NAMESPACE,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.listing import (
    from_key,
    prefixed,
    split_page,
)
from atrium.wiki.api.query.pageset import (
    GeneratedPages,
    QueryModule,
    QueryRun,
    badcontinue,
    cont_int,
)

P = schema.page


_RAND = re.compile(r"^0\.\d+$")


def _rand_text(value: float) -> str:
    text = repr(float(value))
    return text if _RAND.match(text) else f"{value:.17f}"


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    filterredir = params["filterredir"]
    if params["redirect"]:
        filterredir = "redirects"

    def base() -> Any:
        query = sa.select(P.c.page_id, P.c.page_namespace, P.c.page_title, P.c.page_random)
        if params["namespace"]:
            query = query.where(P.c.page_namespace.in_(params["namespace"]))
        if filterredir == "redirects":
            query = query.where(P.c.page_is_redirect == sa.true())
        elif filterredir == "nonredirects":
            query = query.where(P.c.page_is_redirect == sa.false())
        return query

    cont = params["continue"]
    if cont is not None:
        parts = cont.split("|")
        if (
            len(parts) != 4
            or not _RAND.match(parts[0])
            or not _RAND.match(parts[1])
            or not parts[2].isdigit()
            or parts[3] not in ("0", "1")
        ):
            raise badcontinue()
        rand, start, start_id = float(parts[0]), float(parts[1]), cont_int(parts[2])
        end: float | None = rand if parts[3] == "1" else None
    else:
        rand = float(f"{random_numbers.random():.12f}")
        start, start_id, end = rand, 0, None
    limit = params["limit"]
    keys = [P.c.page_random, P.c.page_id]

    def run_query(
        conn: Conn, count: int, lower: tuple[float, int] | None, upper: float | None
    ) -> tuple[list[Row], Row | None]:
        query = base()
        if lower is not None:
            query = query.where(from_key(keys, list(lower), False))
        if upper is not None:
            query = query.where(P.c.page_random < upper)
        query = query.order_by(*keys).limit(count + 1)
        return split_page(conn.all(query), count)

    def read(conn: Conn) -> tuple[list[Row], str | None]:
        rows, following = run_query(conn, limit, (start, start_id), end)
        wrapped = end
        if end is None and following is None:
            wrapped = rand
            more, following = run_query(conn, limit - len(rows), None, rand)
            rows = rows + more
        if following is None:
            return rows, None
        flag = 0 if wrapped is None else 1
        nxt = f"{_rand_text(rand)}|{_rand_text(following['page_random'])}|"
        return rows, nxt + f"{following['page_id']}|{flag}"

    return await q.ctx.db.read(read)


RANDOM = ModuleSpec(
    "random",
    "ApiQueryRandom",
    "list",
    "rn",
    (
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("filterredir", enum("all", "nonredirects", "redirects"), default="nonredirects"),
        Param("redirect", BOOLEAN, deprecated=True),
        limit(default=1),
        Param("continue"),
    ),
    generator=True,
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    q.data["random"] = [
        {
            "id": int(r["page_id"]),
            "ns": int(r["page_namespace"]),
            "title": prefixed(q, int(r["page_namespace"]), str(r["page_title"])),
        }
        for r in rows
    ]
    if cont is not None:
        q.continuation.add(RANDOM, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(RANDOM, "continue", cont)
    return GeneratedPages(page_ids=[int(r["page_id"]) for r in rows])


MODULE = QueryModule(RANDOM, run, generate)
