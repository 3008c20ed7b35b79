"""What the journal lists share (recentchanges, watchlist, logevents, usercontribs, allrevisions,
alldeletedrevisions, blocks, protectedtitles): the hidden-field bits, user and comment fields, the
`show` conflicts, and the walk through time of MediaWiki's `dir=older|newer` lists (`Walk`): the
`start`/`end` window, the keyset from the continue value, the page of `limit` rows and the next
continue value, with the optional `tag` filter.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import ModuleSpec
from atrium.wiki.api.query.listing import (
    event_tags,
    from_key,
    order,
    parse_continue,
    prefixed,
    split_page,
    tag_id,
)
from atrium.wiki.api.query.pageset import QueryRun
from atrium.wiki.messages import messages as msg
from atrium.wiki.reads.logparams import log_params
from atrium.wiki.reads.visibility import user_can_bitfield
from atrium.wiki.timestamps import iso

# rev_deleted / rc_deleted / log_deleted bits (RevisionRecord::DELETED_*, LogPage::DELETED_*).
DELETED_TEXT = 1  # DELETED_ACTION for log entries
DELETED_COMMENT = 2
DELETED_USER = 4
DELETED_RESTRICTED = 8

RC_TYPE_NAMES = {0: "edit", 1: "new", 3: "log", 5: "external", 6: "categorize"}
RC_TYPES = {name: number for number, name in RC_TYPE_NAMES.items()}


def can_see(q: QueryRun, deleted: int, bit: int) -> bool:
    """RevisionRecord::userCanBitfield: `deletedhistory` (`deletedtext` for the text), or
    `suppressrevision` / `viewsuppressed` when the row is suppressed."""
    return user_can_bitfield(deleted, bit, q.ctx.caller.rights)


def parsed_comment(text: str) -> str:
    return html.escape(text, quote=False)


def sha1_hex(base36: str) -> str:
    return f"{int(base36, 36):040x}" if base36 else ""


def add_user(
    q: QueryRun,
    entry: dict[str, Any],
    row: Row,
    deleted: int,
    want_user: bool,
    want_userid: bool,
) -> bool:
    """`user` / `userid` / `anon` / `userhidden`; True when the user is hidden."""
    if not (want_user or want_userid):
        return False
    out = q.ctx.out
    hidden = bool(deleted & DELETED_USER)
    if hidden:
        out.flag_if(entry, "userhidden", True)
    if can_see(q, deleted, DELETED_USER):
        if want_user:
            entry["user"] = row["actor_name"]
        if want_userid:
            entry["userid"] = int(row["actor_user"] or 0)
        if not row["actor_user"]:
            out.flag_if(entry, "anon", True)
    return hidden


def add_comment(
    q: QueryRun,
    entry: dict[str, Any],
    text: str | None,
    deleted: int,
    want_comment: bool,
    want_parsed: bool,
) -> bool:
    if not (want_comment or want_parsed):
        return False
    hidden = bool(deleted & DELETED_COMMENT)
    if hidden:
        q.ctx.out.flag_if(entry, "commenthidden", True)
    if can_see(q, deleted, DELETED_COMMENT):
        if want_comment:
            entry["comment"] = text or ""
        if want_parsed:
            entry["parsedcomment"] = parsed_comment(text or "")
    return hidden


def check_show(module: ModuleSpec, show: Sequence[str], pairs: Sequence[tuple[str, str]]) -> None:
    """`apierror-show` when two mutually exclusive `show` values are both given."""
    given = set(show)
    for a, b in pairs:
        if a in given and b in given:
            raise ApiUsageError(
                "show",
                msg.api("apierror-show"),
                module=module.path,
            )


def patrolflag_denied(module: ModuleSpec) -> ApiUsageError:
    return ApiUsageError(
        "permissiondenied",
        msg.api("apierror-permissiondenied-patrolflag"),
        module=module.path,
    )


def may_patrol(q: QueryRun) -> bool:
    """User::useRCPatrol / useNPPatrol: patrolling is enabled and the caller may patrol."""
    caller = q.ctx.caller
    return caller.allowed("patrol") or caller.allowed("patrolmarks")


def time_window(
    query: Any,
    column: Any,
    start: str | None,
    end: str | None,
    newer: bool,
) -> Any:
    """ApiQueryBase::addTimestampWhereRange: `start` is where the walk begins."""
    if start is not None:
        query = query.where(column >= start if newer else column <= start)
    if end is not None:
        query = query.where(column <= end if newer else column >= end)
    return query


def keyset(
    query: Any,
    columns: Sequence[Any],
    cont: str | None,
    kinds: Sequence[type],
    newer: bool,
) -> Any:
    """Order by `columns` (ascending when `newer`) and start at the continue value, inclusive."""
    start = parse_continue(cont, kinds)
    if start is not None:
        query = query.where(from_key(columns, start, not newer))
    return query.order_by(*order(columns, not newer))


def timestamp(value: Any) -> str:
    return iso(str(value))


def actor_of(user: str) -> sa.ColumnElement[bool]:
    """A condition on `actor` for a user parameter value (a name, an IP, `#id`)."""
    actor = schema.actor
    if user.startswith("#") and user[1:].isdigit():
        return actor.c.actor_user == int(user[1:])
    return actor.c.actor_name == user


def by_user(spec: ModuleSpec, params: dict[str, Any], query: Any) -> Any:
    """`user` or `excludeuser` (not both: `invalidparammix`) as a condition on `actor`."""
    if params["user"] is not None and params["excludeuser"] is not None:
        raise ApiUsageError(
            "invalidparammix",
            msg.invalidparammix([spec.prefix + "user", spec.prefix + "excludeuser"]),
            module=spec.path,
        )
    if params["user"] is not None:
        query = query.where(actor_of(params["user"]))
    if params["excludeuser"] is not None:
        query = query.where(sa.not_(actor_of(params["excludeuser"])))
    return query


@dataclass(frozen=True)
class Walk:
    """A journal list's walk through time, as ApiQueryBase's timestamp lists share it: newest
    first unless `dir=newer`, inside the `start`/`end` window, from the continue value on, `limit`
    rows a request; the continue value is the sort key of the first row not returned."""

    newer: bool
    start: str | None
    end: str | None
    cont: str | None
    limit: int

    @classmethod
    def of(cls, params: dict[str, Any], limit: int | None = None) -> Walk:
        """The walk a module's parameters ask for; `limit` when the module computes its own."""
        return cls(
            newer=params["dir"] == "newer",
            start=params.get("start"),
            end=params.get("end"),
            cont=params["continue"],
            limit=params["limit"] if limit is None else limit,
        )

    def window(self, query: Any, column: Any) -> Any:
        return time_window(query, column, self.start, self.end, self.newer)

    async def page(
        self,
        q: QueryRun,
        query: Any,
        keys: Sequence[Any],
        kinds: Sequence[type],
        fields: Sequence[str],
        tag: str | None = None,
        tagged: Callable[[int], Any] | None = None,
    ) -> tuple[list[Row], str | None]:
        """One page of `query` in the order of `keys` (typed `kinds` in the continue value), and
        the next continue value: the `fields` of the first row left out, joined by `|`. With a
        `tag`, only rows `tagged(tag id)`; a tag that was never defined matches no row."""

        def read(conn: Conn) -> list[Row]:
            selected = keyset(query, keys, self.cont, kinds, self.newer)
            if tag is not None and tagged is not None:
                tid = tag_id(conn, tag)
                if tid is None:
                    return []
                selected = selected.where(tagged(tid))
            return conn.all(selected.limit(self.limit + 1))

        rows, following = split_page(await q.ctx.db.read(read), self.limit)
        if following is None:
            return rows, None
        return rows, "|".join(str(following[name]) for name in fields)


# The recentchanges table, which list=recentchanges and list=watchlist both walk.

RC = schema.recentchanges
A = schema.actor
C = schema.comment
P = schema.page
R = schema.revision
WL = schema.watchlist


def recentchanges_select() -> Any:
    """A change with its actor, comment, page and revision (the last two may be missing)."""
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


def recentchanges_show(query: Any, show: set[str]) -> Any:
    """The `show` values of recentchanges and watchlist as conditions."""
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


def _hide_deleted_actions(q: QueryRun, query: Any) -> Any:
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


def recentchanges_filters(
    q: QueryRun, spec: ModuleSpec, params: dict[str, Any], walk: Walk, query: Any
) -> Any:
    """What recentchanges and watchlist both filter on: the time window, the namespaces, the user,
    the change types, and log rows whose action the caller may not see."""
    query = walk.window(query, RC.c.rc_timestamp)
    if params["namespace"]:
        query = query.where(RC.c.rc_namespace.in_(params["namespace"]))
    query = by_user(spec, params, query)
    types = [RC_TYPES[t] for t in params["type"]]
    query = query.where(RC.c.rc_type.in_(types))
    return _hide_deleted_actions(q, query)


# The walk of both: (rc_timestamp, rc_id), continued by `<timestamp>|<rc_id>`.
RECENTCHANGES_KEYS = (RC.c.rc_timestamp, RC.c.rc_id)
RECENTCHANGES_KINDS = (str, int)
RECENTCHANGES_FIELDS = ("rc_timestamp", "rc_id")


def change_title_ids(q: QueryRun, entry: dict[str, Any], row: Row, props: set[str]) -> bool:
    """A change's `title` and `ids` fields (a log entry's hidden action hides them); True when
    hidden."""
    rc_type = int(row["rc_type"])
    deleted = int(row["rc_deleted"] or 0)
    hidden = False
    if "title" in props or "ids" in props:
        if rc_type == 3 and deleted & DELETED_TEXT:
            q.ctx.out.flag_if(entry, "actionhidden", True)
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
    return hidden


def change_flags_sizes_time(q: QueryRun, entry: dict[str, Any], row: Row, props: set[str]) -> None:
    """A change's `flags`, `sizes` and `timestamp` fields."""
    out = q.ctx.out
    if "flags" in props:
        out.flag(entry, "bot", bool(row["rc_bot"]))
        out.flag(entry, "new", int(row["rc_type"]) == 1)
        out.flag(entry, "minor", bool(row["rc_minor"]))
    if "sizes" in props:
        entry["oldlen"] = int(row["rc_old_len"] or 0)
        entry["newlen"] = int(row["rc_new_len"] or 0)
    if "timestamp" in props:
        entry["timestamp"] = timestamp(row["rc_timestamp"])


def change_patrol_flags(q: QueryRun, entry: dict[str, Any], row: Row) -> None:
    out = q.ctx.out
    patrolled = int(row["rc_patrolled"] or 0)
    out.flag(entry, "patrolled", patrolled != 0)
    out.flag(entry, "unpatrolled", patrolled == 0 and int(row["rc_type"]) in (0, 1))
    out.flag(entry, "autopatrolled", patrolled == 2)


def change_loginfo(q: QueryRun, entry: dict[str, Any], row: Row) -> bool:
    """A log change's `logid`, `logtype`, `logaction` and `logparams`; True when hidden."""
    deleted = int(row["rc_deleted"] or 0)
    hidden = False
    if deleted & DELETED_TEXT:
        q.ctx.out.flag_if(entry, "actionhidden", True)
        hidden = True
    if can_see(q, deleted, DELETED_TEXT):
        entry["logid"] = int(row["rc_logid"])
        entry["logtype"] = row["rc_log_type"]
        entry["logaction"] = row["rc_log_action"]
        entry["logparams"] = log_params(row["rc_params"], row["rc_log_type"], q.ctx.fv)
    return hidden


async def change_tags(q: QueryRun, rows: list[Row], props: set[str]) -> dict[int, list[str]]:
    """The tags of these changes, by rc_id, when `tags` is asked for."""
    if "tags" not in props:
        return {}
    ids = [int(r["rc_id"]) for r in rows]
    return await q.ctx.db.read(lambda conn: event_tags(conn, "cte_rc_id", ids))
