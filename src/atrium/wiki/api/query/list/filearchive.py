"""`list=filearchive`: deleted files, as ApiQueryFilearchive; it walks (name, timestamp, id)
and continues with `<name>|<timestamp>|<id>`."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.journal import (
    DELETED_COMMENT,
    DELETED_RESTRICTED,
    DELETED_TEXT,
    DELETED_USER,
    can_see,
    parsed_comment,
    sha1_hex,
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
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.api.query.sha1_filter import sha1_condition
from atrium.wiki.files import metadata as mediameta
from atrium.wiki.messages import messages as msg
from atrium.wiki.titles import NS_FILE

FA = schema.filearchive
A = schema.actor
C = schema.comment


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


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
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
    sha1 = sha1_condition(spec, FA.c.fa_sha1, params)
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


def _entry(q: QueryRun, row: Row, props: set[str]) -> dict[str, Any]:
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


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    props = set(params["prop"])
    caller = q.ctx.caller
    if "metadata" in props and not (caller.allowed("deletedtext") or caller.allowed("undelete")):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-cantview-deleted-metadata"),
            module=FILEARCHIVE.path,
        )
    rows, cont = await _rows(q, params)
    q.data["filearchive"] = [_entry(q, row, props) for row in rows]
    if cont is not None:
        q.continuation.add(FILEARCHIVE, "continue", cont)


MODULE = QueryModule(FILEARCHIVE, run)
