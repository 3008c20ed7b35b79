"""What the journal lists share (recentchanges, watchlist, logevents, usercontribs, allrevisions):
the hidden-field bits, user and comment fields, log parameters, the `show` conflicts, and the
timestamp/id keyset of MediaWiki's `dir=older|newer` lists.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from atrium.core.db import Row
from atrium.wiki import schema
from atrium.wiki.api.errors import ApiUsageError
from atrium.wiki.api.params import ModuleSpec
from atrium.wiki.api.query.listing import from_key, order, parse_continue
from atrium.wiki.api.query.pageset import QueryRun
from atrium.wiki.messages import messages as msg
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
