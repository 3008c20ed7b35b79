"""`list=protectedtitles` (ApiQueryProtectedTitles): titles protected from creation, by
timestamp."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.params import (
    NAMESPACE,
    TIMESTAMP,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.journal import Walk, parsed_comment, timestamp
from atrium.wiki.api.query.listing import prefixed
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.changes.expiry import api_expiry
from atrium.wiki.timestamps import now14

PT = schema.protected_titles


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    walk = Walk.of(params)
    actor_user = schema.user
    query = (
        sa.select(PT, schema.comment.c.comment_text, actor_user.c.user_name)
        .select_from(
            PT.join(schema.comment, schema.comment.c.comment_id == PT.c.pt_reason_id).outerjoin(
                actor_user, actor_user.c.user_id == PT.c.pt_user
            )
        )
        .where(sa.or_(PT.c.pt_expiry == "infinity", PT.c.pt_expiry > now14()))
    )
    query = walk.window(query, PT.c.pt_timestamp)
    if params["namespace"]:
        query = query.where(PT.c.pt_namespace.in_(params["namespace"]))
    if params["level"]:
        query = query.where(PT.c.pt_create_perm.in_(params["level"]))
    return await walk.page(
        q,
        query,
        (PT.c.pt_timestamp, PT.c.pt_namespace, PT.c.pt_title),
        (str, int, str),
        ("pt_timestamp", "pt_namespace", "pt_title"),
    )


PROTECTEDTITLES = ModuleSpec(
    "protectedtitles",
    "ApiQueryProtectedTitles",
    "list",
    "pt",
    (
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("level", enum("autoconfirmed", "sysop"), multi=True),
        limit(),
        Param("dir", enum("newer", "older"), default="older"),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param(
            "prop",
            enum("comment", "expiry", "level", "parsedcomment", "timestamp", "user", "userid"),
            default="timestamp|level",
            multi=True,
        ),
        Param("continue"),
    ),
    generator=True,
)


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    props = set(params["prop"])
    items = []
    for row in rows:
        ns = int(row["pt_namespace"])
        item: dict[str, Any] = {"ns": ns, "title": prefixed(q, ns, str(row["pt_title"]))}
        if "timestamp" in props:
            item["timestamp"] = timestamp(row["pt_timestamp"])
        if "user" in props and row["user_name"] is not None:
            item["user"] = row["user_name"]
        if "userid" in props or "user" in props:
            item["userid"] = int(row["pt_user"])
        if "comment" in props:
            item["comment"] = row["comment_text"]
        if "parsedcomment" in props:
            item["parsedcomment"] = parsed_comment(str(row["comment_text"]))
        if "expiry" in props:
            item["expiry"] = api_expiry(str(row["pt_expiry"]), "infinity")
        if "level" in props:
            item["level"] = row["pt_create_perm"]
        items.append(item)
    q.data["protectedtitles"] = items
    if cont is not None:
        q.continuation.add(PROTECTEDTITLES, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(PROTECTEDTITLES, "continue", cont)
    return GeneratedPages(titles=[(int(r["pt_namespace"]), str(r["pt_title"])) for r in rows])


MODULE = QueryModule(PROTECTEDTITLES, run, generate)
