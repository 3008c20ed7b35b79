"""What the browser's page actions and `Special:Undelete` read of deleted pages: how many
revisions of a title are archived, the archived titles matching a prefix, and one title's
archived revisions with their authors and summaries (PageArchive)."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema
from atrium.wiki.timestamps import now14
from atrium.wiki.titles import Title

AR = schema.archive


def archived_count(conn: Conn, title: Title) -> int:
    """The number of archived revisions of a title (the "Undelete N edits" tab)."""
    return int(
        conn.scalar(
            sa.select(sa.func.count())
            .select_from(AR)
            .where(AR.c.ar_namespace == title.ns, AR.c.ar_title == title.dbkey)
        )
        or 0
    )


def archived_titles(conn: Conn, prefix: Title | None, limit: int) -> list[Row]:
    """(ar_namespace, ar_title, revisions) of deleted titles, by title, optionally only those
    in the prefix's namespace whose key starts with its key (PageArchive::listPagesByPrefix)."""
    query = sa.select(
        AR.c.ar_namespace, AR.c.ar_title, sa.func.count().label("revisions")
    ).group_by(AR.c.ar_namespace, AR.c.ar_title)
    if prefix is not None:
        escaped = prefix.dbkey.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = query.where(
            AR.c.ar_namespace == prefix.ns, AR.c.ar_title.like(escaped + "%", escape="\\")
        )
    return conn.all(query.order_by(AR.c.ar_namespace, AR.c.ar_title).limit(limit))


def archived_revisions(conn: Conn, title: Title, limit: int) -> list[Row]:
    """The newest archived revisions of a title, with author, summary and deletion bits."""
    actor, comment = schema.actor, schema.comment
    return conn.all(
        sa.select(
            AR.c.ar_rev_id,
            AR.c.ar_timestamp,
            AR.c.ar_minor_edit,
            AR.c.ar_len,
            AR.c.ar_deleted,
            actor.c.actor_name,
            actor.c.actor_user,
            comment.c.comment_text,
        )
        .join(actor, actor.c.actor_id == AR.c.ar_actor)
        .join(comment, comment.c.comment_id == AR.c.ar_comment_id)
        .where(AR.c.ar_namespace == title.ns, AR.c.ar_title == title.dbkey)
        .order_by(AR.c.ar_timestamp.desc(), AR.c.ar_rev_id.desc())
        .limit(limit)
    )


def is_protected(conn: Conn, title: Title) -> bool:
    """Whether any protection applies to the page or title now (the skin's "Change
    protection" instead of "Protect")."""
    ts = now14()
    pr, pt, page = schema.page_restrictions, schema.protected_titles, schema.page

    def live(expiry: sa.ColumnElement[str | None]) -> sa.ColumnElement[bool]:
        return sa.or_(expiry.is_(None), expiry == "infinity", expiry > ts)

    on_page = conn.scalar(
        sa.select(sa.func.count())
        .select_from(pr.join(page, page.c.page_id == pr.c.pr_page))
        .where(page.c.page_namespace == title.ns, page.c.page_title == title.dbkey)
        .where(pr.c.pr_level != "", live(pr.c.pr_expiry))
    )
    if on_page:
        return True
    return bool(
        conn.scalar(
            sa.select(sa.func.count())
            .select_from(pt)
            .where(pt.c.pt_namespace == title.ns, pt.c.pt_title == title.dbkey)
            .where(live(pt.c.pt_expiry))
        )
    )


def archived_files(conn: Conn, name: str, limit: int) -> list[Row]:
    """The deleted versions of a file (`filearchive`), newest first, with uploader and
    description and their deletion bits."""
    fa, actor, comment = schema.filearchive, schema.actor, schema.comment
    return conn.all(
        sa.select(
            fa.c.fa_id,
            fa.c.fa_timestamp,
            fa.c.fa_size,
            fa.c.fa_width,
            fa.c.fa_height,
            fa.c.fa_deleted,
            actor.c.actor_name,
            comment.c.comment_text,
        )
        .join(actor, actor.c.actor_id == fa.c.fa_actor)
        .join(comment, comment.c.comment_id == fa.c.fa_description_id)
        .where(fa.c.fa_name == name)
        .order_by(fa.c.fa_timestamp.desc(), fa.c.fa_id.desc())
        .limit(limit)
    )
