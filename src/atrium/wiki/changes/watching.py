"""Watchlists: watching and unwatching a page and its talk page (MediaWiki keeps both), the
notification timestamps, and the watchlist token kept in the user's preferences."""

from __future__ import annotations

import secrets

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.titles import Title

WL = schema.watchlist


def pair(title: Title) -> list[Title]:
    """A page and its talk page (or the subject page of a talk page)."""
    if title.ns < 0:
        return [title]
    other = title.ns + 1 if title.ns % 2 == 0 else title.ns - 1
    return [Title(title.ns, title.dbkey), Title(other, title.dbkey)]


def set_watch(conn: Conn, user_id: int, title: Title, watch: bool) -> None:
    for t in pair(title):
        exists = conn.scalar(
            sa.select(WL.c.wl_id).where(
                WL.c.wl_user == user_id, WL.c.wl_namespace == t.ns, WL.c.wl_title == t.dbkey
            )
        )
        if watch and exists is None:
            conn.execute(
                sa.insert(WL).values(
                    wl_user=user_id,
                    wl_namespace=t.ns,
                    wl_title=t.dbkey,
                    wl_notificationtimestamp=None,
                )
            )
        elif not watch and exists is not None:
            conn.execute(sa.delete(WL).where(WL.c.wl_id == exists))


def is_watched(conn: Conn, user_id: int, title: Title) -> bool:
    return (
        conn.scalar(
            sa.select(WL.c.wl_id).where(
                WL.c.wl_user == user_id,
                WL.c.wl_namespace == title.ns,
                WL.c.wl_title == title.dbkey,
            )
        )
        is not None
    )


def mark_seen(conn: Conn, user_id: int, title: Title | None) -> None:
    """Clear notification timestamps: of one page, or of the whole watchlist."""
    query = sa.update(WL).where(WL.c.wl_user == user_id)
    if title is not None:
        query = query.where(WL.c.wl_namespace == title.ns, WL.c.wl_title == title.dbkey)
    conn.execute(query.values(wl_notificationtimestamp=None))


def watchlist_token(conn: Conn, user_id: int) -> str:
    """The `watchlisttoken` preference, created on first use (as Special:ResetTokens would)."""
    up = schema.user_properties
    value = conn.scalar(
        sa.select(up.c.up_value).where(
            up.c.up_user == user_id, up.c.up_property == "watchlisttoken"
        )
    )
    if value:
        return str(value)
    token = secrets.token_hex(20)
    conn.execute(
        sa.insert(up).values(up_user=user_id, up_property="watchlisttoken", up_value=token)
    )
    return token


def reset_watchlist_token(conn: Conn, user_id: int) -> str:
    """A new `watchlisttoken` (User::resetTokenFromOption): the old one stops opening the
    watchlist feed."""
    up = schema.user_properties
    token = secrets.token_hex(20)
    conn.execute(sa.delete(up).where(up.c.up_user == user_id, up.c.up_property == "watchlisttoken"))
    conn.execute(
        sa.insert(up).values(up_user=user_id, up_property="watchlisttoken", up_value=token)
    )
    return token
