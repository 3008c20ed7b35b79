"""The two journals every change writes: `logging` (log events) and `recentchanges`.

MediaWiki writes one recent-changes row per edit (type 0, or 1 for a page creation) and one per
logged action (type 3, pointing at its `logging` row); `list=recentchanges`, `list=watchlist` and
`list=logevents` read them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes import enotif, invalidation
from atrium.wiki.changes.accounts import ensure_actor
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import Title

if TYPE_CHECKING:
    from atrium.wiki.site import Site

RC_EDIT = 0
RC_NEW = 1
RC_LOG = 3
RC_EXTERNAL = 5
RC_CATEGORIZE = 6

PATROLLED_NONE = 0
PATROLLED_MANUAL = 1
PATROLLED_AUTO = 2

# The logged changes that can alter how pages render: a title deleted, restored, moved, uploaded,
# imported, merged or protected (MediaWiki purges a page it protects), or a revision's author
# hidden (`{{REVISIONUSER}}`). Their log entry is the one place every one of them passes.
RENDERING_LOGS = frozenset({"delete", "move", "upload", "protect", "import", "merge", "suppress"})


@dataclass(frozen=True)
class Performer:
    """Who does a change: account id (None for an IP), name and rights."""

    user_id: int | None
    name: str
    rights: frozenset[str]
    ip: str = "127.0.0.1"

    def allowed(self, right: str) -> bool:
        return right in self.rights


def comment_id(conn: Conn, text: str) -> int:
    row = conn.one(
        sa.insert(schema.comment).values(comment_text=text).returning(schema.comment.c.comment_id)
    )
    assert row is not None
    return int(row["comment_id"])


def actor_id(conn: Conn, who: Performer) -> int:
    return ensure_actor(conn, who.user_id, who.name)


def patrol_state(who: Performer) -> int:
    return PATROLLED_AUTO if who.allowed("autopatrol") else PATROLLED_NONE


def record_edit(
    conn: Conn,
    who: Performer,
    title: Title,
    *,
    page_id: int,
    rev_id: int,
    parent_id: int,
    comment: int,
    timestamp: str,
    minor: bool,
    bot: bool,
    old_len: int | None,
    new_len: int,
) -> int:
    """The recent-changes row of a saved revision; returns its rc_id."""
    row = conn.one(
        sa.insert(schema.recentchanges)
        .values(
            rc_timestamp=timestamp,
            rc_actor=actor_id(conn, who),
            rc_namespace=title.ns,
            rc_title=title.dbkey,
            rc_comment_id=comment,
            rc_minor=minor,
            rc_bot=bot,
            rc_new=parent_id == 0,
            rc_cur_id=page_id,
            rc_this_oldid=rev_id,
            rc_last_oldid=parent_id,
            rc_type=RC_NEW if parent_id == 0 else RC_EDIT,
            rc_source="mw.new" if parent_id == 0 else "mw.edit",
            rc_patrolled=patrol_state(who),
            rc_ip=who.ip if who.user_id is None else "",
            rc_old_len=old_len,
            rc_new_len=new_len,
        )
        .returning(schema.recentchanges.c.rc_id)
    )
    assert row is not None
    notify_watchers(conn, who, title, timestamp)
    return int(row["rc_id"])


def notify_watchers(conn: Conn, who: Performer, title: Title, timestamp: str) -> None:
    """Mark the page changed for everyone else watching it (wl_notificationtimestamp), as
    RecentChange::save does through EmailNotification::notifyOnPageChange for every edit and
    published log entry."""
    if title.ns < 0:
        return
    wl = schema.watchlist
    query = sa.update(wl).where(
        wl.c.wl_namespace == title.ns,
        wl.c.wl_title == title.dbkey,
        wl.c.wl_notificationtimestamp.is_(None),
    )
    if who.user_id:
        query = query.where(wl.c.wl_user != who.user_id)
    conn.execute(query.values(wl_notificationtimestamp=timestamp))


def log_event(
    conn: Conn,
    who: Performer,
    log_type: str,
    action: str,
    title: Title,
    *,
    page_id: int | None = None,
    reason: str = "",
    params: dict[str, Any] | None = None,
    timestamp: str | None = None,
    in_rc: bool = True,
    rev_id: int = 0,
    site: Site | None = None,
    relations: Mapping[str, Sequence[str | int]] | None = None,
) -> int:
    """A `logging` row (and its recent-changes row); returns the log id. `rev_id` is the
    revision the entry is associated with (a move's or protection's null revision), which the
    recent-changes row shows as its revision (ManualLogEntry::setAssociatedRevId). With
    `site`, a recent-changes row mails the page's watchers, as MediaWiki's does; without
    (the importer, maintenance), it only marks them notified. `relations` are what the entry
    can be found by in `log_search` (ManualLogEntry::setRelations), field -> values; the
    associated revision is one of them."""
    ts = timestamp or now14()
    actor = actor_id(conn, who)
    reason_id = comment_id(conn, reason)
    encoded = json.dumps(params or {}, ensure_ascii=False, separators=(",", ":"))
    row = conn.one(
        sa.insert(schema.logging)
        .values(
            log_type=log_type,
            log_action=action,
            log_timestamp=ts,
            log_actor=actor,
            log_namespace=title.ns,
            log_title=title.dbkey,
            log_page=page_id,
            log_comment_id=reason_id,
            log_params=encoded,
        )
        .returning(schema.logging.c.log_id)
    )
    assert row is not None
    log_id = int(row["log_id"])
    searchable = {
        (field, str(value)) for field, values in (relations or {}).items() for value in values
    }
    if rev_id:
        searchable.add(("associated_rev_id", str(rev_id)))
    if searchable:
        conn.executemany(
            sa.insert(schema.log_search),
            [{"ls_field": f, "ls_value": v, "ls_log_id": log_id} for f, v in sorted(searchable)],
        )
    if log_type in RENDERING_LOGS:
        invalidation.touch(conn, [title], invalidation.log_change(log_id))
    if in_rc:
        conn.execute(
            sa.insert(schema.recentchanges).values(
                rc_timestamp=ts,
                rc_actor=actor,
                rc_namespace=title.ns,
                rc_title=title.dbkey,
                rc_comment_id=reason_id,
                rc_cur_id=page_id or 0,
                rc_this_oldid=rev_id,
                rc_type=RC_LOG,
                rc_source="mw.log",
                rc_patrolled=PATROLLED_AUTO,
                rc_ip=who.ip if who.user_id is None else "",
                rc_logid=log_id,
                rc_log_type=log_type,
                rc_log_action=action,
                rc_params=encoded,
            )
        )
        if site is not None:
            # Before notify_watchers: the mail goes to those it has not marked yet.
            enotif.mail_logged_action(
                conn, site, title, who.user_id, who.name, log_type, action, reason, ts
            )
        notify_watchers(conn, who, title, ts)
    return log_id
