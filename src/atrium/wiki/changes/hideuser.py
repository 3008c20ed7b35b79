"""Hiding a user name (a `hidename` block) on every row that shows it, and showing it again.

MediaWiki's RevisionDeleteUser::suppressUserName: the user's revisions, deleted revisions, recent
changes, log entries and file versions get the "user deleted" and "suppressed" bits, so every read
path that honours revision deletion shows `userhidden` (or drops the row) to anyone without the
suppression rights. Log entries about the user (account creation, earlier blocks, rights), whose
target is their user page, also get the "action deleted" bit: their title is the name itself.
Unblocking clears the bits again (unsuppressUserName).
"""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.changes import invalidation
from atrium.wiki.titles import NS_USER, NS_USER_TALK

DELETED_ACTION = 1
DELETED_USER = 4
DELETED_RESTRICTED = 8
USER_BITS = DELETED_USER | DELETED_RESTRICTED
TARGET_BITS = DELETED_ACTION | DELETED_RESTRICTED

_BY_ACTOR = (
    (schema.revision.c.rev_deleted, schema.revision.c.rev_actor),
    (schema.archive.c.ar_deleted, schema.archive.c.ar_actor),
    (schema.recentchanges.c.rc_deleted, schema.recentchanges.c.rc_actor),
    (schema.oldimage.c.oi_deleted, schema.oldimage.c.oi_actor),
    (schema.filearchive.c.fa_deleted, schema.filearchive.c.fa_actor),
)


def _bits(column: sa.Column[int], bits: int, hide: bool) -> sa.ColumnElement[int]:
    return column.op("|")(bits) if hide else column.op("&")(~bits)


def set_user_hidden(conn: Conn, user_id: int, name: str, hide: bool, version: int) -> None:
    """Mark (or unmark) every row that names the user as hidden; `version` is the render version
    of the pages whose current revision is theirs (`{{REVISIONUSER}}` changes with it)."""
    actor = conn.one(sa.select(schema.actor.c.actor_id).where(schema.actor.c.actor_user == user_id))
    lg, rc = schema.logging, schema.recentchanges
    if actor is not None:
        actor_id = int(actor["actor_id"])
        p, r = schema.page, schema.revision
        theirs = conn.tuples(
            sa.select(p.c.page_id)
            .join(r, r.c.rev_id == p.c.page_latest)
            .where(r.c.rev_actor == actor_id)
        )
        invalidation.touch_pages(conn, (int(row[0]) for row in theirs), version)
        for column, by in _BY_ACTOR:
            conn.execute(
                sa.update(column.table)
                .where(by == actor_id)
                .values({column.name: _bits(column, USER_BITS, hide)})
            )
        # The suppression log keeps its own visibility (only suppressors read it).
        conn.execute(
            sa.update(lg)
            .where(lg.c.log_actor == actor_id, lg.c.log_type != "suppress")
            .values(log_deleted=_bits(lg.c.log_deleted, USER_BITS, hide))
        )
    dbkey = name.replace(" ", "_")
    about = sa.and_(lg.c.log_namespace.in_((NS_USER, NS_USER_TALK)), lg.c.log_title == dbkey)
    conn.execute(
        sa.update(lg)
        .where(about, lg.c.log_type != "suppress")
        .values(log_deleted=_bits(lg.c.log_deleted, TARGET_BITS, hide))
    )
    conn.execute(
        sa.update(rc)
        .where(
            rc.c.rc_logid.in_(sa.select(lg.c.log_id).where(about)),
            rc.c.rc_namespace.in_((NS_USER, NS_USER_TALK)),
        )
        .values(rc_deleted=_bits(rc.c.rc_deleted, TARGET_BITS, hide))
    )
