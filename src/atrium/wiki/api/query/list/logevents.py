"""`list=logevents`: the log, newest first unless `dir=newer`, by (log_timestamp, log_id); the
continue value is `<timestamp>|<log_id>`. Fields in ApiQueryLogEvents::extractRowInfo's order."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    NAMESPACE,
    TIMESTAMP,
    USER,
    ModuleSpec,
    Param,
    enum,
    limit,
)
from atrium.wiki.api.query.journal import (
    DELETED_RESTRICTED,
    DELETED_TEXT,
    DELETED_USER,
    Walk,
    actor_of,
    add_comment,
    add_user,
    can_see,
    timestamp,
)
from atrium.wiki.api.query.listing import event_tags, prefixed, starts_with
from atrium.wiki.api.query.pageset import QueryModule, QueryRun
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.logparams import log_params
from atrium.wiki.titles import InvalidTitle

LG = schema.logging
A = schema.actor
C = schema.comment
P = schema.page
LOGEVENTS = ModuleSpec(
    "logevents",
    "ApiQueryLogEvents",
    "list",
    "le",
    (
        Param(
            "prop",
            enum(
                "comment",
                "details",
                "ids",
                "parsedcomment",
                "tags",
                "timestamp",
                "title",
                "type",
                "user",
                "userid",
            ),
            default="ids|title|type|user|timestamp|comment|details",
            multi=True,
        ),
        Param(
            "type",
            enum(
                "",
                "block",
                "contentmodel",
                "create",
                "delete",
                "import",
                "managetags",
                "merge",
                "move",
                "newusers",
                "patrol",
                "protect",
                "rights",
                "suppress",
                "tag",
                "upload",
            ),
        ),
        Param(
            "action",
            enum(
                "block/block",
                "block/reblock",
                "block/unblock",
                "contentmodel/change",
                "contentmodel/new",
                "create/create",
                "delete/delete",
                "delete/delete_redir",
                "delete/delete_redir2",
                "delete/event",
                "delete/restore",
                "delete/revision",
                "import/interwiki",
                "import/upload",
                "managetags/activate",
                "managetags/create",
                "managetags/deactivate",
                "managetags/delete",
                "merge/merge",
                "move/move",
                "move/move_redir",
                "newusers/autocreate",
                "newusers/byemail",
                "newusers/create",
                "newusers/create2",
                "newusers/newusers",
                "patrol/autopatrol",
                "patrol/patrol",
                "protect/modify",
                "protect/move_prot",
                "protect/protect",
                "protect/unprotect",
                "rights/autopromote",
                "rights/rights",
                "suppress/block",
                "suppress/delete",
                "suppress/event",
                "suppress/reblock",
                "suppress/revision",
                "tag/update",
                "upload/overwrite",
                "upload/revert",
                "upload/upload",
            ),
            checked_by_module=True,
        ),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("dir", enum("newer", "older"), default="older"),
        Param(
            "user",
            USER,
            subtypes=(
                "name",
                "ip",
                "interwiki",
                "id",
            ),
        ),
        Param("title"),
        Param(
            "namespace",
            NAMESPACE,
            extranamespaces=(
                -2,
                -1,
            ),
        ),
        Param("prefix"),
        Param("tag"),
        limit(),
        Param("continue"),
    ),
)


# $wgLogRestrictions: log types only some users may read.
LOG_RESTRICTIONS = {"suppress": "suppressionlog"}


def _invalid_title(text: str) -> ApiUsageError:
    return ApiUsageError(
        "invalidtitle",
        msg.api("apierror-invalidtitle", msg.escape_wikitext(text)),
        module=LOGEVENTS.path,
    )


def _check_action(value: str) -> None:
    """ApiQueryLogEvents: a known `type/action`, or one whose type allows any (`type/*`)."""
    allowed = next(p for p in LOGEVENTS.params if p.name == "action").enum_values
    log_type = value.partition("/")[0]
    if "/" in value and (value in allowed or f"{log_type}/*" in allowed):
        return
    raise ApiUsageError(
        "unknown_leaction",
        msg.badvalue_enum("leaction", value, list(allowed)),
        module=LOGEVENTS.path,
    )


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    caller = q.ctx.caller
    if params["title"] is not None and params["prefix"] is not None:
        raise ApiUsageError(
            "invalidparammix",
            msg.invalidparammix(["letitle", "leprefix"]),
            module=LOGEVENTS.path,
        )
    query = sa.select(
        LG, A.c.actor_name, A.c.actor_user, C.c.comment_text, P.c.page_id
    ).select_from(
        LG.join(A, A.c.actor_id == LG.c.log_actor)
        .join(C, C.c.comment_id == LG.c.log_comment_id)
        .outerjoin(
            P, sa.and_(P.c.page_namespace == LG.c.log_namespace, P.c.page_title == LG.c.log_title)
        )
    )
    if params["action"] is not None:
        _check_action(params["action"])
        log_type, _, action = params["action"].partition("/")
        query = query.where(LG.c.log_type == log_type, LG.c.log_action == action)
    elif params["type"]:
        query = query.where(LG.c.log_type == params["type"])
    hidden_types = [t for t, right in LOG_RESTRICTIONS.items() if not caller.allowed(right)]
    if hidden_types:
        query = query.where(LG.c.log_type.not_in(hidden_types))
    walk = Walk.of(params)
    query = walk.window(query, LG.c.log_timestamp)
    if params["user"] is not None:
        query = query.where(actor_of(params["user"]))
        if not caller.allowed("deletedhistory"):
            query = query.where(LG.c.log_deleted.op("&")(DELETED_USER) == 0)
    if params["title"] is not None:
        try:
            title = q.ctx.site.parser.parse(params["title"])
        except InvalidTitle as exc:
            raise _invalid_title(params["title"]) from exc
        query = query.where(LG.c.log_namespace == title.ns, LG.c.log_title == title.dbkey)
    if params["namespace"] is not None:
        query = query.where(LG.c.log_namespace == params["namespace"])
    if params["prefix"] is not None:
        try:
            title = q.ctx.site.parser.parse(params["prefix"])
        except InvalidTitle as exc:
            raise _invalid_title(params["prefix"]) from exc
        query = query.where(
            LG.c.log_namespace == title.ns, starts_with(LG.c.log_title, title.dbkey)
        )
    if (params["title"] is not None or params["prefix"] is not None) and not caller.allowed(
        "deletedhistory"
    ):
        query = query.where(LG.c.log_deleted.op("&")(DELETED_TEXT) == 0)
    cte = schema.change_tag_event
    return await walk.page(
        q,
        query,
        (LG.c.log_timestamp, LG.c.log_id),
        (str, int),
        ("log_timestamp", "log_id"),
        tag=params["tag"],
        tagged=lambda tid: sa.exists().where(
            cte.c.cte_log_id == LG.c.log_id, cte.c.cte_tag_id == tid
        ),
    )


def _entry(q: QueryRun, row: Row, props: set[str], tags: dict[int, list[str]]) -> dict[str, Any]:
    out = q.ctx.out
    deleted = int(row["log_deleted"] or 0)
    entry: dict[str, Any] = {}
    hidden = False
    if "ids" in props:
        entry["logid"] = int(row["log_id"])
    if props & {"title", "ids"} or ("details" in props and row["log_params"] != ""):
        if deleted & DELETED_TEXT:
            out.flag_if(entry, "actionhidden", True)
            hidden = True
        if can_see(q, deleted, DELETED_TEXT):
            if "title" in props:
                ns = int(row["log_namespace"])
                entry["ns"] = ns
                entry["title"] = prefixed(q, ns, str(row["log_title"]))
            if "ids" in props:
                entry["pageid"] = int(row["page_id"] or 0)
                entry["logpage"] = int(row["log_page"] or 0)
            if "details" in props:
                entry["params"] = log_params(row["log_params"], row["log_type"], q.ctx.fv)
    if "type" in props:
        entry["type"] = row["log_type"]
        entry["action"] = row["log_action"]
    hidden |= add_user(q, entry, row, deleted, "user" in props, "userid" in props)
    if "timestamp" in props:
        entry["timestamp"] = timestamp(row["log_timestamp"])
    hidden |= add_comment(
        q, entry, row["comment_text"], deleted, "comment" in props, "parsedcomment" in props
    )
    if "tags" in props:
        entry["tags"] = tags.get(int(row["log_id"]), [])
    if hidden and deleted & DELETED_RESTRICTED:
        out.flag_if(entry, "suppressed", True)
    return entry


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    props = set(params["prop"])
    tags: dict[int, list[str]] = {}
    if "tags" in props:
        ids = [int(r["log_id"]) for r in rows]
        tags = await q.ctx.db.read(lambda conn: event_tags(conn, "cte_log_id", ids))
    q.data["logevents"] = [_entry(q, row, props, tags) for row in rows]
    if cont is not None:
        q.continuation.add(LOGEVENTS, "continue", cont)


MODULE = QueryModule(LOGEVENTS, run)
