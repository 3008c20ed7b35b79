"""`list=allimages` (current files, by name or by upload time, with imageinfo's fields) and
`list=filearchive` (deleted files), as ApiQueryAllImages and ApiQueryFilearchive.

allimages by name continues with `<name>`, by timestamp with `<timestamp>|<name>`; filearchive
walks (name, timestamp, id) and continues with `<name>|<timestamp>|<id>`.
"""

from __future__ import annotations

import re
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
    DELETED_COMMENT,
    DELETED_RESTRICTED,
    DELETED_TEXT,
    DELETED_USER,
    actor_of,
    can_see,
    parsed_comment,
    sha1_hex,
    time_window,
    timestamp,
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
from atrium.wiki.files import metadata as mediameta
from atrium.wiki.messages import messages as msg
from atrium.wiki.titles import NS_FILE

IMG = schema.image
FA = schema.filearchive
A = schema.actor
C = schema.comment
U = schema.user
UG = schema.user_groups
BOT_GROUPS = ("bot",)  # groups with the `bot` right

_SHA1 = re.compile(r"^[0-9a-f]{40}$")
_SHA1_36 = re.compile(r"^[0-9a-z]{31}$")


def _sha1_condition(spec: Any, column: Any, params: dict[str, Any]) -> Any:
    """`sha1` (hex) or `sha1base36`, stored in base 36; MediaWiki's errors for bad values."""
    if params["sha1"] is not None:
        value = params["sha1"].lower()
        if not _SHA1.match(value):
            raise ApiUsageError(
                "invalidsha1hash",
                msg.api("apierror-invalidsha1hash"),
                module=spec.path,
            )
        return column == _base36(int(value, 16))
    if params["sha1base36"] is not None:
        value = params["sha1base36"].lower()
        if not _SHA1_36.match(value):
            raise ApiUsageError(
                "invalidsha1base36hash",
                msg.api("apierror-invalidsha1base36hash"),
                module=spec.path,
            )
        return column == value
    return None


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while number:
        number, rem = divmod(number, 36)
        out = digits[rem] + out
    return out.rjust(31, "0")


def _mix(spec: Any, key: str, *params: str, code: str = "invalidparammix") -> ApiUsageError:
    return ApiUsageError(code, msg.api(key, *params), module=spec.path)


# list=allimages


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


async def _ai_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
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
    sha1 = _sha1_condition(spec, IMG.c.img_sha1, params)
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


async def ai_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _ai_rows(q, params)
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


async def ai_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _ai_rows(q, params)
    if cont is not None:
        q.continuation.add_generator(ALLIMAGES, "continue", cont)
    return GeneratedPages(titles=[(NS_FILE, str(r["img_name"])) for r in rows])


ALLIMAGES_MODULE = QueryModule(ALLIMAGES, ai_run, ai_generate)


# list=filearchive


FILEARCHIVE = ModuleSpec(
    "filearchive",
    "ApiQueryFilearchive",
    "list",
    "fa",
    (
        Param("from"),
        Param("to"),
        Param("prefix"),
        Param("dir", enum("ascending", "descending"), default="ascending"),
        Param("sha1"),
        Param("sha1base36"),
        Param(
            "prop",
            enum(
                "archivename",
                "bitdepth",
                "description",
                "dimensions",
                "mediatype",
                "metadata",
                "mime",
                "parseddescription",
                "sha1",
                "size",
                "timestamp",
                "user",
            ),
            default="timestamp",
            multi=True,
        ),
        limit(),
        Param("continue"),
    ),
)


async def _fa_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = FILEARCHIVE
    descending = params["dir"] == "descending"
    query = sa.select(FA, A.c.actor_name, A.c.actor_user, C.c.comment_text).select_from(
        FA.join(A, A.c.actor_id == FA.c.fa_actor).join(C, C.c.comment_id == FA.c.fa_description_id)
    )
    start = title_key(q, params["from"], NS_FILE)
    end = title_key(q, params["to"], NS_FILE)
    prefix = title_key(q, params["prefix"], NS_FILE)
    if start is not None:
        query = query.where(FA.c.fa_name <= start if descending else FA.c.fa_name >= start)
    if end is not None:
        query = query.where(FA.c.fa_name >= end if descending else FA.c.fa_name <= end)
    if prefix is not None:
        query = query.where(starts_with(FA.c.fa_name, prefix))
    sha1 = _sha1_condition(spec, FA.c.fa_sha1, params)
    if sha1 is not None:
        query = query.where(sha1)
        if not q.ctx.caller.allowed("deletedtext"):
            query = query.where(FA.c.fa_deleted.op("&")(DELETED_TEXT) == 0)
    keys = [FA.c.fa_name, FA.c.fa_timestamp, FA.c.fa_id]
    cont = parse_continue(params["continue"], (str, str, int))
    if cont is not None:
        query = query.where(from_key(keys, cont, descending))
    limit = params["limit"]
    query = query.order_by(*order(keys, descending)).limit(limit + 1)
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    nxt = None
    if following is not None:
        nxt = f"{following['fa_name']}|{following['fa_timestamp']}|{following['fa_id']}"
    return rows, nxt


def _fa_entry(q: QueryRun, row: Row, props: set[str]) -> dict[str, Any]:
    out = q.ctx.out
    deleted = int(row["fa_deleted"] or 0)
    name = str(row["fa_name"])
    item: dict[str, Any] = {"id": int(row["fa_id"]), "name": name}
    item["ns"] = NS_FILE
    item["title"] = prefixed(q, NS_FILE, name)
    if "description" in props and can_see(q, deleted, DELETED_COMMENT):
        item["description"] = row["comment_text"]
        if "parseddescription" in props:
            item["parseddescription"] = parsed_comment(str(row["comment_text"]))
    if "user" in props and can_see(q, deleted, DELETED_USER):
        item["userid"] = int(row["actor_user"] or 0)
        item["user"] = row["actor_name"]
    file_visible = can_see(q, deleted, DELETED_TEXT)
    if "sha1" in props and file_visible:
        item["sha1"] = sha1_hex(str(row["fa_sha1"]))
    if "timestamp" in props:
        item["timestamp"] = timestamp(row["fa_timestamp"])
    if props & {"size", "dimensions"} and file_visible:
        item["size"] = int(row["fa_size"])
        item["height"] = int(row["fa_height"])
        item["width"] = int(row["fa_width"])
    if "mediatype" in props and file_visible:
        item["mediatype"] = row["fa_media_type"]
    if "metadata" in props and file_visible:
        meta = mediameta.from_column(row["fa_metadata"])
        item["metadata"] = mediameta.name_value(meta) if meta else None
    if "bitdepth" in props and file_visible:
        item["bitdepth"] = int(row["fa_bits"])
    if "mime" in props and file_visible:
        item["mime"] = f"{row['fa_major_mime']}/{row['fa_minor_mime']}"
    if "archivename" in props and row["fa_archive_name"] is not None:
        item["archivename"] = row["fa_archive_name"]
    if deleted & DELETED_TEXT:
        out.flag_if(item, "filehidden", True)
    if deleted & DELETED_COMMENT:
        out.flag_if(item, "commenthidden", True)
    if deleted & DELETED_USER:
        out.flag_if(item, "userhidden", True)
    if deleted & DELETED_RESTRICTED:
        out.flag_if(item, "suppressed", True)
    return item


async def fa_run(q: QueryRun, params: dict[str, Any]) -> None:
    props = set(params["prop"])
    caller = q.ctx.caller
    if "metadata" in props and not (caller.allowed("deletedtext") or caller.allowed("undelete")):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-cantview-deleted-metadata"),
            module=FILEARCHIVE.path,
        )
    rows, cont = await _fa_rows(q, params)
    q.data["filearchive"] = [_fa_entry(q, row, props) for row in rows]
    if cont is not None:
        q.continuation.add(FILEARCHIVE, "continue", cont)


FILEARCHIVE_MODULE = QueryModule(FILEARCHIVE, fa_run)

MODULES = (ALLIMAGES_MODULE, FILEARCHIVE_MODULE)
