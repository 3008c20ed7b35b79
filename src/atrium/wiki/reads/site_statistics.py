"""The wiki's counts (SiteStats): pages, content pages, edits, users, active users and
administrators, for `meta=siteinfo&siprop=statistics` and `Special:Statistics` alike, and the
number of uploaded files for the page."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema


def statistics(conn: Conn) -> dict[str, int]:
    page = schema.page
    content_ns = [0]
    pages = conn.scalar(sa.select(sa.func.count()).select_from(page))
    articles = conn.scalar(
        sa.select(sa.func.count())
        .select_from(page)
        .where(page.c.page_namespace.in_(content_ns), page.c.page_is_redirect.is_(False))
    )
    edits = conn.scalar(sa.select(sa.func.count()).select_from(schema.revision))
    users = conn.scalar(sa.select(sa.func.count()).select_from(schema.user))
    admins = conn.scalar(
        sa.select(sa.func.count())
        .select_from(schema.user_groups)
        .where(schema.user_groups.c.ug_group == "sysop")
    )
    active = conn.scalar(
        sa.select(sa.func.count(sa.distinct(schema.actor.c.actor_user)))
        .select_from(
            schema.revision.join(
                schema.actor, schema.actor.c.actor_id == schema.revision.c.rev_actor
            )
        )
        .where(schema.actor.c.actor_user.is_not(None))
    )
    return {
        "pages": int(pages),
        "articles": int(articles),
        "edits": int(edits),
        "images": 0,
        "users": int(users),
        "activeusers": int(active),
        "admins": int(admins),
        "jobs": 0,
    }


def file_count(conn: Conn) -> int:
    return int(conn.scalar(sa.select(sa.func.count()).select_from(schema.image)) or 0)
