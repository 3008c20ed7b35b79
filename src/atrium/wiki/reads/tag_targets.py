"""What `Special:EditTags` shows and checks: the chosen revisions of one page or the chosen log
entries, each with its change tags (ChangeTagsList), and the tags that may be added or removed
by hand (user-defined ones; software-defined tags are never removed)."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from atrium.core.db import Conn, Row
from atrium.wiki import schema

R = schema.revision
L = schema.logging
A = schema.actor
C = schema.comment
CTD = schema.change_tag_def
CT = schema.change_tag
CTE = schema.change_tag_event


def page_of_revision(conn: Conn, rev_id: int) -> Row | None:
    """The page a revision belongs to (RevisionDeleter::suggestTarget)."""
    return conn.one(
        sa.select(schema.page.c.page_id, schema.page.c.page_namespace, schema.page.c.page_title)
        .join(R, R.c.rev_page == schema.page.c.page_id)
        .where(R.c.rev_id == rev_id)
    )


def revisions_of_page(conn: Conn, page_id: int, ids: Sequence[int]) -> list[Row]:
    """The revisions among `ids` that belong to the page, newest first."""
    return conn.all(
        sa.select(
            R.c.rev_id,
            R.c.rev_parent_id,
            R.c.rev_timestamp,
            R.c.rev_minor_edit,
            R.c.rev_len,
            R.c.rev_deleted,
            A.c.actor_name,
            C.c.comment_text,
        )
        .join(A, A.c.actor_id == R.c.rev_actor)
        .join(C, C.c.comment_id == R.c.rev_comment_id)
        .where(R.c.rev_page == page_id, R.c.rev_id.in_(list(ids)))
        .order_by(R.c.rev_timestamp.desc(), R.c.rev_id.desc())
    )


def log_entries_by_ids(conn: Conn, ids: Sequence[int]) -> list[Row]:
    """The log entries among `ids`, newest first."""
    return conn.all(
        sa.select(L, A.c.actor_name, C.c.comment_text)
        .join(A, A.c.actor_id == L.c.log_actor)
        .join(C, C.c.comment_id == L.c.log_comment_id)
        .where(L.c.log_id.in_(list(ids)))
        .order_by(L.c.log_timestamp.desc(), L.c.log_id.desc())
    )


def log_tags(conn: Conn, log_ids: Sequence[int]) -> dict[int, list[str]]:
    if not log_ids:
        return {}
    rows = conn.all(
        sa.select(CTE.c.cte_log_id, CTD.c.ctd_name)
        .join(CTD, CTD.c.ctd_id == CTE.c.cte_tag_id)
        .where(CTE.c.cte_log_id.in_(list(log_ids)))
        .order_by(CTD.c.ctd_name)
    )
    tags: dict[int, list[str]] = {}
    for row in rows:
        names = tags.setdefault(int(row["cte_log_id"]), [])
        if str(row["ctd_name"]) not in names:
            names.append(str(row["ctd_name"]))
    return tags


def defined_tags(conn: Conn) -> list[str]:
    """ChangeTagsStore::listExplicitlyDefinedTags: the tags users defined, by name."""
    query = sa.select(CTD.c.ctd_name).where(CTD.c.ctd_user_defined.is_(True))
    return [str(name) for (name,) in conn.tuples(query.order_by(CTD.c.ctd_name))]


def software_defined(conn: Conn, names: Sequence[str]) -> list[str]:
    """The names among `names` that the software defines (not removable by hand)."""
    if not names:
        return []
    query = sa.select(CTD.c.ctd_name).where(
        CTD.c.ctd_name.in_(list(names)), CTD.c.ctd_user_defined.is_(False)
    )
    found = {str(name) for (name,) in conn.tuples(query)}
    return [n for n in names if n in found]
