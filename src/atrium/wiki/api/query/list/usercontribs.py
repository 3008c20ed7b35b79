"""`list=usercontribs` (ApiQueryUserContribs): the revisions of one or several users, newest first
unless `dir=newer`.

One user is walked by (rev_timestamp, rev_id), continue `<timestamp>|<rev_id>`; several by (actor
name for a prefix, else actor id, rev_timestamp, rev_id), continue `name|<name>|<timestamp>|<rev_id>`
or `actor|<actor id>|<timestamp>|<rev_id>`, as MediaWiki's.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
    INTEGER,
    NAMESPACE,
    TIMESTAMP,
    USER,
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
    Walk,
    actor_of,
    can_see,
    check_show,
    may_patrol,
    parsed_comment,
    patrolflag_denied,
    timestamp,
)
from atrium.wiki.api.query.listing import prefixed, revision_tags, starts_with
from atrium.wiki.api.query.pageset import QueryModule, QueryRun, badcontinue
from atrium.wiki.messages import messages as msg

R = schema.revision
A = schema.actor
C = schema.comment
P = schema.page
RC = schema.recentchanges

_PAIRS = (
    ("minor", "!minor"),
    ("patrolled", "!patrolled"),
    ("autopatrolled", "!autopatrolled"),
    ("autopatrolled", "!patrolled"),
    ("top", "!top"),
    ("new", "!new"),
)
_PATROL_SHOW = {"patrolled", "!patrolled", "autopatrolled", "!autopatrolled"}


def _hidden_user_filter(q: QueryRun, query: Any) -> Any:
    """Rows whose user is hidden from the caller are left out (ApiQueryUserContribs)."""
    caller = q.ctx.caller
    if not caller.allowed("deletedhistory"):
        return query.where(R.c.rev_deleted.op("&")(DELETED_USER) == 0)
    if not (caller.allowed("suppressrevision") or caller.allowed("viewsuppressed")):
        bits = DELETED_USER | DELETED_RESTRICTED
        return query.where(R.c.rev_deleted.op("&")(bits) != bits)
    return query


USERCONTRIBS = ModuleSpec(
    "usercontribs",
    "ApiQueryUserContribs",
    "list",
    "uc",
    (
        limit(default=10),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("continue"),
        Param("user", USER, multi=True, subtypes=("name", "ip", "interwiki")),
        Param("userids", INTEGER, multi=True),
        Param("userprefix"),
        Param("dir", enum("newer", "older"), default="older"),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param(
            "prop",
            enum(
                "comment",
                "flags",
                "ids",
                "parsedcomment",
                "patrolled",
                "size",
                "sizediff",
                "tags",
                "timestamp",
                "title",
            ),
            default="ids|title|timestamp|comment|size|flags",
            multi=True,
        ),
        Param(
            "show",
            enum(
                "!autopatrolled",
                "!minor",
                "!new",
                "!patrolled",
                "!top",
                "autopatrolled",
                "minor",
                "new",
                "patrolled",
                "top",
            ),
            multi=True,
        ),
        Param("tag"),
        Param("toponly", BOOLEAN, deprecated=True),
    ),
)


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = USERCONTRIBS
    given = [n for n in ("user", "userids", "userprefix") if params[n]]
    if len(given) != 1:
        names = ["ucuserprefix", "ucuserids", "ucuser"]
        if given:
            raise ApiUsageError(
                "invalidparammix",
                msg.invalidparammix(["uc" + n for n in given]),
                module=spec.path,
            )
        raise ApiUsageError("missingparam", msg.missing_one_of(names), module=spec.path)
    show = list(params["show"] or ())
    if params["toponly"]:
        show.append("top")
    check_show(spec, show, _PAIRS)
    if set(show) & _PATROL_SHOW and not may_patrol(q):
        raise patrolflag_denied(spec)
    if "patrolled" in params["prop"] and not may_patrol(q):
        raise patrolflag_denied(spec)
    by_name = bool(params["userprefix"])
    multi = by_name or len(params["user"] or params["userids"] or []) > 1
    mode = "name" if by_name else "actor"
    user_col = A.c.actor_name if by_name else R.c.rev_actor
    query = sa.select(
        R,
        A.c.actor_name,
        A.c.actor_user,
        C.c.comment_text,
        P.c.page_namespace,
        P.c.page_title,
        P.c.page_latest,
        RC.c.rc_patrolled,
    ).select_from(
        R.join(A, A.c.actor_id == R.c.rev_actor)
        .join(C, C.c.comment_id == R.c.rev_comment_id)
        .join(P, P.c.page_id == R.c.rev_page)
        .outerjoin(RC, sa.and_(RC.c.rc_this_oldid == R.c.rev_id, RC.c.rc_type.in_((0, 1))))
    )
    if params["userprefix"]:
        query = query.where(starts_with(A.c.actor_name, params["userprefix"]))
    elif params["userids"]:
        query = query.where(A.c.actor_user.in_(params["userids"]))
    else:
        query = query.where(sa.or_(*(actor_of(u) for u in params["user"])))
    query = _hidden_user_filter(q, query)
    walk = Walk.of(params)
    query = walk.window(query, R.c.rev_timestamp)
    if params["namespace"]:
        query = query.where(P.c.page_namespace.in_(params["namespace"]))
    conds = {
        "minor": R.c.rev_minor_edit == sa.true(),
        "!minor": R.c.rev_minor_edit == sa.false(),
        "patrolled": RC.c.rc_patrolled != 0,
        "!patrolled": RC.c.rc_patrolled == 0,
        "autopatrolled": RC.c.rc_patrolled == 2,
        "!autopatrolled": RC.c.rc_patrolled != 2,
        "top": R.c.rev_id == P.c.page_latest,
        "!top": R.c.rev_id != P.c.page_latest,
        "new": R.c.rev_parent_id == 0,
        "!new": R.c.rev_parent_id != 0,
    }
    for value in sorted(set(show)):
        query = query.where(conds[value])
    keys: list[Any] = [R.c.rev_timestamp, R.c.rev_id]
    kinds: tuple[type, ...] = (str, int)
    fields = ["rev_timestamp", "rev_id"]
    if multi:
        keys = [user_col, *keys]
        kinds = (str if by_name else int, str, int)
        fields = ["actor_name" if by_name else "rev_actor", *fields]
        if walk.cont is not None:
            given_mode, _, rest = walk.cont.partition("|")
            if given_mode != mode:
                raise badcontinue()
            walk = dataclasses.replace(walk, cont=rest)
    ct = schema.change_tag
    rows, nxt = await walk.page(
        q,
        query,
        keys,
        kinds,
        fields,
        tag=params["tag"],
        tagged=lambda tid: sa.exists().where(ct.c.ct_rev_id == R.c.rev_id, ct.c.ct_tag_id == tid),
    )
    if nxt is not None and multi:
        nxt = f"{mode}|{nxt}"
    return rows, nxt


def _entry(
    q: QueryRun,
    row: Row,
    props: set[str],
    parent_lens: dict[int, int],
    tags: dict[int, list[str]],
) -> dict[str, Any]:
    out = q.ctx.out
    deleted = int(row["rev_deleted"] or 0)
    entry: dict[str, Any] = {}
    hidden = False
    if deleted & DELETED_TEXT:
        out.flag_if(entry, "texthidden", True)
        hidden = True
    entry["userid"] = int(row["actor_user"] or 0)
    entry["user"] = row["actor_name"]
    if deleted & DELETED_USER:
        out.flag_if(entry, "userhidden", True)
        hidden = True
    if "ids" in props:
        entry["pageid"] = int(row["rev_page"])
        entry["revid"] = int(row["rev_id"])
        entry["parentid"] = int(row["rev_parent_id"])
    if "title" in props:
        ns = int(row["page_namespace"])
        entry["ns"] = ns
        entry["title"] = prefixed(q, ns, str(row["page_title"]))
    if "timestamp" in props:
        entry["timestamp"] = timestamp(row["rev_timestamp"])
    if "flags" in props:
        out.flag(entry, "new", int(row["rev_parent_id"]) == 0)
        out.flag(entry, "minor", bool(row["rev_minor_edit"]))
        out.flag(entry, "top", int(row["page_latest"]) == int(row["rev_id"]))
    if props & {"comment", "parsedcomment"}:
        if deleted & DELETED_COMMENT:
            out.flag_if(entry, "commenthidden", True)
            hidden = True
        if can_see(q, deleted, DELETED_COMMENT):
            if "comment" in props:
                entry["comment"] = row["comment_text"]
            if "parsedcomment" in props:
                entry["parsedcomment"] = parsed_comment(str(row["comment_text"]))
    if "patrolled" in props:
        patrolled = int(row["rc_patrolled"] or 0)
        out.flag(entry, "patrolled", patrolled != 0)
        out.flag(entry, "autopatrolled", patrolled == 2)
    if "size" in props:
        entry["size"] = int(row["rev_len"])
    if "sizediff" in props:
        entry["sizediff"] = int(row["rev_len"]) - parent_lens.get(int(row["rev_parent_id"]), 0)
    if "tags" in props:
        entry["tags"] = tags.get(int(row["rev_id"]), [])
    if hidden and deleted & DELETED_RESTRICTED:
        out.flag_if(entry, "suppressed", True)
    return entry


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    props = set(params["prop"])
    rev_ids = [int(r["rev_id"]) for r in rows]
    parents = [int(r["rev_parent_id"]) for r in rows if int(r["rev_parent_id"])]

    def extras(conn: Conn) -> tuple[dict[int, int], dict[int, list[str]]]:
        lens: dict[int, int] = {}
        if "sizediff" in props and parents:
            for row in conn.all(sa.select(R.c.rev_id, R.c.rev_len).where(R.c.rev_id.in_(parents))):
                lens[int(row["rev_id"])] = int(row["rev_len"])
        tags = revision_tags(conn, rev_ids) if "tags" in props else {}
        return lens, tags

    lens, tags = await q.ctx.db.read(extras)
    q.data["usercontribs"] = [_entry(q, row, props, lens, tags) for row in rows]
    if cont is not None:
        q.continuation.add(USERCONTRIBS, "continue", cont)


MODULE = QueryModule(USERCONTRIBS, run)
