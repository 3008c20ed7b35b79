"""`list=watchlist` (ApiQueryWatchlist): the recent changes to the pages a user watches, the latest
of each page unless `allrev`; also a generator.

Rows come by (rc_timestamp, rc_id), newest first unless `dir=newer`; the continue value is
`<timestamp>|<rc_id>`, as MediaWiki's. Fields appear in ApiQueryWatchlist::extractOutputData's
order. The watchlist is the caller's, or with `owner` and `token` that user's
(ApiBase::getWatchlistUser, `watchlist_owner`, which `list=watchlistraw` shares).
"""

from __future__ import annotations

import hmac
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import (
    BOOLEAN,
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
    RC_TYPE_NAMES,
    RECENTCHANGES_FIELDS,
    RECENTCHANGES_KEYS,
    RECENTCHANGES_KINDS,
    Walk,
    add_comment,
    can_see,
    change_flags_sizes_time,
    change_loginfo,
    change_patrol_flags,
    change_tags,
    change_title_ids,
    check_show,
    may_patrol,
    patrolflag_denied,
    recentchanges_filters,
    recentchanges_select,
    recentchanges_show,
    timestamp,
)
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.messages import messages as msg

RC = schema.recentchanges
P = schema.page
WL = schema.watchlist

_PAIRS = (
    ("minor", "!minor"),
    ("bot", "!bot"),
    ("anon", "!anon"),
    ("patrolled", "!patrolled"),
    ("autopatrolled", "!autopatrolled"),
    ("autopatrolled", "!patrolled"),
    ("unread", "!unread"),
)
_PATROL_SHOW = {"patrolled", "!patrolled", "autopatrolled", "!autopatrolled"}


async def watchlist_owner(q: QueryRun, spec: Any, params: dict[str, Any]) -> int:
    """ApiBase::getWatchlistUser: the owner with their token, or the logged-in caller."""
    owner, token = params["owner"], params["token"]
    if owner is not None and token is not None:

        def read(conn: Conn) -> tuple[int | None, str]:
            user_id = conn.scalar(
                sa.select(schema.user.c.user_id).where(schema.user.c.user_name == owner)
            )
            if user_id is None:
                return None, ""
            up = schema.user_properties
            stored = conn.scalar(
                sa.select(up.c.up_value).where(
                    up.c.up_user == user_id, up.c.up_property == "watchlisttoken"
                )
            )
            return int(user_id), str(stored or "")

        user_id, stored = await q.ctx.db.read(read)
        if user_id is None:
            raise ApiUsageError(
                "bad_wlowner",
                msg.api("nosuchusershort", owner),
                module=spec.path,
            )
        if not stored or not hmac.compare_digest(stored, token):
            raise ApiUsageError(
                "bad_wltoken",
                msg.api("apierror-bad-watchlist-token"),
                module=spec.path,
            )
        return user_id
    caller = q.ctx.caller
    if not caller.registered:
        raise ApiUsageError(
            "notloggedin",
            msg.api("watchlistanontext"),
            module=spec.path,
        )
    if not caller.allowed("viewmywatchlist"):
        raise ApiUsageError(
            "permissiondenied",
            msg.api("apierror-permissiondenied", msg.message("action-viewmywatchlist")),
            module=spec.path,
        )
    return caller.id


WATCHLIST = ModuleSpec(
    "watchlist",
    "ApiQueryWatchlist",
    "list",
    "wl",
    (
        Param("allrev", BOOLEAN),
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("namespace", NAMESPACE, multi=True, allspecifier="*"),
        Param("user", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("excludeuser", USER, subtypes=("name", "ip", "interwiki", "id")),
        Param("dir", enum("newer", "older"), default="older"),
        limit(default=10),
        Param(
            "prop",
            enum(
                "comment",
                "flags",
                "ids",
                "loginfo",
                "notificationtimestamp",
                "parsedcomment",
                "patrol",
                "sizes",
                "tags",
                "timestamp",
                "title",
                "user",
                "userid",
            ),
            default="ids|title|flags",
            multi=True,
        ),
        Param(
            "show",
            enum(
                "!anon",
                "!autopatrolled",
                "!bot",
                "!minor",
                "!patrolled",
                "!unread",
                "anon",
                "autopatrolled",
                "bot",
                "minor",
                "patrolled",
                "unread",
            ),
            multi=True,
        ),
        Param(
            "type",
            enum("categorize", "edit", "external", "log", "new"),
            default="edit|new|log|categorize",
            multi=True,
        ),
        Param("owner", USER, subtypes=("name",)),
        Param("token", sensitive=True),
        Param("continue"),
    ),
    generator=True,
)


async def _rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = WATCHLIST
    owner = await watchlist_owner(q, spec, params)
    show = set(params["show"] or ())
    check_show(spec, params["show"] or (), _PAIRS)
    if show & _PATROL_SHOW and not may_patrol(q):
        raise patrolflag_denied(spec)
    if "patrol" in params["prop"] and not may_patrol(q):
        raise ApiUsageError(
            "patrol",
            msg.api("apierror-permissiondenied-patrolflag"),
            module=spec.path,
        )
    walk = Walk.of(params)
    query = recentchanges_select().add_columns(WL.c.wl_notificationtimestamp)
    query = query.join(
        WL,
        sa.and_(
            WL.c.wl_namespace == RC.c.rc_namespace,
            WL.c.wl_title == RC.c.rc_title,
            WL.c.wl_user == owner,
        ),
    )
    query = recentchanges_filters(q, spec, params, walk, query)
    query = recentchanges_show(query, show)
    if not params["allrev"]:
        query = query.where(sa.or_(RC.c.rc_this_oldid == P.c.page_latest, RC.c.rc_type == 3))
    return await walk.page(q, query, RECENTCHANGES_KEYS, RECENTCHANGES_KINDS, RECENTCHANGES_FIELDS)


def _entry(q: QueryRun, row: Row, props: set[str], tags: dict[int, list[str]]) -> dict[str, Any]:
    """ApiQueryWatchlist::extractOutputData."""
    out = q.ctx.out
    rc_type = int(row["rc_type"])
    deleted = int(row["rc_deleted"] or 0)
    entry: dict[str, Any] = {"type": RC_TYPE_NAMES.get(rc_type, "edit")}
    hidden = change_title_ids(q, entry, row, props)
    if "user" in props or "userid" in props:
        if deleted & 4:
            out.flag_if(entry, "userhidden", True)
            hidden = True
        if can_see(q, deleted, 4):
            if "userid" in props:
                entry["userid"] = int(row["actor_user"] or 0)
                entry["user"] = int(row["actor_user"] or 0)
            if "user" in props:
                entry["user"] = row["actor_name"]
            out.flag(entry, "anon", not row["actor_user"])
    change_flags_sizes_time(q, entry, row, props)
    if "notificationtimestamp" in props:
        notified = row["wl_notificationtimestamp"]
        entry["notificationtimestamp"] = "" if notified is None else timestamp(notified)
    hidden |= add_comment(
        q, entry, row["comment_text"], deleted, "comment" in props, "parsedcomment" in props
    )
    if "patrol" in props:
        change_patrol_flags(q, entry, row)
    if "loginfo" in props and rc_type == 3:
        hidden |= change_loginfo(q, entry, row)
    if "tags" in props:
        entry["tags"] = tags.get(int(row["rc_id"]), [])
    if hidden and deleted & DELETED_RESTRICTED:
        out.flag_if(entry, "suppressed", True)
    return entry


async def run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rows(q, params)
    props = set(params["prop"])
    tags = await change_tags(q, rows, props)
    q.data["watchlist"] = [_entry(q, row, props, tags) for row in rows]
    if cont is not None:
        q.continuation.add(WATCHLIST, "continue", cont)


async def generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rows(q, params)
    if cont is not None:
        q.continuation.add_generator(WATCHLIST, "continue", cont)
    if params["allrev"]:
        return GeneratedPages(
            revids=[int(r["rc_this_oldid"]) for r in rows if int(r["rc_this_oldid"]) > 0]
        )
    return GeneratedPages(page_ids=list(dict.fromkeys(int(r["rc_cur_id"]) for r in rows)))


MODULE = QueryModule(WATCHLIST, run, generate)
