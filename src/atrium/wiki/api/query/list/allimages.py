"""`list=allimages`: current files, by name or by upload time, with imageinfo's fields, as
ApiQueryAllImages; by name it continues with `<name>`, by timestamp with `<timestamp>|<name>`."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    INTEGER,
    TIMESTAMP,
    USER,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.fileinfo import info as image_info
from atrium.wiki.api.query.journal import (
    actor_of,
    time_window,
)
from atrium.wiki.api.query.listing import (
    from_key,
    order,
    parse_continue,
    prefixed,
    split_page,
    starts_with,
    title_key,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.api.query.sha1_filter import sha1_condition
from atrium.wiki.messages import messages as msg
from atrium.wiki.titles import NS_FILE

IMG = schema.image
A = schema.actor
C = schema.comment
UG = schema.user_groups
BOT_GROUPS = ("bot",)  # groups with the `bot` right


def _mix(spec: Any, key: str, *params: str, code: str = "invalidparammix") -> ApiUsageError:
    return ApiUsageError(code, msg.api(key, *params), module=spec.path)


ALLIMAGES = ModuleSpec(
    "allimages",
    "ApiQueryAllImages",
    "list",
    "ai",
    (
        Param("sort", enum("name", "timestamp"), default="name"),
        Param("dir", enum("ascending", "descending", "newer", "older"), default="ascending"),
        Param("from"),
        Param("to"),
        Param("continue"),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param(
            "prop",
            enum(
                "badfile",
                "bitdepth",
                "canonicaltitle",
                "comment",
                "commonmetadata",
                "dimensions",
                "extmetadata",
                "mediatype",
                "metadata",
                "mime",
                "parsedcomment",
                "sha1",
                "size",
                "timestamp",
                "url",
                "user",
                "userid",
            ),
            default="timestamp|url",
            multi=True,
        ),
        Param("prefix"),
        Param("minsize", INTEGER),
        Param("maxsize", INTEGER),
        Param("sha1"),
        Param("sha1base36"),
        Param("user", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("filterbots", enum("all", "bots", "nobots"), default="all"),
        Param("mime", multi=True),
        limit(default=10),
    ),
    generator=True,
)


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = ALLIMAGES
    ascending = params["dir"] in ("ascending", "newer")
    by_name = params["sort"] == "name"
    if by_name:
        for name in ("start", "end", "user"):
            if params[name] is not None:
                raise _mix(
                    spec, "apierror-invalidparammix-mustusewith", f"ai{name}", "aisort=timestamp"
                )
        if params["filterbots"] != "all":
            raise _mix(
                spec, "apierror-invalidparammix-mustusewith", "aifilterbots", "aisort=timestamp"
            )
    else:
        for name in ("from", "to", "prefix"):
            if params[name] is not None:
                raise _mix(spec, "apierror-invalidparammix-mustusewith", f"ai{name}", "aisort=name")
        if params["user"] is not None and params["filterbots"] != "all":
            # ApiQueryAllImages dies with this code, not `invalidparammix`
            raise _mix(
                spec, "apierror-invalidparammix-cannotusewith", "aiuser", "aifilterbots",
                code="invalidparammix-cannotusewith",
            )  # fmt: skip
    query = sa.select(IMG, A.c.actor_name, A.c.actor_user, C.c.comment_text).select_from(
        IMG.join(A, A.c.actor_id == IMG.c.img_actor).join(
            C, C.c.comment_id == IMG.c.img_description_id
        )
    )
    if by_name:
        keys: list[Any] = [IMG.c.img_name]
        kinds: tuple[type, ...] = (str,)
        start = title_key(q, params["from"], NS_FILE)
        end = title_key(q, params["to"], NS_FILE)
        prefix = title_key(q, params["prefix"], NS_FILE)
        if start is not None:
            query = query.where(IMG.c.img_name >= start if ascending else IMG.c.img_name <= start)
        if end is not None:
            query = query.where(IMG.c.img_name <= end if ascending else IMG.c.img_name >= end)
        if prefix is not None:
            query = query.where(starts_with(IMG.c.img_name, prefix))
    else:
        keys = [IMG.c.img_timestamp, IMG.c.img_name]
        kinds = (str, str)
        query = time_window(query, IMG.c.img_timestamp, params["start"], params["end"], ascending)
        if params["user"] is not None:
            query = query.where(actor_of(params["user"]))
        if params["filterbots"] != "all":
            is_bot = sa.exists().where(
                UG.c.ug_user == A.c.actor_user, UG.c.ug_group.in_(BOT_GROUPS)
            )
            query = query.where(is_bot if params["filterbots"] == "bots" else ~is_bot)
    if params["minsize"] is not None:
        query = query.where(IMG.c.img_size >= params["minsize"])
    if params["maxsize"] is not None:
        query = query.where(IMG.c.img_size <= params["maxsize"])
    sha1 = sha1_condition(spec, IMG.c.img_sha1, params)
    if sha1 is not None:
        query = query.where(sha1)
    if params["mime"]:
        mimes = []
        for value in params["mime"]:
            major, _, minor = value.partition("/")
            cond = IMG.c.img_major_mime == major
            if minor and minor != "*":
                cond = sa.and_(cond, IMG.c.img_minor_mime == minor)
            mimes.append(cond)
        query = query.where(sa.or_(*mimes))
    cont = parse_continue(params["continue"], kinds)
    if cont is not None:
        query = query.where(from_key(keys, cont, not ascending))
    limit = params["limit"]
    query = query.order_by(*order(keys, not ascending)).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    nxt = None
    if following is not None:
        nxt = str(following["img_name"])
        if not by_name:
            nxt = f"{following['img_timestamp']}|{nxt}"
    return rows, nxt


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    props = set(params["prop"])
    items = []
    for row in rows:
        name = str(row["img_name"])
        info = image_info(q, row, props, {"urlwidth": -1, "urlheight": -1})
        if "badfile" in props:
            q.ctx.out.flag(info, "badfile", False)
        item: dict[str, Any] = {"name": name, **info}
        item["ns"] = NS_FILE
        item["title"] = prefixed(q, NS_FILE, name)
        items.append(item)
    q.data["allimages"] = items
    if cont is not None:
        q.continuation.add(ALLIMAGES, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(ALLIMAGES, "continue", cont)
    return GeneratedPages(titles=[(NS_FILE, str(r["img_name"])) for r in rows])


MODULE = QueryModule(ALLIMAGES, run, generate)
