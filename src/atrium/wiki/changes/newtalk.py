"""The new-talk notification: set when someone else edits a user's talk page, cleared when the
user sees it (their talk page, or `action=clearhasmsg`), as MediaWiki's user_newtalk."""

from __future__ import annotations

import sqlalchemy as sa

from atrium.core.db import Conn
from atrium.wiki import schema
from atrium.wiki.accounts.usernames import is_ip
from atrium.wiki.reads.users import account_by_name
from atrium.wiki.titles import NS_USER_TALK, Title

NT = schema.user_newtalk


def _where(user_id: int | None, ip: str) -> sa.ColumnElement[bool]:
    return NT.c.user_id == user_id if user_id else sa.and_(NT.c.user_id == 0, NT.c.user_ip == ip)


def notify_talk_edit(
    conn: Conn, title: Title, editor: str, minor: bool, rights: frozenset[str], timestamp: str
) -> None:
    """DerivedPageDataUpdater: an edit to `User talk:X` by anyone but X (a minor edit by one
    with `nominornewtalk` aside) flags X, an account or an IP address."""
    if title.ns != NS_USER_TALK or "/" in title.dbkey:
        return
    owner = title.text
    if owner == editor or (minor and "nominornewtalk" in rights):
        return
    if is_ip(owner):
        user_id, ip = 0, owner
    else:
        account = account_by_name(conn, owner)
        if account is None:
            return
        user_id, ip = int(account.id), ""
    conn.execute(sa.delete(NT).where(_where(user_id, ip)))
    conn.execute(sa.insert(NT).values(user_id=user_id, user_ip=ip, user_last_timestamp=timestamp))


def clear(conn: Conn, user_id: int | None, ip: str) -> bool:
    """Clear the flag; whether there was one."""
    return bool(conn.execute(sa.delete(NT).where(_where(user_id, ip))).rowcount)
