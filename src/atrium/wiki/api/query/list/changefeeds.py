"""`list=recentchanges` and `list=watchlist`: the recent-changes journal, all of it or the part on
a user's watched pages; both are generators.

Rows come by (rc_timestamp, rc_id), newest first unless `dir=newer`; the continue value is
`<timestamp>|<rc_id>`, as MediaWiki's. Fields appear in MediaWiki 1.39's order
(ApiQueryRecentChanges::extractRowInfo, ApiQueryWatchlist::extractOutputData).
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
    DELETED_TEXT,
    RC_TYPE_NAMES,
    RC_TYPES,
    actor_of,
    add_comment,
    add_user,
    can_see,
    check_show,
    keyset,
    may_patrol,
    patrolflag_denied,
    sha1_hex,
    time_window,
    timestamp,
)
from atrium.wiki.api.query.listing import event_tags, prefixed, split_page, tag_id
from atrium.wiki.api.query.pageset import GeneratedPages, QueryModule, QueryRun
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.logparams import log_params
from atrium.wiki.titles import InvalidTitle

RC = schema.recentchanges
A = schema.actor
C = schema.comment
P = schema.page
R = schema.revision
WL = schema.watchlist

_RC_PAIRS = (
    ("minor", "!minor"),
    ("bot", "!bot"),
    ("anon", "!anon"),
    ("redirect", "!redirect"),
    ("patrolled", "!patrolled"),
    ("patrolled", "unpatrolled"),
    ("autopatrolled", "!autopatrolled"),
    ("autopatrolled", "unpatrolled"),
    ("autopatrolled", "!patrolled"),
)
_WL_PAIRS = (
    ("minor", "!minor"),
    ("bot", "!bot"),
    ("anon", "!anon"),
    ("patrolled", "!patrolled"),
    ("autopatrolled", "!autopatrolled"),
    ("autopatrolled", "!patrolled"),
    ("unread", "!unread"),
)
_PATROL_SHOW = {"patrolled", "!patrolled", "unpatrolled", "autopatrolled", "!autopatrolled"}


def _base() -> Any:
    return sa.select(
        RC,
        A.c.actor_name,
        A.c.actor_user,
        C.c.comment_text,
        P.c.page_is_redirect,
        P.c.page_latest,
        R.c.rev_sha1,
        R.c.rev_deleted,
    ).select_from(
        RC.join(A, A.c.actor_id == RC.c.rc_actor)
        .join(C, C.c.comment_id == RC.c.rc_comment_id)
        .outerjoin(P, P.c.page_id == RC.c.rc_cur_id)
        .outerjoin(R, sa.and_(R.c.rev_id == RC.c.rc_this_oldid, RC.c.rc_this_oldid != 0))
    )


def _show_conditions(query: Any, show: set[str]) -> Any:
    conds = {
        "minor": RC.c.rc_minor == sa.true(),
        "!minor": RC.c.rc_minor == sa.false(),
        "bot": RC.c.rc_bot == sa.true(),
        "!bot": RC.c.rc_bot == sa.false(),
        "anon": A.c.actor_user.is_(None),
        "!anon": A.c.actor_user.is_not(None),
        "patrolled": RC.c.rc_patrolled != 0,
        "!patrolled": RC.c.rc_patrolled == 0,
        "autopatrolled": RC.c.rc_patrolled == 2,
        "!autopatrolled": RC.c.rc_patrolled != 2,
        "unpatrolled": RC.c.rc_patrolled == 0,
        "redirect": P.c.page_is_redirect == sa.true(),
        "!redirect": sa.or_(P.c.page_is_redirect.is_(None), P.c.page_is_redirect == sa.false()),
        "unread": sa.and_(
            WL.c.wl_notificationtimestamp.is_not(None),
            RC.c.rc_timestamp >= WL.c.wl_notificationtimestamp,
        ),
        "!unread": sa.or_(
            WL.c.wl_notificationtimestamp.is_(None),
            RC.c.rc_timestamp < WL.c.wl_notificationtimestamp,
        ),
    }
    for value in sorted(show):
        query = query.where(conds[value])
    return query


def _hide_deleted(q: QueryRun, query: Any) -> Any:
    """Rows whose user or log action the caller may not see are left out when filtering on them
    (MediaWiki's `rc_deleted` conditions)."""
    caller = q.ctx.caller
    if not caller.allowed("deletedhistory"):
        bits = DELETED_TEXT
    elif not (caller.allowed("suppressrevision") or caller.allowed("viewsuppressed")):
        bits = DELETED_TEXT | DELETED_RESTRICTED
    else:
        return query
    return query.where(sa.or_(RC.c.rc_type != 3, RC.c.rc_deleted.op("&")(bits) != bits))


def _common_filters(q: QueryRun, spec: Any, params: dict[str, Any], query: Any) -> Any:
    if params["user"] is not None and params["excludeuser"] is not None:
        raise ApiUsageError(
            "invalidparammix",
            msg.invalidparammix([spec.prefix + "user", spec.prefix + "excludeuser"]),
            module=spec.path,
        )
    newer = params["dir"] == "newer"
    query = time_window(query, RC.c.rc_timestamp, params["start"], params["end"], newer)
    if params["namespace"]:
        query = query.where(RC.c.rc_namespace.in_(params["namespace"]))
    if params["user"] is not None:
        query = query.where(actor_of(params["user"]))
    if params["excludeuser"] is not None:
        query = query.where(sa.not_(actor_of(params["excludeuser"])))
    types = [RC_TYPES[t] for t in params["type"]]
    query = query.where(RC.c.rc_type.in_(types))
    return _hide_deleted(q, query)


def _entry(q: QueryRun, row: Row, props: set[str], tags: dict[int, list[str]]) -> dict[str, Any]:
    """ApiQueryRecentChanges::extractRowInfo."""
    out = q.ctx.out
    rc_type = int(row["rc_type"])
    deleted = int(row["rc_deleted"] or 0)
    entry: dict[str, Any] = {"type": RC_TYPE_NAMES.get(rc_type, "edit")}
    hidden = False
    if "title" in props or "ids" in props:
        if rc_type == 3 and deleted & DELETED_TEXT:
            out.flag_if(entry, "actionhidden", True)
            hidden = True
        if rc_type != 3 or can_see(q, deleted, DELETED_TEXT):
            if "title" in props:
                ns = int(row["rc_namespace"])
                entry["ns"] = ns
                entry["title"] = prefixed(q, ns, str(row["rc_title"]))
            if "ids" in props:
                entry["pageid"] = int(row["rc_cur_id"])
                entry["revid"] = int(row["rc_this_oldid"])
                entry["old_revid"] = int(row["rc_last_oldid"])
    if "ids" in props:
        entry["rcid"] = int(row["rc_id"])
    hidden |= add_user(q, entry, row, deleted, "user" in props, "userid" in props)
    if "flags" in props:
        out.flag(entry, "bot", bool(row["rc_bot"]))
        out.flag(entry, "new", rc_type == 1)
        out.flag(entry, "minor", bool(row["rc_minor"]))
    if "sizes" in props:
        entry["oldlen"] = int(row["rc_old_len"] or 0)
        entry["newlen"] = int(row["rc_new_len"] or 0)
    if "timestamp" in props:
        entry["timestamp"] = timestamp(row["rc_timestamp"])
    hidden |= add_comment(
        q, entry, row["comment_text"], deleted, "comment" in props, "parsedcomment" in props
    )
    if "redirect" in props:
        out.flag(entry, "redirect", bool(row["page_is_redirect"]))
    if "patrolled" in props:
        patrolled = int(row["rc_patrolled"] or 0)
        out.flag(entry, "patrolled", patrolled != 0)
        out.flag(entry, "unpatrolled", patrolled == 0 and rc_type in (0, 1))
        out.flag(entry, "autopatrolled", patrolled == 2)
    if "loginfo" in props and rc_type == 3:
        if deleted & DELETED_TEXT:
            out.flag_if(entry, "actionhidden", True)
            hidden = True
        if can_see(q, deleted, DELETED_TEXT):
            entry["logid"] = int(row["rc_logid"])
            entry["logtype"] = row["rc_log_type"]
            entry["logaction"] = row["rc_log_action"]
            entry["logparams"] = log_params(row["rc_params"], row["rc_log_type"], q.ctx.fv)
    if "tags" in props:
        entry["tags"] = tags.get(int(row["rc_id"]), [])
    if "sha1" in props and row["rev_sha1"] is not None:
        rev_deleted = int(row["rev_deleted"] or 0)
        if rev_deleted & DELETED_TEXT:
            out.flag_if(entry, "sha1hidden", True)
            hidden = True
        if can_see(q, rev_deleted, DELETED_TEXT):
            entry["sha1"] = sha1_hex(str(row["rev_sha1"]))
    if hidden and deleted & DELETED_RESTRICTED:
        out.flag_if(entry, "suppressed", True)
    return entry


# list=recentchanges


RECENTCHANGES = ModuleSpec(
    "recentchanges",
    "ApiQueryRecentChanges",
    "list",
    "rc",
    (
        Param("start", TIMESTAMP),
        Param("end", TIMESTAMP),
        Param("dir", enum("newer", "older"), default="older"),
        Param(
            "namespace",
            NAMESPACE,
            multi=True,
            allspecifier="*",
            extranamespaces=(
                -2,
                -1,
            ),
        ),
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
        Param(
            "excludeuser",
            USER,
            subtypes=(
                "name",
                "ip",
                "interwiki",
                "id",
            ),
        ),
        Param("tag"),
        Param(
            "prop",
            enum(
                "comment",
                "flags",
                "ids",
                "loginfo",
                "parsedcomment",
                "patrolled",
                "redirect",
                "sha1",
                "sizes",
                "tags",
                "timestamp",
                "title",
                "user",
                "userid",
            ),
            default="title|timestamp|ids",
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
                "!redirect",
                "anon",
                "autopatrolled",
                "bot",
                "minor",
                "patrolled",
                "redirect",
                "unpatrolled",
            ),
            multi=True,
        ),
        limit(),
        Param(
            "type",
            enum("categorize", "edit", "external", "log", "new"),
            default="edit|new|log|categorize",
            multi=True,
        ),
        Param("toponly", BOOLEAN),
        Param("title"),
        Param("continue"),
        Param("generaterevisions", BOOLEAN),
        Param("slot", enum("main")),
    ),
    generator=True,
)


async def _rc_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = RECENTCHANGES
    show = set(params["show"] or ())
    check_show(spec, params["show"] or (), _RC_PAIRS)
    if show & _PATROL_SHOW and not may_patrol(q):
        raise patrolflag_denied(spec)
    if "patrolled" in params["prop"] and not may_patrol(q):
        raise patrolflag_denied(spec)
    query = _common_filters(q, spec, params, _base())
    query = _show_conditions(query, show)
    if params["title"] is not None:
        try:
            title = q.ctx.site.parser.parse(params["title"])
        except InvalidTitle as exc:
            raise ApiUsageError(
                "invalidtitle",
                msg.api("apierror-invalidtitle", msg.escape_wikitext(params["title"])),
                module=spec.path,
            ) from exc
        query = query.where(RC.c.rc_namespace == title.ns, RC.c.rc_title == title.dbkey)
    if params["toponly"]:
        query = query.where(RC.c.rc_this_oldid == P.c.page_latest)
    limit = params["limit"]
    tag = params["tag"]

    def read(conn: Conn) -> list[Row]:
        nonlocal query
        if tag is not None:
            tid = tag_id(conn, tag)
            if tid is None:
                return []
            cte = schema.change_tag_event
            query = query.where(
                sa.exists().where(cte.c.cte_rc_id == RC.c.rc_id, cte.c.cte_tag_id == tid)
            )
        query = keyset(
            query, [RC.c.rc_timestamp, RC.c.rc_id], params["continue"], (str, int),
            params["dir"] == "newer",
        )  # fmt: skip
        return conn.all(query.limit(limit + 1))

    rows, following = split_page(await q.ctx.db.read(read), limit)
    cont = None if following is None else f"{following['rc_timestamp']}|{following['rc_id']}"
    return rows, cont


async def rc_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _rc_rows(q, params)
    props = set(params["prop"])
    tags: dict[int, list[str]] = {}
    if "tags" in props:
        ids = [int(r["rc_id"]) for r in rows]
        tags = await q.ctx.db.read(lambda conn: event_tags(conn, "cte_rc_id", ids))
    q.data["recentchanges"] = [_entry(q, row, props, tags) for row in rows]
    if cont is not None:
        q.continuation.add(RECENTCHANGES, "continue", cont)


async def rc_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _rc_rows(q, params)
    if cont is not None:
        q.continuation.add_generator(RECENTCHANGES, "continue", cont)
    if params["generaterevisions"]:
        return GeneratedPages(
            revids=[int(r["rc_this_oldid"]) for r in rows if int(r["rc_this_oldid"]) > 0]
        )
    titles = [(int(r["rc_namespace"]), str(r["rc_title"])) for r in rows]
    return GeneratedPages(titles=list(dict.fromkeys(titles)))


RECENTCHANGES_MODULE = QueryModule(RECENTCHANGES, rc_run, rc_generate)


# list=watchlist


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


async def _wl_rows(q: QueryRun, params: dict[str, Any]) -> tuple[list[Row], str | None]:
    spec = WATCHLIST
    owner = await watchlist_owner(q, spec, params)
    show = set(params["show"] or ())
    check_show(spec, params["show"] or (), _WL_PAIRS)
    if show & _PATROL_SHOW and not may_patrol(q):
        raise patrolflag_denied(spec)
    if "patrol" in params["prop"] and not may_patrol(q):
        raise ApiUsageError(
            "patrol",
            msg.api("apierror-permissiondenied-patrolflag"),
            module=spec.path,
        )
    query = _base().add_columns(WL.c.wl_notificationtimestamp)
    query = query.join(
        WL,
        sa.and_(
            WL.c.wl_namespace == RC.c.rc_namespace,
            WL.c.wl_title == RC.c.rc_title,
            WL.c.wl_user == owner,
        ),
    )
    query = _common_filters(q, spec, params, query)
    query = _show_conditions(query, show)
    if not params["allrev"]:
        query = query.where(sa.or_(RC.c.rc_this_oldid == P.c.page_latest, RC.c.rc_type == 3))
    limit = params["limit"]
    query = keyset(
        query, [RC.c.rc_timestamp, RC.c.rc_id], params["continue"], (str, int),
        params["dir"] == "newer",
    ).limit(limit + 1)  # fmt: skip
    rows, following = split_page(await q.ctx.db.read(lambda conn: conn.all(query)), limit)
    cont = None if following is None else f"{following['rc_timestamp']}|{following['rc_id']}"
    return rows, cont


def _wl_entry(q: QueryRun, row: Row, props: set[str], tags: dict[int, list[str]]) -> dict[str, Any]:
    """ApiQueryWatchlist::extractOutputData."""
    out = q.ctx.out
    rc_type = int(row["rc_type"])
    deleted = int(row["rc_deleted"] or 0)
    entry: dict[str, Any] = {"type": RC_TYPE_NAMES.get(rc_type, "edit")}
    hidden = False
    if "title" in props or "ids" in props:
        if rc_type == 3 and deleted & DELETED_TEXT:
            out.flag_if(entry, "actionhidden", True)
            hidden = True
        if rc_type != 3 or can_see(q, deleted, DELETED_TEXT):
            if "title" in props:
                ns = int(row["rc_namespace"])
                entry["ns"] = ns
                entry["title"] = prefixed(q, ns, str(row["rc_title"]))
            if "ids" in props:
                entry["pageid"] = int(row["rc_cur_id"])
                entry["revid"] = int(row["rc_this_oldid"])
                entry["old_revid"] = int(row["rc_last_oldid"])
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
    if "flags" in props:
        out.flag(entry, "bot", bool(row["rc_bot"]))
        out.flag(entry, "new", rc_type == 1)
        out.flag(entry, "minor", bool(row["rc_minor"]))
    if "sizes" in props:
        entry["oldlen"] = int(row["rc_old_len"] or 0)
        entry["newlen"] = int(row["rc_new_len"] or 0)
    if "timestamp" in props:
        entry["timestamp"] = timestamp(row["rc_timestamp"])
    if "notificationtimestamp" in props:
        notified = row["wl_notificationtimestamp"]
        entry["notificationtimestamp"] = "" if notified is None else timestamp(notified)
    hidden |= add_comment(
        q, entry, row["comment_text"], deleted, "comment" in props, "parsedcomment" in props
    )
    if "patrol" in props:
        patrolled = int(row["rc_patrolled"] or 0)
        out.flag(entry, "patrolled", patrolled != 0)
        out.flag(entry, "unpatrolled", patrolled == 0 and rc_type in (0, 1))
        out.flag(entry, "autopatrolled", patrolled == 2)
    if "loginfo" in props and rc_type == 3:
        if deleted & DELETED_TEXT:
            out.flag_if(entry, "actionhidden", True)
            hidden = True
        if can_see(q, deleted, DELETED_TEXT):
            entry["logid"] = int(row["rc_logid"])
            entry["logtype"] = row["rc_log_type"]
            entry["logaction"] = row["rc_log_action"]
            entry["logparams"] = log_params(row["rc_params"], row["rc_log_type"], q.ctx.fv)
    if "tags" in props:
        entry["tags"] = tags.get(int(row["rc_id"]), [])
    if hidden and deleted & DELETED_RESTRICTED:
        out.flag_if(entry, "suppressed", True)
    return entry


async def wl_run(q: QueryRun, params: dict[str, Any]) -> None:
    rows, cont = await _wl_rows(q, params)
    props = set(params["prop"])
    tags: dict[int, list[str]] = {}
    if "tags" in props:
        ids = [int(r["rc_id"]) for r in rows]
        tags = await q.ctx.db.read(lambda conn: event_tags(conn, "cte_rc_id", ids))
    q.data["watchlist"] = [_wl_entry(q, row, props, tags) for row in rows]
    if cont is not None:
        q.continuation.add(WATCHLIST, "continue", cont)


async def wl_generate(q: QueryRun, params: dict[str, Any]) -> GeneratedPages:
    rows, cont = await _wl_rows(q, params)
    if cont is not None:
        q.continuation.add_generator(WATCHLIST, "continue", cont)
    if params["allrev"]:
        return GeneratedPages(
            revids=[int(r["rc_this_oldid"]) for r in rows if int(r["rc_this_oldid"]) > 0]
        )
    return GeneratedPages(page_ids=list(dict.fromkeys(int(r["rc_cur_id"]) for r in rows)))


WATCHLIST_MODULE = QueryModule(WATCHLIST, wl_run, wl_generate)

MODULES = (RECENTCHANGES_MODULE, WATCHLIST_MODULE)
